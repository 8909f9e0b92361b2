#!/usr/bin/env node
/**
 * Embedded event store benchmark: appends/s of the SQLite store with synchronous=NORMAL (fsync at
 * checkpoints only) against synchronous=FULL (fsync at every commit, the default: an acknowledged
 * append survives power loss), each with and without group commit, one append in flight and
 * BENCH_CONCURRENCY in flight. Everything is measured in this run, on this disk; the ratios are
 * against NORMAL without group commit, one in flight (what Burrow did before).
 *
 *   npm run bench:event-store            (BENCH_APPENDS, BENCH_CONCURRENCY, BENCH_DIR to change)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const { SqliteEventStore } = await import('../libs/event-store/dist/index.js');

const APPENDS = Number(process.env.BENCH_APPENDS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const ROUNDS = 3;
const data = { name: 'x'.repeat(200), plan_id: 1, bytes: 123456789, email: 'user@example.com' };

async function measure({ synchronous, groupCommit, inFlight }) {
  const dir = await mkdtemp(join(process.env.BENCH_DIR ?? tmpdir(), 'burrow-bench-es-'));
  const store = SqliteEventStore.open(join(dir, 'events.sqlite'), { synchronous, groupCommit, pollIntervalMs: 60_000 });
  try {
    const revisions = new Map();
    let next = 0;
    const worker = async () => {
      while (next < APPENDS) {
        const stream = `user-${next++ % 500}`;
        const expected = revisions.has(stream) ? revisions.get(stream) : 'no_stream';
        revisions.set(stream, (revisions.get(stream) ?? -1) + 1);
        await store.append(stream, [{ type: 'UserRenamed', data }], expected);
      }
    };
    const started = process.hrtime.bigint();
    await Promise.all(Array.from({ length: inFlight }, worker));
    return APPENDS / (Number(process.hrtime.bigint() - started) / 1e9);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const cases = [];
for (const inFlight of [1, CONCURRENCY]) {
  for (const synchronous of ['normal', 'full']) {
    for (const groupCommit of [false, true]) cases.push({ synchronous, groupCommit, inFlight });
  }
}
// interleave rounds so a slow moment of the disk does not land on one case; keep the median
const results = new Map(cases.map((c) => [c, []]));
for (let round = 0; round < ROUNDS; round++) for (const c of cases) results.get(c).push(await measure(c));
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const baseline = median(results.get(cases[0]));

console.log(`SQLite event store, ${APPENDS} appends of one ~300-byte event, median of ${ROUNDS} rounds (WAL mode)`);
console.log('synchronous  group commit  in flight  appends/s  vs NORMAL, no grouping, 1 in flight');
for (const c of cases) {
  const rate = median(results.get(c));
  console.log(
    `${c.synchronous.toUpperCase().padEnd(11)}  ${String(c.groupCommit).padEnd(12)}  ${String(c.inFlight).padStart(9)}  ${rate.toFixed(0).padStart(9)}  ${(rate / baseline).toFixed(2)}x`,
  );
}
