/**
 * Crash recovery of a file purge (PurgeFile): the purger is stopped for ever at each step boundary
 * (kill -9 as the stores see it), the service restarts on the same files as two replicas, and
 * both recover at once. Past the commit point (`FileVersionsPurged`) the usage entry is made
 * exactly once; before it, nothing is purged and the next run purges, its usage entry once.
 */
import { type Crash, crashAt, processStream, stepsOf, untilCrashed } from '@burrow/eventsourcing';
import { committed } from '@burrow/eventsourcing';
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { versionsCollection } from '../read-models/catalog.documents.js';
import {
  cleanUpTestStorage,
  restartStorage,
  startTestStorage,
  type TestStorage,
  type TestUser,
} from '../testing/test-context.js';

after(cleanUpTestStorage);

async function setUp(crash: Crash): Promise<{ t: TestStorage; user: TestUser }> {
  const t = await startTestStorage({ faults: crash.faults });
  const partner = await t.createPartner();
  const user = await t.createUser(partner);
  await t.registerDevice(user, 'laptop');
  await t.registerDevice(user, 'desktop');
  await t.upload(user, 'laptop', 'a.txt', 'a'.repeat(100));
  await t.upload(user, 'laptop', 'a.txt', 'b'.repeat(50));
  await t.upload(user, 'desktop', 'keep.txt', 'k'.repeat(7));
  await t.removeDevice(user, 'laptop');
  return { t, user };
}

/** Restarts `crashed` as two replicas, recovers on both at once, checks the one PurgeFile was settled once, the expected way. */
async function recoverOnRestart(crashed: TestStorage, point: string): Promise<TestStorage> {
  const t = await restartStorage(crashed);
  const replica = await startTestStorage({ dir: t.dir, clock: t.clock });
  const pending = await t.recovery().pending();
  assert.deepEqual(
    pending.map((p) => p.kind),
    ['PurgeFile'],
  );
  const reports = await Promise.all([t.recovery(0).run(), replica.recovery(0).run()]);
  await replica.close({ keepFiles: true });
  assert.deepEqual(
    reports.flatMap((r) => r.failed),
    [],
  );
  const settled = reports.flatMap((r) => (committed(point) ? r.completed : r.compensated)).map((p) => p.id);
  assert.deepEqual(settled, [pending[0]._id], 'settled once, the expected way');
  await t.runner.catchUp();
  assert.deepEqual(await t.recovery().pending(), []);
  const ends = (await t.store.readStream(processStream('storage-catalog', pending[0]._id))).filter(
    (e) => e.type === 'ProcessCompleted' || e.type === 'ProcessCompensated',
  );
  assert.equal(ends.length, 1);
  return t;
}

/** The ledger's entries of purges: each purge's `-bytes` once, never undone. */
async function purgeEntries(t: TestStorage, userId: string): Promise<number[]> {
  return (await t.store.readStream(`usage-${userId}`))
    .filter((e) => String(e.data.reason).startsWith('purge '))
    .map((e) => e.data.delta as number);
}

describe('purge crash recovery', () => {
  for (const point of stepsOf('PurgeFile', ['commit', 'complete'])) {
    it(`killed at ${point}: ${committed(point) ? 'completed' : 'not purged, then purged by the next run'}, the usage entry made once`, async () => {
      const crash = crashAt(point);
      const { t: crashed, user } = await setUp(crash);
      await untilCrashed(crash, () => crashed.purger.run());
      const t = await recoverOnRestart(crashed, point);
      try {
        const remaining = (await versionsCollection(t.docs).find({ userId: user.userId }))
          .map((v) => `${v.path}:${v.version}`)
          .sort();
        if (committed(point)) {
          assert.deepEqual(remaining, ['keep.txt:0']);
          assert.equal(await t.usage(user.userId), 7);
          assert.deepEqual(await purgeEntries(t, user.userId), [-150]);
        } else {
          assert.deepEqual(remaining, ['a.txt:0', 'a.txt:1', 'keep.txt:0']);
          assert.equal(await t.usage(user.userId), 157);
          assert.deepEqual(await purgeEntries(t, user.userId), []);
        }
        const report = await t.purge();
        assert.equal(report.purged_files, committed(point) ? 0 : 1);
        assert.equal(await t.usage(user.userId), 7);
        assert.deepEqual(await purgeEntries(t, user.userId), [-150]);
      } finally {
        await t.close();
      }
    });
  }

  it('a purge stalled before its commit point and settled by recovery purges once when it resumes', async () => {
    const crash = crashAt('PurgeFile:commit:before');
    const { t, user } = await setUp(crash);
    try {
      const { request } = await untilCrashed(crash, () => t.purger.run());
      await t.runner.catchUp();
      const report = await t.recovery(0).run();
      assert.equal(report.compensated.length, 1, 'recovery claimed the file stream');
      crash.resume();
      const resumed = await request;
      assert.deepEqual(
        [resumed.purged_files, resumed.purged_bytes, resumed.failed],
        [1, 150, []],
        'it decided again, as a new write',
      );
      assert.equal(await t.usage(user.userId), 7);
      assert.deepEqual(await purgeEntries(t, user.userId), [-150]);
    } finally {
      await t.close();
    }
  });
});
