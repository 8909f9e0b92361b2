/**
 * Reports fed by the storage catalog's events: the brand-wide share list, client revisions, a
 * user's devices and share rooms, and enabling/disabling a room from the partner interface.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createPartner, type PartnerApi, partnerApi } from '../harness/client.js';
import {
  assertBadFields,
  assertEmptyOrJson,
  assertError,
  type CreatedUser,
  createUser,
  DAY,
  eventually,
  now,
  StorageEvents,
  unique,
} from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';

export function reportsScenarios({ target }: ScenarioContext) {
  // One partner of its own, so the brand-wide reports hold exactly what these tests made.
  let p: PartnerApi;
  let credentials: { username: string; password: string };
  let at: number;
  let owners: CreatedUser[];
  let sharer: CreatedUser;
  let quiet: CreatedUser;
  const deviceIds: Record<string, string> = {};

  before(async () => {
    ({ api: p, credentials } = await createPartner(target()));
    at = now();
    // usernames sort in creation order: a-, b-, c-, d-; quiet has no shares
    const tag = unique('r');
    owners = [];
    for (const prefix of ['a', 'b', 'c'])
      owners.push(await createUser(p, { username: `${prefix}${tag}`, name: `Owner ${prefix.toUpperCase()}` }));
    quiet = await createUser(p, { username: `q${tag}` });
    sharer = owners[0];
    const storage = await StorageEvents.open(target());
    try {
      const ids = await Promise.all(owners.map((o) => storage.idsOf(o.username)));
      const quietIds = await storage.idsOf(quiet.username);
      await storage.createShare(ids[0], {
        room_key: 'room-a1',
        name: 'Holiday',
        description: 'Pictures\nfrom the trip',
        at: at - 100,
      });
      await storage.createShare(ids[0], { room_key: 'room-a2', name: 'Work', at: at - 50 });
      await storage.createShare(ids[1], { room_key: 'room-b1', name: 'Band' });
      await storage.createShare(ids[2], { room_key: 'room-c1', name: 'Cats' });
      // devices: revisions 100 (x2), 200, 300 (logged in 40 days ago), and quiet's 150 (1.5 days ago)
      deviceIds.laptop = await storage.registerDevice(ids[0], {
        name: 'laptop',
        sysplatform: 'linux',
        client_revision: 90,
        at: at - 10 * DAY,
      });
      await storage.deviceLogin(deviceIds.laptop, at - 60, 100);
      await storage.commitFile(deviceIds.laptop, 'laptop/Documents/a.txt', 4096, at - 30);
      await storage.backupCompleted(deviceIds.laptop, at - 20);
      deviceIds.phone = await storage.registerDevice(ids[0], {
        name: 'phone',
        sysplatform: 'android',
        client_revision: 200,
        at: at - 5 * DAY,
      });
      deviceIds.desk = await storage.registerDevice(ids[1], {
        name: 'desk',
        sysplatform: 'windows',
        client_revision: 100,
        at: at - 2 * DAY,
      });
      deviceIds.old = await storage.registerDevice(ids[2], {
        name: 'old',
        sysplatform: 'darwin',
        client_revision: 300,
        at: at - 40 * DAY,
      });
      deviceIds.quiet = await storage.registerDevice(quietIds, {
        name: 'q',
        client_revision: 150,
        at: at - DAY - DAY / 2,
      });
    } finally {
      await storage.close();
    }
    // the projection polls the shared file: wait until all of it is visible
    await eventually(async () => {
      const q = (await p.get('/partner/quota').expect(200)).body;
      assert.equal(q.device_count, 5);
      assert.equal(q.share_count, 4);
      assert.equal(q.bytes_used, 4096);
      const laptop = (
        (await p.get(`/users/${sharer.username}/devices`).expect(200)).body as {
          name: string;
          last_backup_complete: number | null;
        }[]
      ).find((d) => d.name === 'laptop');
      assert.equal(laptop?.last_backup_complete, at - 20);
    });
  });

  it('GET /shares/ lists the users that have shares, each with its nested rooms', async () => {
    const res = (await p.get('/shares/').expect(200)).body as {
      username: string;
      name: string;
      email: string;
      shares: { room_key: string }[];
    }[];
    assert.deepEqual(
      res.map((u) => u.username),
      owners.map((o) => o.username),
      'users without shares are left out',
    );
    assert.deepEqual(res[0], {
      username: sharer.username,
      name: sharer.user.name,
      email: sharer.user.email,
      shares: [
        {
          room_key: 'room-a1',
          name: 'Holiday',
          description: 'Pictures\nfrom the trip',
          enabled: true,
          password_required: false,
          expires: null,
          creation_time: at - 100,
          update_time: at - 100,
          last_login: null,
          downloads: 0,
          last_access: null,
        },
        {
          room_key: 'room-a2',
          name: 'Work',
          description: '',
          enabled: true,
          password_required: false,
          expires: null,
          creation_time: at - 50,
          update_time: at - 50,
          last_login: null,
          downloads: 0,
          last_access: null,
        },
      ],
    });
    assert.deepEqual(
      res[1].shares.map((s) => s.room_key),
      ['room-b1'],
    );
    assert.deepEqual(
      res[2].shares.map((s) => s.room_key),
      ['room-c1'],
    );
    assert.deepEqual((await p.get('/apis/accounts/v1/shares/').expect(200)).body, res);
  });

  it('GET /shares/ limit and offset count users, not rooms; bad values are 400', async () => {
    const names = async (q: string) =>
      ((await p.get(`/shares/?${q}`).expect(200)).body as { username: string }[]).map((u) => u.username);
    const all = owners.map((o) => o.username);
    assert.deepEqual(await names('limit=1'), all.slice(0, 1));
    assert.deepEqual(await names('limit=2&offset=1'), all.slice(1, 3));
    assert.deepEqual(await names('offset=2'), all.slice(2));
    assert.deepEqual(await names('offset=3'), []);
    const first = (await p.get('/shares/?limit=1').expect(200)).body;
    assert.equal(first[0].shares.length, 2, 'a page keeps all rooms of its users');
    for (const bad of ['limit=-1', 'limit=ten', 'offset=-3', 'offset=1.5'])
      assertBadFields(await p.get(`/shares/?${bad}`), [bad.split('=')[0]]);
  });

  it('GET /clientrevisions/ counts devices per revision; min_revision, max_revision and max_days_since_login filter', async () => {
    const get = async (q = '') => (await p.get(`/clientrevisions/${q}`).expect(200)).body;
    const all = [
      { revision: 100, count: 2 },
      { revision: 150, count: 1 },
      { revision: 200, count: 1 },
      { revision: 300, count: 1 },
    ];
    assert.deepEqual(await get(), all, 'a device login updates the revision (laptop 90 -> 100)');
    assert.deepEqual(await get('?min_revision=0&max_revision=-1&max_days_since_login=-1'), all);
    assert.deepEqual(await get('?min_revision=150'), all.slice(1));
    assert.deepEqual(await get('?min_revision=101&max_revision=200'), all.slice(1, 3));
    assert.deepEqual(await get('?max_revision=100'), all.slice(0, 1));
    assert.deepEqual(await get('?max_revision=99'), []);
    // last logins: laptop a minute ago, quiet 1.5 days, desk 2 days, phone 5 days, old 40 days
    assert.deepEqual(await get('?max_days_since_login=7'), all.slice(0, 3));
    assert.deepEqual(await get('?max_days_since_login=3'), [
      { revision: 100, count: 2 },
      { revision: 150, count: 1 },
    ]);
    assert.deepEqual(await get('?max_days_since_login=1'), [{ revision: 100, count: 1 }]);
    assert.deepEqual(await get('?max_days_since_login=100&min_revision=300'), [{ revision: 300, count: 1 }]);
    assert.deepEqual(await get('?max_days_since_login=-1'), all);
    assert.deepEqual((await p.get('/apis/accounts/v1/clientrevisions').expect(200)).body, all);
    for (const bad of [
      'min_revision=-1',
      'min_revision=x',
      'max_revision=-2',
      'max_revision=1.5',
      'max_days_since_login=-5',
      'max_days_since_login=soon',
    ]) {
      assertBadFields(await p.get(`/clientrevisions/?${bad}`), [bad.split('=')[0]]);
    }
  });

  it('GET /users/<u>/devices lists the devices with their storage facts; 404 for an unknown user', async () => {
    const devices = (await p.get(`/users/${sharer.username}/devices`).expect(200)).body as Record<string, unknown>[];
    assert.deepEqual(devices, [
      {
        name: 'laptop',
        creation_time: at - 10 * DAY,
        last_backup_complete: at - 20,
        lastlogin: at - 60,
        last_login: at - 60,
        lastcommit: at - 30,
        client_revision: 100,
        sysplatform: 'linux',
      },
      {
        name: 'phone',
        creation_time: at - 5 * DAY,
        last_backup_complete: null,
        lastlogin: at - 5 * DAY,
        last_login: at - 5 * DAY,
        lastcommit: null,
        client_revision: 200,
        sysplatform: 'android',
      },
    ]);
    assert.deepEqual((await p.get(`/users/${sharer.user.email}/devices`).expect(200)).body, devices);
    assert.deepEqual(
      (await p.get(`/users/${quiet.username}/devices`).expect(200)).body.map((d: { name: string }) => d.name),
      ['q'],
    );
    const rec = (await p.get(`/users/${sharer.username}`).expect(200)).body;
    assert.equal(rec.num_devices, 2);
    assert.equal(rec.bytes_stored, 4096);
    assertError(await p.get('/users/no-such-user/devices'), 404);
    const fresh = await createUser(p);
    assert.deepEqual((await p.get(`/users/${fresh.username}/devices`).expect(200)).body, []);
  });

  it('GET /users/<u>/shares/ and /users/<u>/shares/<room_key>; unknown room or user is 404', async () => {
    const list = (await p.get(`/users/${sharer.username}/shares/`).expect(200)).body as { room_key: string }[];
    assert.deepEqual(
      list.map((s) => s.room_key),
      ['room-a1', 'room-a2'],
    );
    assert.deepEqual((await p.get(`/users/${sharer.username}/shares`).expect(200)).body, list);
    const one = (await p.get(`/users/${sharer.username}/shares/room-a2`).expect(200)).body;
    assert.deepEqual(one, list[1]);
    assert.deepEqual(Object.keys(one).sort(), [
      'creation_time',
      'description',
      'downloads',
      'enabled',
      'expires',
      'last_access',
      'last_login',
      'name',
      'password_required',
      'room_key',
      'update_time',
    ]);
    assert.deepEqual((await p.get(`/users/${sharer.user.email}/shares/room-a1`).expect(200)).body, list[0]);
    assert.deepEqual((await p.get(`/users/${quiet.username}/shares/`).expect(200)).body, []);
    assertError(await p.get(`/users/${sharer.username}/shares/no-such-room`), 404);
    assertError(await p.get(`/users/${owners[1].username}/shares/room-a1`), 404);
    assertError(await p.get('/users/no-such-user/shares/'), 404);
    assertError(await p.get('/users/no-such-user/shares/room-a1'), 404);
  });

  it('POST /users/<u>/shares/<room_key>?action=disable|enable (body {}) shows at once in every read', async () => {
    const path = `/users/${owners[1].username}/shares/room-b1`;
    const off = await p.post(`${path}?action=disable`, {});
    assert.equal(off.status, 200, off.text);
    assertEmptyOrJson(off);
    // read right away, through every gateway
    for (const url of target().urls) {
      const other = partnerApi(target(), url, credentials);
      assert.equal((await other.get(path).expect(200)).body.enabled, false);
    }
    assert.equal(
      ((await p.get(`/users/${owners[1].username}/shares/`).expect(200)).body as { enabled: boolean }[])[0].enabled,
      false,
    );
    assert.equal((await p.get(`/users/${owners[1].username}`).expect(200)).body.share_rooms[0].enabled, false);
    const brand = (await p.get('/shares/').expect(200)).body as { username: string; shares: { enabled: boolean }[] }[];
    assert.equal(brand.find((u) => u.username === owners[1].username)?.shares[0].enabled, false);
    // disabling twice is harmless
    await p.post(`${path}?action=disable`, {}).expect(200);
    const on = await p.post(`${path}?action=enable`, {});
    assert.equal(on.status, 200, on.text);
    assert.equal((await p.get(path).expect(200)).body.enabled, true);
    assertBadFields(await p.post(`${path}?action=delete`, {}), ['action']);
    // no action: the body must set a password (issue 40); with neither, both are named
    assertBadFields(await p.post(path, {}), ['action', 'password']);
    assertError(await p.post(`/users/${owners[1].username}/shares/no-such-room?action=disable`, {}), 404);
    assertError(await p.post(`/users/no-such-user/shares/room-b1?action=disable`, {}), 404);
    assert.equal((await p.get(path).expect(200)).body.enabled, true);
  });

  it('share rooms renamed or deleted by the storage catalog show so in every report', async () => {
    const storage = await StorageEvents.open(target());
    try {
      const ids = await storage.idsOf(owners[2].username);
      await storage.updateShare(ids, { room_key: 'room-c1', name: 'Kittens', description: 'small cats', at: at + 5 });
      const sharerIds = await storage.idsOf(sharer.username);
      await storage.deleteShare(sharerIds, 'room-a2');
    } finally {
      await storage.close();
    }
    await eventually(async () => assert.equal((await p.get('/partner/quota').expect(200)).body.share_count, 3));
    const room = (await p.get(`/users/${owners[2].username}/shares/room-c1`).expect(200)).body;
    assert.equal(room.name, 'Kittens');
    assert.equal(room.description, 'small cats');
    assert.equal(room.update_time, at + 5);
    assertError(await p.get(`/users/${sharer.username}/shares/room-a2`), 404);
    assert.deepEqual(
      ((await p.get(`/users/${sharer.username}/shares/`).expect(200)).body as { room_key: string }[]).map(
        (r) => r.room_key,
      ),
      ['room-a1'],
    );
    assert.deepEqual(
      (await p.get(`/users/${sharer.username}`).expect(200)).body.share_rooms.map(
        (r: { room_key: string }) => r.room_key,
      ),
      ['room-a1'],
    );
    const brand = (await p.get('/shares/').expect(200)).body as {
      username: string;
      shares: { room_key: string; name: string }[];
    }[];
    assert.deepEqual(
      brand.map((u) => [u.username, u.shares.map((s) => s.name)]),
      [
        [owners[0].username, ['Holiday']],
        [owners[1].username, ['Band']],
        [owners[2].username, ['Kittens']],
      ],
    );
  });
}
