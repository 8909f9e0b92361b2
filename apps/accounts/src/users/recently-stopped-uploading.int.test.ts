/**
 * `search_by=recently_stopped_uploading=<A>|<B>`: users whose most recent backup (a completed
 * backup or a committed file, on any device they still have) is within the last A seconds but not
 * within the last B: `now - A <= latest < now - B`. The edges with an injected clock, devices
 * coming and going, paging, ordering, counting and tenant isolation.
 */
import type { DeviceEvent, FileEvent, ListUsersRequest } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestAccounts, type TestAccounts, TEST_NOW } from '../testing/test-context.js';

const DAY = 86_400;
const A = 90 * DAY;
const B = 3 * DAY;
const search = { field: 'recently_stopped_uploading', within: A, notWithin: B } as const;

describe('search_by recently_stopped_uploading', () => {
  let t: TestAccounts;
  let now = TEST_NOW;
  let partnerId: string;
  let otherId: string;
  const ids: Record<string, string> = {};
  let devices = 0;

  before(async () => {
    t = await startTestAccounts({ now: () => now });
    partnerId = (await t.createPartner()).partner_id;
    otherId = (await t.createPartner()).partner_id;
    for (const username of ['atedge', 'pastedge', 'atrecent', 'justold', 'never', 'twodev', 'commits', 'removed']) {
      await t.users.create({ partnerId, username, name: username, email: `${username}@rsu.example`, bonus_bytes: 0 });
      ids[username] = await t.userIdOf(username);
    }
    await t.users.create({ partnerId: otherId, username: 'outsider', name: 'outsider', email: 'outsider@rsu.example' });
    ids.outsider = await t.userIdOf('outsider');
  });
  after(async () => {
    await t.close();
  });

  /** A device of `user`, registered long ago, and its id. */
  async function device(user: string, name = 'pc'): Promise<string> {
    const deviceId = `rsu-${user}-${name}-${++devices}`;
    const registered: DeviceEvent = {
      type: 'DeviceRegistered',
      data: {
        deviceId,
        userId: ids[user],
        partnerId: user === 'outsider' ? otherId : partnerId,
        name,
        sysplatform: 'linux',
        client_revision: 1,
        at: TEST_NOW - 400 * DAY,
      },
    };
    await t.storageEvents(`device-${deviceId}`, [registered]);
    return deviceId;
  }
  const backupCompleted = (deviceId: string, at: number) =>
    t.storageEvents(`device-${deviceId}`, [{ type: 'BackupCompleted', data: { at } }]);
  function commit(deviceId: string, user: string, at: number): Promise<void> {
    const committed: FileEvent = {
      type: 'FileVersionCommitted',
      data: {
        fileId: `${deviceId}.f${at}`,
        deviceId,
        userId: ids[user],
        partnerId,
        path: `f${at}.txt`,
        version: 0,
        size: 10,
        blob: 'b'.repeat(64),
        crc32: 0,
        mtime: at,
        ctime: at,
        at,
      },
    };
    return t.storageEvents(`file-${deviceId}.f${at}`, [committed]);
  }
  const names = async (extra: Partial<ListUsersRequest> = {}) =>
    (await t.users.list({ partnerId, search_by: search, ...extra })).parse().map((u) => u.username);

  it('the window includes its older edge (A seconds ago) and excludes its newer one (B seconds ago)', async () => {
    await backupCompleted(await device('atedge'), TEST_NOW - A);
    await backupCompleted(await device('pastedge'), TEST_NOW - A - 1);
    await backupCompleted(await device('atrecent'), TEST_NOW - B);
    await backupCompleted(await device('justold'), TEST_NOW - B - 1);
    await device('never');
    assert.deepEqual(await names(), ['atedge', 'justold']);
  });

  it('the most recent backup of any device counts: a user still backing up elsewhere has not stopped', async () => {
    const old = await device('twodev', 'old');
    const current = await device('twodev', 'current');
    await backupCompleted(old, TEST_NOW - 30 * DAY);
    assert.ok((await names()).includes('twodev'));
    await backupCompleted(current, TEST_NOW - 60);
    assert.ok(!(await names()).includes('twodev'));
    // the current device goes: its backups leave with it, and the old one's time counts again
    await t.storageEvents(`device-${current}`, [
      { type: 'DeviceRemoved', data: { at: TEST_NOW, userId: ids.twodev, partnerId } },
    ]);
    assert.ok((await names()).includes('twodev'));
  });

  it('a committed file is a backup too (clients that never report completion)', async () => {
    const pc = await device('commits');
    await commit(pc, 'commits', TEST_NOW - 10 * DAY);
    assert.ok((await names()).includes('commits'));
    await commit(pc, 'commits', TEST_NOW - 100);
    assert.ok(!(await names()).includes('commits'));
  });

  it('a removed device takes its backups: a user with no device left never matches', async () => {
    const pc = await device('removed');
    await backupCompleted(pc, TEST_NOW - 10 * DAY);
    assert.ok((await names()).includes('removed'));
    await t.storageEvents(`device-${pc}`, [
      { type: 'DeviceRemoved', data: { at: TEST_NOW, userId: ids.removed, partnerId } },
    ]);
    assert.ok(!(await names()).includes('removed'));
  });

  it('the window moves with the clock', async () => {
    assert.deepEqual(await names(), ['atedge', 'justold', 'twodev']);
    now = TEST_NOW + 1;
    try {
      // atedge is now A+1 old (out); atrecent is now B+1 old (in)
      assert.deepEqual(await names(), ['atrecent', 'justold', 'twodev']);
    } finally {
      now = TEST_NOW;
    }
  });

  it('combines with limit, offset, order_by, other filters and the count', async () => {
    assert.deepEqual(await names({ limit: 2 }), ['atedge', 'justold']);
    assert.deepEqual(await names({ limit: 2, offset: 2 }), ['twodev']);
    assert.deepEqual(await names({ order_by: '-username' }), ['twodev', 'justold', 'atedge']);
    assert.deepEqual(await names({ search: 'edge' }), ['atedge']);
    assert.deepEqual(await t.users.count({ partnerId, search_by: search }), { user_count: 3 });
    // an empty window (A <= B) matches nobody
    assert.deepEqual(await names({ search_by: { ...search, within: B, notWithin: B } }), []);
    assert.deepEqual(await names({ search_by: { ...search, within: B, notWithin: A } }), []);
  });

  it("another partner's users never appear", async () => {
    await backupCompleted(await device('outsider'), TEST_NOW - 10 * DAY);
    assert.ok(!(await names()).includes('outsider'));
    assert.deepEqual(
      (await t.users.list({ partnerId: otherId, search_by: search })).parse().map((u) => u.username),
      ['outsider'],
    );
  });
});
