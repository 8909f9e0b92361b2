#!/usr/bin/env node
/**
 * The cost of the PostgreSQL event store's global order: appends/s of PostgresEventStore (each
 * append takes one advisory lock, so appends run one at a time and positions commit in order)
 * against the usual unsafe baseline, a plain INSERT with a bigserial position and a unique
 * (stream, revision) index, which lets transactions run side by side but commits positions out of
 * order (a subscriber can skip an event). Both with one appender and with 8 concurrent ones, in a
 * database made for this run on the same server; rounds interleaved, median kept.
 *
 *   npm run bench:event-store-postgres   (POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/postgres;
 *                                         BENCH_APPENDS, BENCH_ROUNDS to change)
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const { PostgresEventStore, createPostgresDatabase, dropPostgresDatabase } =
  await import('../libs/event-store/dist/index.js');

const SERVER = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const APPENDS = Number(process.env.BENCH_APPENDS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const data = { name: 'x'.repeat(200), plan_id: 1, bytes: 123456789, email: 'user@example.com' };

const name = `burrow_bench_${randomBytes(6).toString('hex')}`;
const url = await createPostgresDatabase(SERVER, name);
const store = await PostgresEventStore.connect(url, { poolSize: 10, pollIntervalMs: 60_000 });
const pool = new pg.Pool({ connectionString: url, max: 10 });
pool.on('error', () => undefined); // the drop at the end disconnects what is still closing
await pool.query(`CREATE TABLE naive_events (
  position bigserial PRIMARY KEY, stream text NOT NULL, revision bigint NOT NULL, type text NOT NULL,
  data json NOT NULL, metadata json NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now(), UNIQUE (stream, revision))`);

let run = 0;
const appenders = {
  PostgresEventStore: (stream, revision) =>
    store.append(stream, [{ type: 'UserRenamed', data }], revision === 0 ? 'no_stream' : revision - 1),
  'bigserial INSERT (unsafe)': (stream, revision) =>
    pool.query('INSERT INTO naive_events (stream, revision, type, data, metadata) VALUES ($1, $2, $3, $4, $5)', [
      stream,
      revision,
      'UserRenamed',
      JSON.stringify(data),
      '{}',
    ]),
};

/** `concurrency` appenders, each on streams of its own, APPENDS appends in all. */
async function measure(kind, concurrency) {
  run++;
  const perAppender = Math.floor(APPENDS / concurrency);
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, a) => {
      for (let i = 0; i < perAppender; i++) await appenders[kind](`user-${run}-${a}-${i % 50}`, Math.floor(i / 50));
    }),
  );
  return (perAppender * concurrency) / (Number(process.hrtime.bigint() - started) / 1e9);
}

const cases = [1, 8].flatMap((concurrency) => Object.keys(appenders).map((kind) => ({ kind, concurrency })));
const results = new Map(cases.map((c) => [c, []]));
try {
  for (let round = 0; round < ROUNDS; round++)
    for (const c of cases) results.get(c).push(await measure(c.kind, c.concurrency));
} finally {
  await store.close();
  await pool.end();
  await dropPostgresDatabase(SERVER, name);
}
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const version = await (async () => {
  const c = new pg.Client({ connectionString: SERVER });
  await c.connect();
  try {
    return (await c.query('SHOW server_version')).rows[0].server_version;
  } finally {
    await c.end();
  }
})();

console.log(
  `PostgreSQL ${version} event store, ${APPENDS} appends of one ~300-byte event, median of ${ROUNDS} rounds, ${new Date().toISOString()}`,
);
console.log('appenders  store                        appends/s  vs baseline  ms per append');
for (const concurrency of [1, 8]) {
  const baseline = median(
    results.get(cases.find((c) => c.concurrency === concurrency && c.kind.startsWith('bigserial'))),
  );
  for (const c of cases.filter((x) => x.concurrency === concurrency)) {
    const rate = median(results.get(c));
    console.log(
      `${String(concurrency).padStart(9)}  ${c.kind.padEnd(27)}  ${rate.toFixed(0).padStart(9)}  ${(rate / baseline).toFixed(2).padStart(10)}x  ${((1000 * concurrency) / rate).toFixed(3).padStart(13)}`,
    );
  }
}
