#!/usr/bin/env node
/**
 * Embedded event store benchmark: appends/s of the SQLite store with synchronous=NORMAL (fsync at
 * checkpoints only, what Burrow ran before) against synchronous=FULL (fsync at every commit, the
 * default: an acknowledged append survives power loss), for two workloads: bare appends, and what
 * a command handler does (read the aggregate's stream, then append at its revision). Measured in
 * this run on this disk, rounds interleaved, median kept; ratios are against NORMAL.
 *
 *   npm run bench:event-store        (BENCH_APPENDS, BENCH_ROUNDS, BENCH_DIR to change)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const { SqliteEventStore } = await import('../libs/event-store/dist/index.js');

const APPENDS = Number(process.env.BENCH_APPENDS ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const data = { name: 'x'.repeat(200), plan_id: 1, bytes: 123456789, email: 'user@example.com' };

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

async function measure(synchronous, workload) {
  const dir = await mkdtemp(join(process.env.BENCH_DIR ?? tmpdir(), 'burrow-bench-es-'));
  const store = SqliteEventStore.open(join(dir, 'events.sqlite'), { synchronous, pollIntervalMs: 60_000 });
  try {
    const revisions = new Map();
    const started = process.hrtime.bigint();
    for (let i = 0; i < APPENDS; i++) await workloads[workload](store, `user-${i % 500}`, revisions);
    return APPENDS / (Number(process.hrtime.bigint() - started) / 1e9);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const cases = Object.keys(workloads).flatMap((workload) => ['normal', 'full'].map((synchronous) => ({ workload, synchronous })));
const results = new Map(cases.map((c) => [c, []]));
// interleaved, so a slow moment of a shared disk does not land on one case only
for (let round = 0; round < ROUNDS; round++) for (const c of cases) results.get(c).push(await measure(c.synchronous, c.workload));
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

console.log(`SQLite event store (WAL), ${APPENDS} appends of one ~300-byte event, one at a time, median of ${ROUNDS} rounds, ${new Date().toISOString()}`);
console.log('workload        synchronous  appends/s  vs NORMAL  ms per append');
for (const workload of Object.keys(workloads)) {
  const normal = median(results.get(cases.find((c) => c.workload === workload && c.synchronous === 'normal')));
  for (const c of cases.filter((x) => x.workload === workload)) {
    const rate = median(results.get(c));
    console.log(`${workload.padEnd(14)}  ${c.synchronous.toUpperCase().padEnd(11)}  ${rate.toFixed(0).padStart(9)}  ${(rate / normal).toFixed(2).padStart(8)}x  ${(1000 / rate).toFixed(3).padStart(13)}`);
  }
}
