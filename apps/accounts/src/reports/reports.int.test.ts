/**
 * Partner-wide reports through their bus handlers, fed by the storage catalog's events as that
 * service appends them (`device-<id>`, `share-<userId>`): the brand's share list and the client
 * revisions of its devices, filtered with the fixed clock.
 */
import type { DeviceEvent, ShareEvent } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestAccounts, type TestAccounts, TEST_NOW } from '../testing/test-context.js';

const DAY = 86_400;

describe('reports', () => {
  let t: TestAccounts;
  let partnerId: string;
  let otherId: string;
  const ids: Record<string, string> = {};

  const room = (userId: string, partner: string, room_key: string, name: string, at: number): ShareEvent => ({
    type: 'ShareRoomCreated',
    data: { room_key, name, description: `${name} room`, dirs: ['/'], userId, partnerId: partner, at },
  });
  const device = (
    deviceId: string,
    userId: string,
    partner: string,
    client_revision: number,
    at: number,
  ): DeviceEvent => ({
    type: 'DeviceRegistered',
    data: { deviceId, userId, partnerId: partner, name: deviceId, sysplatform: 'linux', client_revision, at },
  });

  before(async () => {
    t = await startTestAccounts();
    partnerId = (await t.createPartner()).partner_id;
    otherId = (await t.createPartner()).partner_id;
    for (const username of ['amy', 'bea', 'cal', 'dee']) {
      await t.users.create({ partnerId, username, name: username.toUpperCase(), email: `${username}@reports.example` });
      ids[username] = await t.userIdOf(username);
    }
    await t.users.create({ partnerId: otherId, username: 'outsider', name: 'Out', email: 'out@reports.example' });
    ids.outsider = await t.userIdOf('outsider');
  });
  after(async () => {
    await t.close();
  });

  describe('brand shares', () => {
    before(async () => {
      await t.storageEvents(`share-${ids.cal}`, [
        room(ids.cal, partnerId, 'c2', 'Second', TEST_NOW - 10),
        room(ids.cal, partnerId, 'c1', 'First', TEST_NOW - 20),
        { type: 'ShareRoomDisabled', data: { room_key: 'c2', at: TEST_NOW - 5 } },
      ]);
      await t.storageEvents(`share-${ids.amy}`, [
        room(ids.amy, partnerId, 'a1', 'Trip', TEST_NOW - 30),
        { type: 'ShareRoomUpdated', data: { room_key: 'a1', name: 'Road trip', at: TEST_NOW - 1 } },
      ]);
      await t.storageEvents(`share-${ids.bea}`, [
        room(ids.bea, partnerId, 'b1', 'Gone', TEST_NOW),
        { type: 'ShareRoomDeleted', data: { room_key: 'b1', at: TEST_NOW } },
      ]);
      await t.storageEvents(`share-${ids.outsider}`, [room(ids.outsider, otherId, 'o1', 'Elsewhere', TEST_NOW)]);
    });

    it('lists the users that have rooms, by username, each with its rooms in creation order', async () => {
      const shares = await t.reports.shares({ partnerId });
      assert.deepEqual(
        shares.map((s) => s.username),
        ['amy', 'cal'],
      );
      assert.deepEqual(shares[0], {
        username: 'amy',
        name: 'AMY',
        email: 'amy@reports.example',
        shares: [
          {
            room_key: 'a1',
            name: 'Road trip',
            description: 'Trip room',
            enabled: true,
            password_required: false,
            expires: null,
            creation_time: TEST_NOW - 30,
            update_time: TEST_NOW - 1,
            last_login: null,
            downloads: 0,
            last_access: null,
          },
        ],
      });
      assert.deepEqual(
        shares[1].shares.map((r) => [r.room_key, r.enabled]),
        [
          ['c1', true],
          ['c2', false],
        ],
      );
      assert.deepEqual(
        (await t.reports.shares({ partnerId: otherId })).map((s) => s.username),
        ['outsider'],
      );
    });

    it('limit and offset count users', async () => {
      assert.deepEqual(
        (await t.reports.shares({ partnerId, limit: 1 })).map((s) => s.username),
        ['amy'],
      );
      assert.deepEqual(
        (await t.reports.shares({ partnerId, offset: 1 })).map((s) => s.username),
        ['cal'],
      );
      assert.deepEqual(await t.reports.shares({ partnerId, limit: 0 }), []);
      assert.deepEqual(await t.reports.shares({ partnerId, offset: 2 }), []);
    });
  });

  describe('client revisions', () => {
    before(async () => {
      await t.storageEvents('device-d1', [device('d1', ids.amy, partnerId, 100, TEST_NOW - 40 * DAY)]);
      await t.storageEvents('device-d2', [device('d2', ids.amy, partnerId, 100, TEST_NOW - 2 * DAY)]);
      await t.storageEvents('device-d3', [
        device('d3', ids.bea, partnerId, 90, TEST_NOW - 60 * DAY),
        { type: 'DeviceLoggedIn', data: { at: TEST_NOW - DAY, client_revision: 200 } },
      ]);
      await t.storageEvents('device-d4', [device('d4', ids.cal, partnerId, 300, TEST_NOW)]);
      await t.storageEvents('device-d5', [
        device('d5', ids.dee, partnerId, 300, TEST_NOW),
        { type: 'DeviceRemoved', data: { at: TEST_NOW } },
      ]);
      await t.storageEvents('device-o1', [device('o1', ids.outsider, otherId, 100, TEST_NOW)]);
    });

    it("counts the partner's devices per revision, ascending", async () => {
      assert.deepEqual(
        await t.reports.clientRevisions({ partnerId, min_revision: 0, max_revision: -1, max_days_since_login: -1 }),
        [
          { revision: 100, count: 2 },
          { revision: 200, count: 1 },
          { revision: 300, count: 1 },
        ],
      );
      assert.deepEqual(
        await t.reports.clientRevisions({
          partnerId: otherId,
          min_revision: 0,
          max_revision: -1,
          max_days_since_login: -1,
        }),
        [{ revision: 100, count: 1 }],
      );
    });

    it('filters by revision range and by days since the last login, on the service clock', async () => {
      assert.deepEqual(
        await t.reports.clientRevisions({ partnerId, min_revision: 150, max_revision: 250, max_days_since_login: -1 }),
        [{ revision: 200, count: 1 }],
      );
      assert.deepEqual(
        await t.reports.clientRevisions({ partnerId, min_revision: 0, max_revision: -1, max_days_since_login: 30 }),
        [
          { revision: 100, count: 1 },
          { revision: 200, count: 1 },
          { revision: 300, count: 1 },
        ],
      );
      assert.deepEqual(
        await t.reports.clientRevisions({ partnerId, min_revision: 0, max_revision: 100, max_days_since_login: 1 }),
        [],
      );
      assert.deepEqual(
        await t.reports.clientRevisions({ partnerId, min_revision: 0, max_revision: -1, max_days_since_login: 0 }),
        [{ revision: 300, count: 1 }],
      );
    });

    it("a deleted user's devices leave the report", async () => {
      await t.users.delete({ partnerId, user: 'amy' });
      assert.deepEqual(
        await t.reports.clientRevisions({ partnerId, min_revision: 0, max_revision: -1, max_days_since_login: -1 }),
        [
          { revision: 200, count: 1 },
          { revision: 300, count: 1 },
        ],
      );
      assert.deepEqual(
        (await t.reports.shares({ partnerId })).map((s) => s.username),
        ['cal'],
      );
    });
  });
});
