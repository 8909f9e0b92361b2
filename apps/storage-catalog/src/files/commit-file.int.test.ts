/**
 * A file commit both ways the catalog makes it (commit-file.process.ts): one atomic append of the
 * usage entry and the version where the event store offers `appendAtomically` (SQLite,
 * PostgreSQL), the CommitFile workflow where it does not (KurrentDB). The same outcomes either way:
 * versions numbered in order, the usage ledger exact, the quota never passed by commits racing
 * for its last bytes; and what each leaves in the store: no process for the atomic commit, a
 * completed one for the workflow.
 */
import { DomainError } from '@burrow/contracts';
import { processStream } from '@burrow/eventsourcing';
import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import {
  cleanUpTestStorage,
  GB,
  startTestStorage,
  TEST_PLANS,
  type TestStorage,
  type TestUser,
} from '../testing/test-context.js';

after(cleanUpTestStorage);

const MB = 1_000_000;

for (const atomic of [true, false]) {
  describe(`file commits (${atomic ? 'one atomic append' : 'the CommitFile workflow'})`, () => {
    let t: TestStorage;
    afterEach(async () => {
      await t?.close();
    });

    async function start(plan_id: number = TEST_PLANS.unlimited.plan_id): Promise<TestUser> {
      t = await startTestStorage({ atomicAppends: atomic });
      assert.equal(typeof t.ctx.store.appendAtomically === 'function', atomic, 'the mode under test');
      const user = await t.createUser(await t.createPartner(), { plan_id });
      await t.registerDevice(user, 'laptop');
      return user;
    }

    /** A commit of `path` whose version says `size` bytes (the catalog takes the size the gateway measured). */
    const commit = (user: TestUser, path: string, size: number) => t.upload(user, 'laptop', path, path, { size });

    it('numbers versions in order and adds each to the usage ledger; leaves a process only when it is a workflow', async () => {
      const user = await start();
      const first = await t.upload(user, 'laptop', 'a.txt', 'one');
      const second = await t.upload(user, 'laptop', 'a.txt', 'three');
      const other = await t.upload(user, 'laptop', 'b.txt', 'xy');
      assert.deepEqual([first.version, second.version, other.version], [0, 1, 0]);
      assert.equal(await t.usage(user.userId), 3 + 5 + 2);

      const entries = await t.store.readStream(`usage-${user.userId}`);
      assert.deepEqual(
        entries.map((e) => e.data.total),
        [3, 8, 10],
      );
      for (const entry of entries) {
        const ref = String(entry.data.ref);
        const process = await t.store.readStream(processStream('storage-catalog', ref));
        if (atomic) {
          assert.match(ref, /^commit:/);
          assert.deepEqual(process, [], 'no process recorded');
        } else {
          assert.deepEqual(
            process.map((e) => e.type),
            ['ProcessStarted', 'ProcessCompleted'],
          );
        }
      }
      // the workflow's end record is a deferred append: the read models see it once caught up
      await t.runner.catchUp();
      assert.deepEqual(await t.recovery().pending(), [], 'nothing left for recovery');
    });

    it('commits of one new path at once: each is a version of its own, in order, none lost (the "no such file" hint was wrong for all but one)', async () => {
      const user = await start();
      const sizes = [1, 2, 3, 4, 5, 6];
      const outcomes = await Promise.all(sizes.map((size) => commit(user, 'new.txt', size)));
      assert.deepEqual(
        outcomes.map((o) => o.version).sort((a, b) => a - b),
        [0, 1, 2, 3, 4, 5],
      );
      const versions = await t.files.versions({ userId: user.userId, device: 'laptop', path: 'new.txt' });
      assert.deepEqual(
        versions.map((v) => v.version).sort((a, b) => a - b),
        [0, 1, 2, 3, 4, 5],
      );
      assert.equal(await t.usage(user.userId), 21, 'the ledger counts every version once');
    });

    it('commits racing for the last bytes of the quota: exactly those that fit are stored, never more, the others refused with 507', async () => {
      const user = await start(TEST_PLANS.small.plan_id);
      await commit(user, 'big.bin', GB - 250 * MB);
      // 20 at once, 100 MB each: two fit in the 250 MB left
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => commit(user, `racer-${i}.bin`, 100 * MB)),
      );
      const stored = outcomes.filter((o) => o.status === 'fulfilled');
      assert.equal(stored.length, 2, JSON.stringify(outcomes.map((o) => o.status)));
      for (const o of outcomes) {
        if (o.status === 'rejected')
          assert.ok(o.reason instanceof DomainError && o.reason.status === 507, String(o.reason));
      }
      assert.equal(await t.usage(user.userId), GB - 50 * MB);
      const listed = await t.files.versions({ userId: user.userId, device: 'laptop', path: 'big.bin' });
      assert.equal(listed.length, 1);
      // every racer that was refused left nothing: neither a version nor a usage entry
      const entries = await t.store.readStream(`usage-${user.userId}`);
      const kept = entries.reduce((sum, e) => sum + (e.data.delta as number), 0);
      assert.equal(kept, GB - 50 * MB, 'the ledger holds the stored versions only (undone entries net to zero)');
      for (let i = 0; i < 20; i++) {
        const found = await t.files.versions({ userId: user.userId, device: 'laptop', path: `racer-${i}.bin` }).then(
          (v) => v.length,
          () => 0,
        );
        assert.equal(found, outcomes[i].status === 'fulfilled' ? 1 : 0, `racer ${i}`);
      }
    });
  });
}
