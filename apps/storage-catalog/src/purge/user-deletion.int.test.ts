/**
 * Deleting a user (accounts' `UserDeleted`): the purger removes their devices and share rooms and
 * purges what the devices stored, converging whatever arrives late; a new user with the same
 * username is a new user id and starts with an empty storage.
 */
import { Streams } from '@burrow/contracts';
import { reservationHolder } from '@burrow/eventsourcing';
import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import { deviceNameReservation } from '../devices/device-names.js';
import { devicesCollection } from '../read-models/devices.projection.js';
import { filesCollection, foldersCollection, versionsCollection } from '../read-models/catalog.documents.js';
import { cleanUpTestStorage, expectError, startTestStorage, type TestStorage } from '../testing/test-context.js';
import { userStorageCollection } from './user-storage.projection.js';

after(cleanUpTestStorage);

const liveRooms = async (t: TestStorage, userId: string) => {
  const rooms = new Set<string>();
  for (const e of await t.store.readStream(Streams.share(userId))) {
    if (e.type === 'ShareRoomCreated') rooms.add(e.data.room_key as string);
    if (e.type === 'ShareRoomDeleted') rooms.delete(e.data.room_key as string);
  }
  return [...rooms];
};

describe('user deletion', () => {
  let t: TestStorage;
  afterEach(async () => {
    await t?.close();
  });

  it("clears the user's devices, files and share rooms; the same username then comes back to an empty storage", async () => {
    t = await startTestStorage();
    const partner = await t.createPartner();
    const alice = await t.createUser(partner, { username: 'alice' });
    const bob = await t.createUser(partner);
    const laptop = await t.registerDevice(alice, 'laptop');
    const phone = await t.registerDevice(alice, 'phone');
    await t.upload(alice, 'laptop', 'Documents/a.txt', 'a'.repeat(100));
    await t.upload(alice, 'laptop', 'Documents/a.txt', 'b'.repeat(100));
    await t.upload(alice, 'phone', 'DCIM/p.jpg', 'p'.repeat(300));
    await t.deletePath(alice, 'phone', 'DCIM/p.jpg');
    await t.createShareRoom(alice, 'holiday', ['phone/DCIM/']);
    await t.createShareRoom(alice, 'work', ['laptop/Documents/']);
    await t.registerDevice(bob, 'laptop');
    await t.upload(bob, 'laptop', 'b.txt', 'bob');

    await t.deleteUser(alice);
    await t.runner.catchUp();
    assert.equal((await userStorageCollection(t.docs).get(alice.userId))?.pending, true);
    const report = await t.purge();
    assert.deepEqual(
      [report.cleared_users, report.removed_devices, report.deleted_rooms, report.purged_files, report.purged_bytes],
      [1, 2, 2, 2, 500],
    );
    assert.equal(await t.usage(alice.userId), 0);
    for (const device of [laptop, phone]) {
      assert.equal((await devicesCollection(t.docs).get(device.deviceId))?.removed, true);
      assert.equal(
        await reservationHolder(t.store, deviceNameReservation(alice.userId, device.name)),
        null,
        'the device name is freed',
      );
    }
    assert.deepEqual(await filesCollection(t.docs).find({ userId: alice.userId }), []);
    assert.deepEqual(await versionsCollection(t.docs).find({ userId: alice.userId }), []);
    assert.deepEqual(await foldersCollection(t.docs).find({ userId: alice.userId }), []);
    assert.deepEqual(await liveRooms(t, alice.userId), []);
    assert.equal((await userStorageCollection(t.docs).get(alice.userId))?.pending, false);
    assert.equal(await t.usage(bob.userId), 3, "another user's storage is untouched");

    const again = await t.purge();
    assert.deepEqual(
      [again.cleared_users, again.removed_devices, again.deleted_rooms, again.purged_files],
      [0, 0, 0, 0],
      'safe to re-run',
    );

    // accounts freed the username: a new user takes it, with a new id and nothing stored
    const newAlice = await t.createUser(partner, { username: 'alice' });
    assert.notEqual(newAlice.userId, alice.userId);
    const root = await t.root(newAlice);
    assert.deepEqual([root.user.username, root.user.bytes_stored, root.devices], ['alice', 0, []]);
    const fresh = await t.registerDevice(newAlice, 'laptop');
    assert.notEqual(fresh.deviceId, laptop.deviceId);
    assert.deepEqual([fresh.bytes, fresh.files, fresh.lastcommit], [0, 0, null]);
    const listing = await t.files.list({ userId: newAlice.userId, device: 'laptop', path: '' });
    assert.deepEqual([listing.dirs, listing.files], [[], []]);
    assert.deepEqual(await liveRooms(t, newAlice.userId), []);
  });

  it('converges: a device registered (and a room created) for the user after the deletion are cleared by the next run', async () => {
    t = await startTestStorage();
    const partner = await t.createPartner();
    const user = await t.createUser(partner);
    await t.registerDevice(user, 'laptop');
    await t.deleteUser(user);
    assert.equal((await t.purge()).removed_devices, 1);

    // requests that were under way when accounts deleted the user (a commit is refused by then)
    await t.registerDevice(user, 'late');
    await expectError(t.upload(user, 'late', 'late.txt', 'late'), 404);
    await t.createShareRoom(user, 'late-room');
    await t.runner.catchUp();
    assert.equal((await userStorageCollection(t.docs).get(user.userId))?.pending, true);
    const report = await t.purge();
    assert.deepEqual([report.cleared_users, report.removed_devices, report.deleted_rooms], [1, 1, 1]);
    assert.equal(await t.usage(user.userId), 0);
    assert.equal((await userStorageCollection(t.docs).get(user.userId))?.pending, false);
  });

  it("a deleted user's devices wait for the partner's purge hold like any removal", async () => {
    t = await startTestStorage();
    const partner = await t.createPartner({ purgehold_duration: 600 });
    const user = await t.createUser(partner, { purgehold_active: true });
    await t.registerDevice(user, 'laptop');
    await t.upload(user, 'laptop', 'a.txt', 'aaa');
    await t.deleteUser(user);
    const first = await t.purge();
    assert.deepEqual(
      [first.removed_devices, first.held_partners, first.purged_files],
      [1, 1, 0],
      "the removal is a deletion; the user's own hold went with them",
    );
    t.clock.advance(600);
    assert.equal((await t.purge()).purged_files, 1);
    assert.equal(await t.usage(user.userId), 0);
  });
});
