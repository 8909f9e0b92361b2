/**
 * The purger against the real stores, with a clock the tests move: when deleted files are purged
 * (autopurge_interval), what holds purging (a recent deletion in the enterprise, a user's
 * purgehold_active), removed devices (everything goes, whatever autopurge says), old versions
 * (versionpurge_interval), and that the usage ledger always equals the bytes of the stored
 * versions.
 */
import { type FileEvent, fileIdOf, Streams } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import { devicesCollection } from '../read-models/devices.projection.js';
import { filesCollection, versionsCollection } from '../read-models/catalog.documents.js';
import { cleanUpTestStorage, DAY, startTestStorage, type TestStorage, type TestUser } from '../testing/test-context.js';

after(cleanUpTestStorage);

/** Bytes of the user's stored versions, from the versions read model. */
async function storedBytes(t: TestStorage, userId: string): Promise<number> {
  await t.runner.catchUp();
  return (await versionsCollection(t.docs).find({ userId })).reduce((sum, v) => sum + v.size, 0);
}

/** `bytes_stored` as accounts counts it: the bytes of the user's devices not removed (a removed device's leave with it). */
async function accountsBytesStored(t: TestStorage, userId: string): Promise<number> {
  await t.runner.catchUp();
  return (await devicesCollection(t.docs).find({ userId, removed: false })).reduce((sum, d) => sum + d.bytes, 0);
}

/**
 * The usage ledger (the quota's figure, what the storage root shows) is the sum of the sizes of the
 * user's stored versions, each version once, as the devices read model also counts them; returns it.
 */
async function assertUsage(t: TestStorage, user: TestUser, expected: number, when: string): Promise<void> {
  const versions = await storedBytes(t, user.userId);
  const devices = (await devicesCollection(t.docs).find({ userId: user.userId })).reduce((sum, d) => sum + d.bytes, 0);
  assert.deepEqual(
    { ledger: await t.usage(user.userId), versions, devices },
    { ledger: expected, versions: expected, devices: expected },
    `${when}: ledger, versions and devices agree`,
  );
}

const versionNumbers = async (t: TestStorage, deviceId: string, path: string) =>
  (await versionsCollection(t.docs).find({ fileId: fileIdOf(deviceId, path) }, { sort: { version: 1 } })).map(
    (v) => v.version,
  );

const purgedEvents = async (t: TestStorage, deviceId: string, path: string) =>
  (await t.store.readStream(Streams.file(fileIdOf(deviceId, path))))
    .filter((e) => e.type === 'FileVersionsPurged')
    .map((e) => e.data as FileEvent['data']);

