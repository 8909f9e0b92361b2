#!/usr/bin/env node
/**
 * Embedded event store benchmark: appends/s of the SQLite store with synchronous=NORMAL (fsync at
 * checkpoints only, what Burrow ran before) against synchronous=FULL (fsync at every commit, the
 * default: an acknowledged append survives power loss), for two workloads: bare appends, and what
 * a command handler does (read the aggregate's stream, then append at its revision). Measured in
 * this run on this disk, rounds interleaved, median kept; ratios are against NORMAL.
 *
 * Several variants can run interleaved in one process (a loaded machine then slows them alike):
 * this code on each SQLite driver of BENCH_DRIVERS (default: the process's, see libs/sqlite), and
 * with BENCH_BASELINE=<another checkout, built> that checkout's store too; "vs first" compares each
 * with the first variant at the same durability.
 *
 *   npm run bench:event-store        (BENCH_APPENDS, BENCH_ROUNDS, BENCH_DIR to change;
 *                                     BENCH_DRIVERS=node:sqlite,better-sqlite3; BENCH_BASELINE=<dir>)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const { SqliteEventStore } = await import('../libs/event-store/dist/index.js');
const { sqliteDriverChoice, sqliteDriverNamed } = await import('../libs/sqlite/dist/index.js');

const APPENDS = Number(process.env.BENCH_APPENDS ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const data = { name: 'x'.repeat(200), plan_id: 1, bytes: 123456789, email: 'user@example.com' };

/** what is measured: a label and how it opens a store */
const variants = (process.env.BENCH_DRIVERS?.split(',') ?? [sqliteDriverChoice().name]).map((name) => {
  const driver = sqliteDriverNamed(name.trim());
  return {
    label: `this, ${driver.name}`,
    open: (file, options) => SqliteEventStore.open(file, { ...options, driver }),
  };
});
if (process.env.BENCH_BASELINE) {
  const baseline = await import(join(resolve(process.env.BENCH_BASELINE), 'libs/event-store/dist/index.js'));
  variants.push({ label: 'baseline', open: (file, options) => baseline.SqliteEventStore.open(file, options) });
}

const workloads = {
  append: async (store, stream, revisions) => {
    const expected = revisions.get(stream) ?? 'no_stream';
    revisions.set(stream, (revisions.get(stream) ?? -1) + 1);
    await store.append(stream, [{ type: 'UserRenamed', data }], expected);
  },
  'read + append': async (store, stream) => {
    const events = await store.readStream(stream);
    await store.append(stream, [{ type: 'UserRenamed', data }], events.length ? events.at(-1).revision : 'no_stream');
  },
};

async function measure({ variant, synchronous, workload }) {
  const dir = await mkdtemp(join(process.env.BENCH_DIR ?? tmpdir(), 'burrow-bench-es-'));
  const store = variant.open(join(dir, 'events.sqlite'), { synchronous, pollIntervalMs: 60_000 });
  try {
    const revisions = new Map();
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    for (let i = 0; i < APPENDS; i++) await workloads[workload](store, `user-${i % 500}`, revisions);
    const rate = APPENDS / (Number(process.hrtime.bigint() - started) / 1e9);
    const used = process.cpuUsage(cpu);
    return { rate, cpuUs: (used.user + used.system) / APPENDS };
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const cases = Object.keys(workloads).flatMap((workload) =>
  variants.flatMap((variant) => ['normal', 'full'].map((synchronous) => ({ workload, variant, synchronous }))),
);
const results = new Map(cases.map((c) => [c, []]));
const loadAtStart = loadavg();
// interleaved, so a slow moment of a shared disk does not land on one case only
for (let round = 0; round < ROUNDS; round++) for (const c of cases) results.get(c).push(await measure(c));
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const runsOf = (workload, variant, synchronous) =>
  results.get(cases.find((c) => c.workload === workload && c.variant === variant && c.synchronous === synchronous));
const rateOf = (workload, variant, synchronous) => median(runsOf(workload, variant, synchronous).map((r) => r.rate));
/** the process's CPU time per append (user + system): less moved by a loaded machine than the rate */
const cpuOf = (workload, variant, synchronous) => median(runsOf(workload, variant, synchronous).map((r) => r.cpuUs));

const load = (l) => l.map((x) => x.toFixed(1)).join(' ');
console.log(
  `SQLite event store (WAL), ${APPENDS} appends of one ~300-byte event, one at a time, median of ${ROUNDS} rounds, ${new Date().toISOString()}`,
);
console.log(
  `Node ${process.version}; load average ${load(loadAtStart)} at the start, ${load(loadavg())} at the end (2 cores)`,
);
console.log(
  'workload        variant                 synchronous  appends/s  vs NORMAL  vs first  ms per append  CPU us/append  vs first',
);
for (const workload of Object.keys(workloads)) {
  for (const variant of variants) {
    for (const synchronous of ['normal', 'full']) {
      const rate = rateOf(workload, variant, synchronous);
      const vsNormal = rate / rateOf(workload, variant, 'normal');
      const vsFirst = rate / rateOf(workload, variants[0], synchronous);
      const cpu = cpuOf(workload, variant, synchronous);
      const cpuVsFirst = cpu / cpuOf(workload, variants[0], synchronous);
      console.log(
        `${workload.padEnd(14)}  ${variant.label.padEnd(22)}  ${synchronous.toUpperCase().padEnd(11)}  ${rate.toFixed(0).padStart(9)}  ${vsNormal.toFixed(2).padStart(8)}x  ${vsFirst.toFixed(2).padStart(7)}x  ${(1000 / rate).toFixed(3).padStart(13)}  ${cpu.toFixed(0).padStart(13)}  ${cpuVsFirst.toFixed(2).padStart(7)}x`,
      );
    }
  }
}
