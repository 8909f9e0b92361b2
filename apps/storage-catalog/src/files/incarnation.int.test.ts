/**
 * The life of a file, as links and session extensions name it (`FileIncarnation`): a read bound
 * to one (`expect`) is served while the device and the file are that life, and is a 410 once the
 * file was deleted (alone or with its folder) or its device removed, even after an upload to the
 * same path or a device registered again under the same name.
 */
import type { FileIncarnation } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import {
  cleanUpTestStorage,
  expectError,
  startTestStorage,
  type TestStorage,
  type TestUser,
} from '../testing/test-context.js';

after(cleanUpTestStorage);

describe('file incarnations (what links and session extensions name)', () => {
  let t: TestStorage;
  let user: TestUser;
  afterEach(async () => {
    await t?.close();
  });

  const read = (path: string, expect?: FileIncarnation, version?: number) =>
    t.files.version({ userId: user.userId, device: 'laptop', path, version, expect });
  const versions = (path: string, expect?: FileIncarnation) =>
    t.files.versions({ userId: user.userId, device: 'laptop', path, expect });

  async function start(): Promise<void> {
    t = await startTestStorage();
    user = await t.createUser(await t.createPartner());
    await t.registerDevice(user, 'laptop');
  }

  it('a new version keeps the life; a deletion and a new upload start another (410 for the old, the new one served)', async () => {
    await start();
    await t.upload(user, 'laptop', 'a.txt', 'one');
    const first = (await read('a.txt')).incarnation!;
    assert.equal(first.since, 0);
    await t.upload(user, 'laptop', 'a.txt', 'two');
    assert.deepEqual((await read('a.txt')).incarnation, first, 'a new version is the same life');
    assert.equal((await read('a.txt', first, 0)).size, 3);
    assert.equal((await versions('a.txt', first)).length, 2);

    await t.deletePath(user, 'laptop', 'a.txt');
    await expectError(read('a.txt', first), 410);
    await expectError(read('a.txt'), 404);
    await t.upload(user, 'laptop', 'a.txt', 'three');
    await expectError(read('a.txt', first), 410);
    await expectError(read('a.txt', first, 0), 410);
    await expectError(versions('a.txt', first), 410);
    const second = (await read('a.txt')).incarnation!;
    assert.deepEqual(second, { deviceId: first.deviceId, since: 2 });
    assert.equal((await read('a.txt', second)).version, 2);
  });

  it('a file deleted with its folder, then uploaded again, is another life', async () => {
    await start();
    await t.upload(user, 'laptop', 'docs/b.txt', 'b');
    const life = (await read('docs/b.txt')).incarnation!;
    await t.deletePath(user, 'laptop', 'docs/');
    await t.upload(user, 'laptop', 'docs/b.txt', 'b again');
    await expectError(read('docs/b.txt', life), 410);
    assert.equal((await read('docs/b.txt')).incarnation!.since, 1);
  });

  it('a device removed and registered again under its name is another device', async () => {
    await start();
    await t.upload(user, 'laptop', 'c.txt', 'c');
    const life = (await read('c.txt')).incarnation!;
    await t.removeDevice(user, 'laptop');
    await expectError(read('c.txt', life), 410);
    await t.registerDevice(user, 'laptop');
    await t.upload(user, 'laptop', 'c.txt', 'c');
    await expectError(read('c.txt', life), 410);
    const now = (await read('c.txt')).incarnation!;
    assert.notEqual(now.deviceId, life.deviceId);
    assert.equal(now.since, 0);
  });
});
