/**
 * A user's `last_login` follows their devices' logins (the storage catalog's `device-` streams),
 * and each device record carries its last login as `lastlogin` and `last_login` (the name report
 * scripts read). Fixed clock; the storage events are appended as the storage catalog does.
 */
import type { DeviceEvent } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestAccounts, type TestAccounts, TEST_NOW } from '../testing/test-context.js';

describe('device logins', () => {
  let t: TestAccounts;
  let partnerId: string;
  let userId: string;
  before(async () => {
    t = await startTestAccounts();
    partnerId = (await t.createPartner()).partner_id;
    await t.users.create({ partnerId, username: 'dana', name: 'Dana', email: 'dana@logins.example' });
    userId = await t.userIdOf('dana');
  });
  after(async () => {
    await t.close();
  });

  const registered = (deviceId: string, name: string, at: number): DeviceEvent => ({
    type: 'DeviceRegistered',
    data: { deviceId, userId, partnerId, name, sysplatform: 'linux', client_revision: 100, at },
  });
  const user = () => t.users.get({ partnerId, user: 'dana' });
  const devices = () => t.users.devices({ partnerId, user: 'dana' });

  it('a user who never logged in has last_login null', async () => {
    assert.equal((await user()).last_login, null);
    assert.deepEqual(await devices(), []);
  });

  it('a device registration is a login: the user and the device carry its time', async () => {
    await t.storageEvents('device-dana-laptop', [registered('dana-laptop', 'laptop', TEST_NOW - 100)]);
    assert.equal((await user()).last_login, TEST_NOW - 100);
    const [laptop] = await devices();
    assert.equal(laptop.lastlogin, TEST_NOW - 100);
    assert.equal(laptop.last_login, TEST_NOW - 100);
  });

  it('a later device login moves both; an older login on another device does not move the user back', async () => {
    await t.storageEvents('device-dana-laptop', [{ type: 'DeviceLoggedIn', data: { at: TEST_NOW - 10, userId } }]);
    await t.storageEvents('device-dana-phone', [registered('dana-phone', 'phone', TEST_NOW - 50)]);
    assert.equal((await user()).last_login, TEST_NOW - 10, 'the most recent login of any device');
    const byName = Object.fromEntries((await devices()).map((d) => [d.name, d]));
    assert.deepEqual([byName.laptop.last_login, byName.laptop.lastlogin], [TEST_NOW - 10, TEST_NOW - 10]);
    assert.deepEqual([byName.phone.last_login, byName.phone.lastlogin], [TEST_NOW - 50, TEST_NOW - 50]);
    const active = (
      await t.users.list({ partnerId, search_by: { field: 'last_login', op: '>', value: TEST_NOW - 20 } })
    ).parse();
    assert.deepEqual(
      active.map((u) => u.username),
      ['dana'],
      'active-accounts reports filter on it',
    );
  });

  it('removing the device keeps the login it made: last_login is history', async () => {
    await t.storageEvents('device-dana-laptop', [
      { type: 'DeviceRemoved', data: { at: TEST_NOW - 5, userId, partnerId } },
    ]);
    assert.equal((await user()).last_login, TEST_NOW - 10);
    assert.deepEqual(
      (await devices()).map((d) => d.name),
      ['phone'],
    );
  });
});
