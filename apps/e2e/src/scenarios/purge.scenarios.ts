/**
 * Storage usage and purging end to end: what a backup client uploads through the storage
 * interface shows in interface A (the user's `bytes_stored`, the partner's `bytes_used`); removing
 * the device and running the purger (the operator subject `storage-catalog.purge.run`) brings the
 * figures and the storage catalog's usage ledger back down; deleting the user and creating the
 * username again gives an empty storage.
 */
import { type PurgeReport, type StorageRoot, Streams, Subjects } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createPartner } from '../harness/client.js';
import { storageApi } from '../harness/storage-client.js';
import { createUser, eventually, getUser, knownPlans, StorageEvents, unique } from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';

const PASSWORD = 'user-password-1';

export function purgeScenarios({ target }: ScenarioContext) {
  const runPurge = () => target().operator.call<PurgeReport>(Subjects.storage.runPurge, {}, { timeoutMs: 60_000 });

  /** The storage catalog's usage ledger total for the user, read from the event store. */
  async function ledger(userId: string): Promise<number> {
    const store = await target().openEventStore();
    try {
      const [last] = await store.readStream(Streams.usage(userId), { direction: 'backwards', maxCount: 1 });
      return (last?.data.total as number | undefined) ?? 0;
    } finally {
      await store.close();
    }
  }

  async function userIdOf(username: string): Promise<string> {
    const events = await StorageEvents.open(target());
    try {
      return (await events.idsOf(username)).userId;
    } finally {
      await events.close();
    }
  }

  it("uploads move bytes_stored and bytes_used; removing the device and purging brings them down; a deleted user's name comes back to an empty storage", async () => {
    // a partner of its own, so bytes_used is this user's alone
    const { api } = await createPartner(target());
    const plans = await knownPlans(api);
    const username = unique('purge');
    await createUser(api, { username, plan_id: plans.small.plan_id, password: PASSWORD });
    const userId = await userIdOf(username);
    const storage = storageApi(target(), username, PASSWORD);
    const figures = async () => ({
      bytes_stored: (await getUser(api, username)).bytes_stored,
      bytes_used: (await api.get('/partner/quota').expect(200)).body.bytes_used as number,
    });

    await storage.putDevice('laptop').expect(200);
    await storage.putDevice('phone').expect(200);
    for (const [device, path, size] of [
      ['laptop', 'Documents/a.txt', 1000],
      ['laptop', 'Documents/a.txt', 500],
      ['laptop', 'b.txt', 250],
      ['phone', 'DCIM/c.jpg', 100],
    ] as const) {
      const res = await storage.putFile(device, path, Buffer.alloc(size, path));
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.size, size);
    }
    await eventually(async () => assert.deepEqual(await figures(), { bytes_stored: 1850, bytes_used: 1850 }));
    assert.equal(await ledger(userId), 1850);

    // removing the device hides it at once, and accounts' figures drop with it; the ledger follows the purge
    await storage.deleteDevice('laptop').expect(200);
    await eventually(async () => assert.deepEqual(await figures(), { bytes_stored: 100, bytes_used: 100 }));
    assert.equal(await ledger(userId), 1850);
    const purged = await runPurge();
    assert.deepEqual(
      [purged.purged_files, purged.purged_versions, purged.purged_bytes, purged.failed],
      [2, 3, 1750, []],
    );
    assert.equal(await ledger(userId), 100);
    assert.deepEqual(await figures(), { bytes_stored: 100, bytes_used: 100 });
    // the quota counts what is stored: a new upload fits where the purged bytes were
    await storage.putFile('phone', 'DCIM/d.jpg', Buffer.alloc(10, 'd')).expect(201);
    await eventually(async () => assert.deepEqual(await figures(), { bytes_stored: 110, bytes_used: 110 }));

    // deleting the user (interface A): the purger clears and purges what they had
    await api.delete(`/users/${username}`).expect(200);
    const cleared = await runPurge();
    assert.deepEqual(
      [cleared.cleared_users, cleared.removed_devices, cleared.purged_files, cleared.purged_bytes],
      [1, 1, 2, 110],
    );
    assert.equal(await ledger(userId), 0);
    await eventually(async () => assert.equal((await api.get('/partner/quota').expect(200)).body.bytes_used, 0));

    // the username again: a new user, and nothing of the old one's storage
    await createUser(api, { username, plan_id: plans.small.plan_id, password: PASSWORD });
    const newId = await userIdOf(username);
    assert.notEqual(newId, userId);
    const record = await getUser(api, username);
    assert.deepEqual([record.bytes_stored, record.num_devices, record.share_rooms], [0, 0, []]);
    const root = await target().operator.call<StorageRoot>(Subjects.storage.root, { userId: newId });
    assert.deepEqual([root.user.bytes_stored, root.devices], [0, []]);
    const laptop = await storage.putDevice('laptop').expect(200);
    assert.equal(laptop.body.lastcommit, null, 'a new device, not the old one');
  });
}