describe('purger', () => {
  let t: TestStorage;
  afterEach(async () => {
    await t?.close();
  });

  it('autopurge: a deleted file is kept at autopurge_interval - 1 day, purged at autopurge_interval; its bytes leave the usage', async () => {
    t = await startTestStorage();
    const partner = await t.createPartner({ autopurge_interval: 30 });
    const user = await t.createUser(partner);
    const laptop = await t.registerDevice(user, 'laptop');
    await t.upload(user, 'laptop', 'Documents/report.txt', 'x'.repeat(100));
    await t.upload(user, 'laptop', 'Documents/report.txt', 'y'.repeat(50));
    await t.upload(user, 'laptop', 'Documents/keep.txt', 'k'.repeat(10));
    await assertUsage(t, user, 160, 'after three uploads');

    await t.deletePath(user, 'laptop', 'Documents/report.txt');
    await assertUsage(t, user, 160, 'deleting hides, it does not purge');
    t.clock.advance(29 * DAY);
    const early = await t.purge();
    assert.equal(early.purged_files, 0);
    assert.deepEqual(await versionNumbers(t, laptop.deviceId, 'Documents/report.txt'), [0, 1]);

    t.clock.advance(DAY);
    const due = await t.purge();
    assert.deepEqual([due.purged_files, due.purged_versions, due.purged_bytes, due.failed], [1, 2, 150, []]);
    assert.deepEqual(await versionNumbers(t, laptop.deviceId, 'Documents/report.txt'), []);
    assert.equal(await filesCollection(t.docs).get(fileIdOf(laptop.deviceId, 'Documents/report.txt')), null);
    const [purged] = await purgedEvents(t, laptop.deviceId, 'Documents/report.txt');
    assert.equal(
      (purged as { blobs: string[] }).blobs.length,
      2,
      'the purge names the blobs it released (for the blob reaper)',
    );
    await assertUsage(t, user, 10, 'after the purge');
    assert.equal((await t.root(user)).user.bytes_stored, 10);

    const again = await t.purge();
    assert.equal(again.purged_files, 0, 'a second run finds nothing more');
  });

  it('autopurge 0 or null never purges deleted files; turning it on purges those already due', async () => {
    t = await startTestStorage();
    const zero = await t.createPartner({ autopurge_interval: 0 });
    const unset = await t.createPartner({ autopurge_interval: null });
    const defaults = await t.createPartner();
    const users = [await t.createUser(zero), await t.createUser(unset), await t.createUser(defaults)];
    for (const user of users) {
      await t.registerDevice(user, 'laptop');
      await t.upload(user, 'laptop', 'old.txt', 'o'.repeat(20));
      await t.deletePath(user, 'laptop', 'old.txt');
    }
    t.clock.advance(1000 * DAY);
    assert.equal((await t.purge()).purged_files, 0);
    for (const user of users) assert.equal(await t.usage(user.userId), 20);

    await t.changeSettings(zero, { autopurge_interval: 7 });
    const report = await t.purge();
    assert.equal(report.purged_files, 1);
    assert.deepEqual(await Promise.all(users.map((u) => t.usage(u.userId))), [0, 20, 20]);
  });

  it('a file deleted and then uploaded again is live: autopurge leaves it, and a folder deletion follows the same rule', async () => {
    t = await startTestStorage();
    const partner = await t.createPartner({ autopurge_interval: 1 });
    const user = await t.createUser(partner);
    const laptop = await t.registerDevice(user, 'laptop');
    await t.upload(user, 'laptop', 'back.txt', 'b');
    await t.deletePath(user, 'laptop', 'back.txt');
    await t.upload(user, 'laptop', 'back.txt', 'bb');
    await t.upload(user, 'laptop', 'Photos/2025/a.jpg', 'a'.repeat(7));
    await t.upload(user, 'laptop', 'Photos/b.jpg', 'b'.repeat(3));
    await t.deletePath(user, 'laptop', 'Photos/');
    t.clock.advance(DAY);
    const report = await t.purge();
    assert.equal(report.purged_files, 2, 'the two files of the deleted folder');
    assert.deepEqual(await versionNumbers(t, laptop.deviceId, 'back.txt'), [0, 1]);
    await assertUsage(t, user, 3, 'only back.txt is left');
  });

  it('purge hold: nothing of a partner is purged within purgehold_duration of any deletion in the enterprise; other partners are not held', async () => {
    t = await startTestStorage();
    const held = await t.createPartner({ autopurge_interval: 1, purgehold_duration: 3600 });
    const other = await t.createPartner({ autopurge_interval: 1, purgehold_duration: 3600 });
    const [alice, bob, carol] = [await t.createUser(held), await t.createUser(held), await t.createUser(other)];
    for (const user of [alice, bob, carol]) {
      await t.registerDevice(user, 'laptop');
      await t.upload(user, 'laptop', 'a.txt', 'aaaa');
      await t.upload(user, 'laptop', 'b.txt', 'bb');
    }
    await t.deletePath(alice, 'laptop', 'a.txt');
    await t.deletePath(carol, 'laptop', 'a.txt');
    t.clock.advance(DAY);
    // another user of the same partner deletes something: the whole enterprise is held
    await t.deletePath(bob, 'laptop', 'b.txt');
    t.clock.advance(3599);
    const during = await t.purge();
    assert.equal(during.held_partners, 1);
    assert.equal(during.purged_files, 1, "carol's partner is not held");
    assert.deepEqual([await t.usage(alice.userId), await t.usage(carol.userId)], [6, 2]);

    t.clock.advance(1);
    const afterHold = await t.purge();
    assert.equal(afterHold.held_partners, 0);
    assert.equal(afterHold.purged_files, 1, "alice's file; bob's was deleted only an hour ago");
    assert.deepEqual([await t.usage(alice.userId), await t.usage(bob.userId)], [2, 6]);

    // a removed device counts as a deletion too, and its purge waits for the hold like any other
    await t.removeDevice(bob, 'laptop');
    assert.equal((await t.purge()).held_partners, 1);
    assert.equal(await t.usage(bob.userId), 6);
    t.clock.advance(3600);
    assert.equal((await t.purge()).purged_files, 2);
    assert.equal(await t.usage(bob.userId), 0);
  });

  it('purgehold_active: nothing of the user is purged (deleted files, removed devices, old versions) until the hold is lifted', async () => {
    // pages of one: held candidates are passed over by the cursor, not read again and again
    t = await startTestStorage({ purgePageSize: 1 });
    const partner = await t.createPartner({ autopurge_interval: 1, versionpurge_interval: 1 });
    const held = await t.createUser(partner, { purgehold_active: true });
    const free = await t.createUser(partner);
    for (const user of [held, free]) {
      await t.registerDevice(user, 'laptop');
      await t.registerDevice(user, 'phone');
      await t.upload(user, 'laptop', 'gone.txt', 'g'.repeat(4));
      await t.upload(user, 'laptop', 'doc.txt', 'v0');
      await t.upload(user, 'laptop', 'doc.txt', 'v1!');
      await t.upload(user, 'phone', 'photo.jpg', 'p'.repeat(10));
      await t.deletePath(user, 'laptop', 'gone.txt');
      await t.removeDevice(user, 'phone');
    }
    t.clock.advance(2 * DAY);
    const report = await t.purge();
    assert.deepEqual(
      [report.held_devices, report.held_files],
      [1, 2],
      "the held user's phone, deleted file and old version",
    );
    assert.equal(await t.usage(held.userId), 4 + 2 + 3 + 10);
    assert.equal(await t.usage(free.userId), 3);

    await t.setPurgeHold(held, false);
    assert.equal((await t.purge()).purged_files, 3);
    assert.equal(await t.usage(held.userId), 3);
  });

  it('removing a device purges every version of every file on it, whatever autopurge says; usage drops to exactly what the other devices store', async () => {
    t = await startTestStorage({ purgePageSize: 2 });
    const partner = await t.createPartner();
    const user = await t.createUser(partner);
    const laptop = await t.registerDevice(user, 'laptop');
    await t.registerDevice(user, 'desktop');
    let laptopBytes = 0;
    for (let i = 0; i < 5; i++) {
      for (let v = 0; v <= i % 3; v++)
        laptopBytes += (await t.upload(user, 'laptop', `Documents/f${i}.txt`, `${i}`.repeat(10 + v))).size;
    }
    await t.deletePath(user, 'laptop', 'Documents/f1.txt');
    await t.upload(user, 'desktop', 'notes.txt', 'n'.repeat(42));
    await t.upload(user, 'desktop', 'notes.txt', 'n'.repeat(43));
    await assertUsage(t, user, laptopBytes + 85, 'before');

    await t.removeDevice(user, 'laptop');
    assert.equal((await t.root(user)).devices.map((d) => d.name).join(), 'desktop', 'hidden at once');
    assert.equal(await accountsBytesStored(t, user.userId), 85, "accounts' bytes_stored drops with the removal");
    assert.equal(await t.usage(user.userId), laptopBytes + 85, 'the ledger drops when the versions are purged');

    const report = await t.purge();
    assert.deepEqual([report.purged_files, report.purged_bytes, report.failed], [5, laptopBytes, []]);
    await assertUsage(t, user, 85, 'after the purge');
    assert.equal(await accountsBytesStored(t, user.userId), 85, 'the two figures agree again');
    assert.deepEqual(await filesCollection(t.docs).find({ deviceId: laptop.deviceId }), []);
    const device = await devicesCollection(t.docs).get(laptop.deviceId);
    assert.deepEqual([device?.removed, device?.versions, device?.bytes], [true, 0, 0]);
    assert.equal((await t.purge()).purged_files, 0);
  });

  it('usage equals the sum of the stored versions after adds, deletes, device removals and purges', async () => {
    // pages of one candidate: every phase pages through its cursor
    t = await startTestStorage({ purgePageSize: 1 });
    const partner = await t.createPartner({ autopurge_interval: 2, versionpurge_interval: 3 });
    const user = await t.createUser(partner);
    await t.registerDevice(user, 'laptop');
    await t.registerDevice(user, 'phone');
    let expected = 0;
    const upload = async (device: string, path: string, size: number) => {
      expected += (await t.upload(user, device, path, Buffer.alloc(size, path.length + size))).size;
    };
    await upload('laptop', 'a.txt', 100);
    await upload('laptop', 'a.txt', 110);
    await upload('laptop', 'a.txt', 100); // the same content as version 0: a version of its own, billed again
    await upload('laptop', 'b/c.txt', 0);
    await upload('phone', 'p.jpg', 300);
    await upload('phone', 'q.jpg', 300);
    await assertUsage(t, user, expected, 'after uploads');
    assert.equal(expected, 910);

    await t.deletePath(user, 'laptop', 'b/');
    await t.deletePath(user, 'phone', 'q.jpg');
    await assertUsage(t, user, 910, 'after deletes (nothing purged)');
    t.clock.advance(2 * DAY);
    await t.purge();
    await assertUsage(t, user, 610, 'q.jpg and the empty c.txt purged');

    t.clock.advance(DAY);
    await t.purge();
    await assertUsage(t, user, 610 - 100 - 110, 'the old versions of a.txt purged, the latest kept');

    await t.removeDevice(user, 'phone');
    assert.equal(await accountsBytesStored(t, user.userId), 100);
    await t.purge();
    await assertUsage(t, user, 100, 'after the removed device is purged');
    assert.equal(await accountsBytesStored(t, user.userId), 100, "accounts' figure and the ledger agree");
    assert.equal((await t.root(user)).user.bytes_stored, 100);
  });

  it('versionpurge_interval: an old version goes that many days after a newer one replaced it; the latest version stays; 0 or null keeps them', async () => {
    t = await startTestStorage({ purgePageSize: 1 });
    const partner = await t.createPartner({ versionpurge_interval: 7 });
    const keeper = await t.createPartner({ versionpurge_interval: 0 });
    const user = await t.createUser(partner);
    const other = await t.createUser(keeper);
    const laptop = await t.registerDevice(user, 'laptop');
    await t.registerDevice(other, 'laptop');
    const start = t.clock.now();
    for (let v = 0; v < 3; v++) {
      t.clock.set(start + v * DAY);
      await t.upload(user, 'laptop', 'doc.txt', `v${v}`);
      await t.upload(other, 'laptop', 'doc.txt', `v${v}`);
    }
    await t.upload(user, 'laptop', 'gone.txt', 'g0');
    await t.upload(user, 'laptop', 'gone.txt', 'g1');
    await t.deletePath(user, 'laptop', 'gone.txt');

    t.clock.set(start + 8 * DAY - 1);
    assert.equal((await t.purge()).purged_versions, 0);
    t.clock.set(start + 8 * DAY);
    assert.equal((await t.purge()).purged_versions, 1);
    assert.deepEqual(await versionNumbers(t, laptop.deviceId, 'doc.txt'), [1, 2]);
    t.clock.set(start + 1000 * DAY);
    assert.equal((await t.purge()).purged_versions, 1);
    assert.deepEqual(
      await versionNumbers(t, laptop.deviceId, 'doc.txt'),
      [2],
      'the latest version is never version-purged',
    );
    assert.deepEqual(
      await versionNumbers(t, laptop.deviceId, 'gone.txt'),
      [0, 1],
      "a deleted file's versions are autopurge's to purge",
    );
    assert.equal(await t.usage(other.userId), 6, '0 keeps every version');
    await assertUsage(t, user, 2 + 4, 'the latest doc.txt and the deleted gone.txt');
  });
});
