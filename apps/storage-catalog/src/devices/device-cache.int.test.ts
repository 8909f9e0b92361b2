/**
 * A device's state and its name's holder are remembered with their streams' revisions (every
 * download resolves them); a removal, or the name taken by another device, through another replica
 * (another connection to the same store, whose appends this one hears nothing of) is seen by the
 * very next read.
 */
import { Streams } from '@burrow/contracts';
import { SqliteEventStore } from '@burrow/event-store';
import { nameKey, releaseName, reserveName } from '@burrow/eventsourcing';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import {
  cleanUpTestStorage,
  expectError,
  startTestStorage,
  type TestStorage,
  type TestUser,
} from '../testing/test-context.js';

after(cleanUpTestStorage);

describe('devices remembered per stream revision', () => {
  let t: TestStorage;
  let other: SqliteEventStore;
  let user: TestUser;
  afterEach(async () => {
    await other?.close();
    await t?.close();
  });

  async function start(): Promise<string> {
    t = await startTestStorage();
    other = SqliteEventStore.open(join(t.dir, 'events.sqlite'), { pollIntervalMs: 20 });
    user = await t.createUser(await t.createPartner());
    await t.registerDevice(user, 'laptop');
    await t.upload(user, 'laptop', 'a.txt', 'one');
    // twice: the second read is the remembered one
    await read();
    return (await read()).incarnation!.deviceId;
  }
  const read = () => t.files.version({ userId: user.userId, device: 'laptop', path: 'a.txt' });

  it('a device removed through another replica is gone at the next read', async () => {
    const deviceId = await start();
    const revision = (await other.streamRevision(Streams.device(deviceId)))!;
    await other.append(Streams.device(deviceId), [{ type: 'DeviceRemoved', data: { at: 1 } }], revision);
    await expectError(read(), 404);
  });

  it('the name taken over by another device through another replica resolves to that device at the next read', async () => {
    const deviceId = await start();
    const reservation = Streams.deviceName(user.userId, nameKey('laptop'));
    await releaseName(other, reservation, deviceId);
    await expectError(read(), 404);
    await reserveName(other, reservation, 'another-device', 'name');
    await expectError(read(), 404);
    await releaseName(other, reservation, 'another-device');
    await reserveName(other, reservation, deviceId, 'name');
    assert.equal((await read()).size, 3, 'back to the first device');
  });
});
