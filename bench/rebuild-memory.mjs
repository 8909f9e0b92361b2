#!/usr/bin/env node
/**
 * Memory of a full rebuild of the accounts read models, in-process (issue 23 target 5: RSS < 512
 * MiB with 1M users): seeds `<events file>` with a partner, the plan catalogue and `<users>`
 * `UserCreated` (as bench:scale's users part) unless it exists, then rebuilds the accounts
 * projections from it into a new SQLite file with `<checkout>`'s built code, and prints the
 * process's peak RSS (VmHWM; the imports alone take ~150 MiB), the V8 heap at its peak (sampled at
 * each commit), what a forced collection leaves at the end, seconds and CPU µs per event. Run two
 * checkouts one after the other on the same events file to compare them:
 *
 *   node --expose-gc bench/rebuild-memory.mjs <checkout> <events file> <users>
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
const [root, eventsFile, usersArg] = process.argv.slice(2);
if (!root || !eventsFile || !usersArg)
  throw new Error('usage: node --expose-gc bench/rebuild-memory.mjs <checkout> <events file> <users>');
const USERS = Number(usersArg);
const { SqliteEventStore } = await import(join(root, 'libs/event-store/dist/index.js'));
const { appendEvents, ProjectionRunner } = await import(join(root, 'libs/eventsourcing/dist/index.js'));
const { SqliteDocumentStore } = await import(join(root, 'libs/documents/dist/index.js'));
const { accountsProjections } = await import(join(root, 'apps/accounts/dist/accounts.service.js'));
const fresh = !existsSync(eventsFile);
const store = SqliteEventStore.open(eventsFile, { synchronous: 'normal', pollIntervalMs: 60_000 });
if (fresh) {
  const partnerId = randomUUID();
  await appendEvents(
    store,
    'plan-catalogue',
    [1, 2, 3].map((plan_id) => ({
      type: 'PlanAdded',
      data: { plan_id, name: `P${plan_id}`, storage_bytes: 2 ** 30 * plan_id, promo: false },
    })),
    'no_stream',
  );
  await appendEvents(
    store,
    `partner-${partnerId}`,
    [
      {
        type: 'PartnerCreated',
        data: {
          partnerId,
          username: 'bench-partner',
          company_name: 'bench-partner',
          brand_identifier: 'bench',
          passwordHash: '',
          bytes_available: null,
          features: {},
          created_at: 1,
        },
      },
    ],
    'no_stream',
  );
  for (let i = 0; i < USERS; i++) {
    const userId = randomUUID();
    const username = `bench-user-${String(i).padStart(7, '0')}`;
    await appendEvents(
      store,
      `user-${userId}`,
      [
        {
          type: 'UserCreated',
          data: {
            userId,
            partnerId,
            username,
            name: `Bench User ${i}`,
            email: `${username}@example.com`,
            plan_id: 1,
            group_id: null,
            bonus_bytes: 0,
            avatar_id: 0,
            share_id: String(100_000 + i),
            creation_time: 1,
            passwordHash: '',
          },
        },
      ],
      'no_stream',
    );
  }
  console.log('seeded', await store.headPosition());
}
const head = await store.headPosition();
const docsFile = `${eventsFile}.docs-${process.pid}.sqlite`;
const docs = SqliteDocumentStore.open(docsFile);
const hwm = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
let peakHeap = 0,
  peakRss = 0;
const t = setInterval(() => {}, 1000);
let peakUsed = 0;
const commit = docs.commit.bind(docs);
docs.commit = async (...a) => {
  const m = process.memoryUsage();
  peakHeap = Math.max(peakHeap, m.heapTotal);
  peakUsed = Math.max(peakUsed, m.heapUsed);
  peakRss = Math.max(peakRss, m.rss);
  return commit(...a);
};
const hwm0 = hwm();
const cpu0 = process.cpuUsage();
const started = performance.now();
const runner = new ProjectionRunner(store, docs, accountsProjections(), JSON.parse(process.env.RUNNER_OPTIONS ?? '{}'));
await runner.start();
const s = (performance.now() - started) / 1000;
const c = process.cpuUsage(cpu0);
clearInterval(t);
const m = process.memoryUsage();
console.log(
  JSON.stringify({
    root,
    events: head,
    seconds: +s.toFixed(1),
    eventsPerSecond: Math.round(head / s),
    cpuUsPerEvent: +((c.user + c.system) / head).toFixed(1),
    hwmBeforeMiB: Math.round(hwm0),
    hwmMiB: Math.round(hwm()),
    peakHeapTotalMiB: Math.round(peakHeap / 2 ** 20),
    rssAtEndMiB: Math.round(m.rss / 2 ** 20),
    heapUsedAtEndMiB: Math.round(m.heapUsed / 2 ** 20),
    peakHeapUsedMiB: Math.round(peakUsed / 2 ** 20),
    peakRssAtCommitMiB: Math.round(peakRss / 2 ** 20),
    heapAfterGcMiB: (global.gc?.(), Math.round(process.memoryUsage().heapUsed / 2 ** 20)),
    rssAfterGc: Math.round(process.memoryUsage().rss / 2 ** 20),
  }),
);
await runner.stop();
await docs.close();
await store.close();
for (const f of [docsFile, `${docsFile}-wal`, `${docsFile}-shm`]) rmSync(f, { force: true });
