/**
 * Share rooms of the logged-in user (DESIGN §5, the spec's Share list object, CLIENT-FACTS' share
 * list fields): a user creates rooms over folders they backed up, lists them with their friendly
 * URLs and counts, edits and deletes them; the partner's interface A sees every change at once
 * (the user's rooms, enabling and disabling, the brand-wide share list), through every gateway.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createPartner, type PartnerApi, partnerApi } from '../harness/client.js';
import { b32, type StorageApi, storageApi } from '../harness/storage-client.js';
import { assertBadFields, assertConflict, assertError, createUser, eventually, unique } from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';
import { createShareRoom, roomAddress, type ShareRoomReply, userWithShareRoom } from './share-fixtures.js';

const PASSWORD = 'user-password-1';

interface ShareList {
  share_id: string;
  share_id_b32: string;
  share_rooms: ShareRoomReply[];
}

export function shareRoomsScenarios({ target }: ScenarioContext) {
  let partner: { api: PartnerApi; credentials: { username: string; password: string } };
  let alice: string;
  let storage: StorageApi;

  const list = async (s = storage) => (await s.listShares().expect(200)).body as ShareList;
  const brandRooms = async (username: string) =>
    (
      (await partner.api.get('/shares/').expect(200)).body as {
        username: string;
        shares: { room_key: string; name: string; enabled: boolean }[];
      }[]
    ).find((u) => u.username === username)?.shares ?? [];

  before(async () => {
    // a partner of its own: its brand-wide share list holds only this scenario's rooms
    partner = await createPartner(target());
    alice = unique('alice');
    await createUser(partner.api, { username: alice, password: PASSWORD });
    storage = storageApi(target(), alice, PASSWORD);
    await storage.putDevice('Laptop').expect(200);
    await storage.putDevice('phone').expect(200);
    for (const [device, path, content] of [
      ['Laptop', 'Documents/report.pdf', 'report'],
      ['Laptop', 'Documents/Work/plan.txt', 'plan'],
      ['Laptop', 'Documents/Work/Old/notes.txt', 'notes'],
      ['phone', 'DCIM/Camera/a.jpg', 'jpeg'],
      ['phone', 'DCIM/Camera/b.jpg', 'jpeg'],
    ] as const) {
      await storage.putFile(device, path, content).expect(201);
    }
  });

  it('POST .../shares creates a room under a chosen or a generated key (201), and GET .../shares lists them with URLs and counts', async () => {
    assert.deepEqual(await list(), { share_id: alice, share_id_b32: b32(alice), share_rooms: [] });
    const work = await createShareRoom(storage, {
      room_key: 'work',
      room_name: 'Work',
      room_description: 'for the team',
      dirs: ['laptop/Documents/Work', 'Laptop/Documents/Work/'],
    });
    assert.deepEqual(
      { ...work, creation_time: 0, update_time: 0 },
      {
        url: `/browse/share/${b32(alice)}/work`,
        room_key: 'work',
        room_name: 'Work',
        room_description: 'for the team',
        dirs: ['Laptop/Documents/Work/'],
        enabled: true,
        number_of_files: 2,
        number_of_folders: 2,
        password_required: false,
        expires: null,
        downloads: 0,
        last_access: null,
        creation_time: 0,
        update_time: 0,
      },
    );
    assert.ok(Number.isInteger(work.creation_time) && work.creation_time === work.update_time);
    // a generated key; the body as JSON in a form content type (CLIENT-FACTS: parse JSON whatever the type)
    const res = await storage.createShare(
      { room_name: 'Photos', dirs: ['phone/DCIM/', 'Laptop/'] },
      'application/x-www-form-urlencoded',
    );
    assert.equal(res.status, 201, res.text);
    const photos = res.body as ShareRoomReply;
    assert.match(photos.room_key, /^[A-Za-z0-9_-]{16}$/);
    assert.equal(
      photos.url,
      `/browse/share/${b32(alice)}/${photos.room_key}`,
      "the original's room link: /browse/share/<b32 share id>/<key>",
    );
    assert.deepEqual([photos.room_description, photos.number_of_files, photos.number_of_folders], ['', 5, 6]);

    // read right away, through every gateway
    for (const url of target().urls) {
      const shares = (await storageApi(target(), alice, PASSWORD, url).listShares().expect(200)).body as ShareList;
      assert.deepEqual(shares, { share_id: alice, share_id_b32: b32(alice), share_rooms: [work, photos] });
    }
  });

  it('a key in use is a 409 naming room_key; bad input is a 400 naming the field, and nothing is created', async () => {
    assertConflict(await storage.createShare({ room_key: 'work', room_name: 'Again', dirs: ['phone/'] }), 'room_key');
    const before = await list();
    assertBadFields(await storage.createShare({ room_key: 'bad', room_name: 'Bad', dirs: ['tablet/'] }), ['dirs']);
    assertBadFields(await storage.createShare({ room_key: 'bad', room_name: 'Bad', dirs: ['Laptop/Nope/'] }), ['dirs']);
    assertBadFields(await storage.createShare({ room_key: 'bad', room_name: 'Bad', dirs: ['Laptop/../phone/'] }), [
      'dirs',
    ]);
    assertBadFields(await storage.createShare({ room_key: 'bad', room_name: 'Bad', dirs: [] }), ['dirs']);
    assertBadFields(await storage.createShare({ room_key: 'bad', room_name: '', dirs: ['phone/'] }), ['room_name']);
    assertBadFields(await storage.createShare({ room_key: 'not/a/key', room_name: 'Bad', dirs: ['phone/'] }), [
      'room_key',
    ]);
    assertError(await storage.createShare('just a string'), 400);
    assertError(await storage.createShare(undefined), 400);
    assertBadFields(await storage.deleteShare('not a key'), ['room_key']);
    assertBadFields(await storage.updateShare('not a key', { room_name: 'x' }), ['room_key']);
    assert.deepEqual(await list(), before);
  });

  it('POST .../shares?room_key=K changes the fields given (200); DELETE .../shares?room_key=K deletes the room (200)', async () => {
    const res = await storage.updateShare('work', { room_name: 'Work 2026', room_key: 'ignored' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      [res.body.room_key, res.body.room_name, res.body.room_description, res.body.dirs],
      ['work', 'Work 2026', 'for the team', ['Laptop/Documents/Work/']],
    );
    const moved = (await storage.updateShare('work', { dirs: ['Laptop/Documents/'], room_description: '' }).expect(200))
      .body as ShareRoomReply;
    assert.deepEqual(
      [moved.room_name, moved.room_description, moved.number_of_files, moved.number_of_folders],
      ['Work 2026', '', 3, 3],
    );
    assertBadFields(await storage.updateShare('work', { dirs: ['Laptop/Nope/'] }), ['dirs']);
    assertError(await storage.updateShare('no-such-room', { room_name: 'x' }), 404);
    assert.equal((await list()).share_rooms.find((r) => r.room_key === 'work')?.room_name, 'Work 2026');

    await createShareRoom(storage, { room_key: 'temp', dirs: ['phone/'] });
    const del = await storage.deleteShare('temp');
    assert.equal(del.status, 200, del.text);
    assert.equal(del.text, '');
    assert.deepEqual((await list()).share_rooms.map((r) => r.room_key).includes('temp'), false);
    assertError(await storage.deleteShare('temp'), 404);
    // the key is free again
    await createShareRoom(storage, { room_key: 'temp', dirs: ['phone/'] });
    await storage.deleteShare('temp').expect(200);
  });

  it("another user's rooms cannot be read, changed or deleted", async () => {
    const { api } = partner;
    const bob = unique('bob');
    await createUser(api, { username: bob, password: PASSWORD });
    const bobs = storageApi(target(), bob, PASSWORD);
    assert.deepEqual((await list(bobs)).share_rooms, []);
    assertError(await bobs.updateShare('work', { room_name: 'mine now' }), 404);
    assertError(await bobs.deleteShare('work'), 404);
    // alice's share list with bob's credentials: not revealed
    const raw = partnerApi(target()).raw;
    assertError(await raw.get(`/storage/${b32(alice)}/shares`).auth(bob, PASSWORD), 404);
    assertError(await raw.delete(`/storage/${b32(alice)}/shares?room_key=work`).auth(bob, PASSWORD), 404);
    const anonymous = await raw.get(`/storage/${b32(alice)}/shares`);
    assertError(anonymous, 401);
    assert.match(anonymous.headers['www-authenticate'] ?? '', /^Basic /);
    // bob's room under the same key is his own
    await bobs.putDevice('desktop').expect(200);
    await bobs.putFile('desktop', 'x.txt', 'x').expect(201);
    await createShareRoom(bobs, { room_key: 'work', dirs: ['desktop/'] });
    assert.equal((await list()).share_rooms.find((r) => r.room_key === 'work')?.room_name, 'Work 2026');
  });

  it("the partner's interface A sees the rooms at once: the user's rooms, enable and disable, the brand-wide share list", async () => {
    const { api } = partner;
    // (interface A orders rooms created in the same second by key, the owner's list by creation)
    const rooms = (await list()).share_rooms.map((r) => [r.room_key, r.room_name]).sort();
    assert.deepEqual(
      ((await api.get(`/users/${alice}/shares/`).expect(200)).body as { room_key: string; name: string }[])
        .map((r) => [r.room_key, r.name])
        .sort(),
      rooms,
    );
    assert.deepEqual((await brandRooms(alice)).map((r) => [r.room_key, r.name]).sort(), rooms);

    await api.post(`/users/${alice}/shares/work?action=disable`, {}).expect(200);
    for (const url of target().urls) {
      const rooms = ((await storageApi(target(), alice, PASSWORD, url).listShares().expect(200)).body as ShareList)
        .share_rooms;
      assert.equal(rooms.find((r) => r.room_key === 'work')?.enabled, false);
    }
    assert.equal((await brandRooms(alice)).find((r) => r.room_key === 'work')?.enabled, false);
    await api.post(`/users/${alice}/shares/work?action=enable`, {}).expect(200);
    assert.equal((await list()).share_rooms.find((r) => r.room_key === 'work')?.enabled, true);

    // created, renamed, deleted through the storage interface: the brand-wide list and the partner's share_count follow at once
    const shareCount = async () => (await api.get('/partner/quota').expect(200)).body.share_count as number;
    const count = await shareCount();
    assert.equal(count, rooms.length + 1, "alice's rooms and bob's");
    await createShareRoom(storage, {
      room_key: 'brand',
      room_name: 'For the brand list',
      dirs: ['phone/DCIM/Camera/'],
    });
    assert.equal((await brandRooms(alice)).find((r) => r.room_key === 'brand')?.name, 'For the brand list');
    assert.equal(await shareCount(), count + 1);
    await storage.updateShare('brand', { room_name: 'Renamed' }).expect(200);
    assert.equal((await brandRooms(alice)).find((r) => r.room_key === 'brand')?.name, 'Renamed');
    assert.equal((await api.get(`/users/${alice}/shares/brand`).expect(200)).body.name, 'Renamed');
    await storage.deleteShare('brand').expect(200);
    assert.equal(
      (await brandRooms(alice)).some((r) => r.room_key === 'brand'),
      false,
    );
    assert.equal(await shareCount(), count);
    assertError(await api.get(`/users/${alice}/shares/brand`), 404);
    // another partner sees none of it
    const other = await createPartner(target());
    assert.deepEqual((await other.api.get('/shares/').expect(200)).body, []);
  });

  it('a device named "shares" is still a device: .../shares/ (trailing slash) is not the share list', async () => {
    await storage.putDevice('shares').expect(200);
    await storage.putFile('shares', 'a.txt', 'a').expect(201);
    const room = await createShareRoom(storage, { room_key: 'dev', dirs: ['shares/'] });
    assert.equal(room.number_of_files, 1);
    await storage.deleteDevice('shares').expect(200);
    assert.equal(
      (await list()).share_rooms.find((r) => r.room_key === 'dev')?.number_of_files,
      0,
      'the device is gone, the room stays',
    );
  });

  it('what real clients send for rooms: /browse/share/<share id>/<key> in either form leads to the room, <room url>/ is the room, the room JSON has browse_url and start_date "", version_info lists versions', async () => {
    const shared = await userWithShareRoom(target(), partner.api, {
      files: { 'Docs/a.txt': 'first', 'Docs/b.txt': 'b' },
      room: { room_key: 'clients' },
    });
    await shared.storage.putFile('laptop', 'Docs/a.txt', 'second, longer').expect(201);
    const anonymous = partnerApi(target()).raw;
    const link = `/browse/share/${b32(shared.username)}/clients`;
    assert.equal(shared.room.url, link, "the share list's room url is the original's form");
    const room = roomAddress(link);
    assert.equal(room, `/share/${b32(shared.username)}/clients/`);
    const root = await anonymous.get(room).expect(200);
    assert.equal(root.body.stats.start_date, '');
    assert.equal(root.body.browse_url, link, 'browse_url in the original form: the share id in base32');
    // the room link leads to the room, with the share id in base32 (as emitted) or raw (as the appliance shows it)
    for (const form of [b32(shared.username), encodeURIComponent(shared.username)]) {
      const browse = await anonymous.get(`/browse/share/${form}/clients`).expect(302);
      assert.deepEqual((await anonymous.get(browse.headers.location).expect(200)).body, root.body, form);
      assert.deepEqual(
        (await anonymous.get(`/share/${form}/clients/`).expect(200)).body,
        root.body,
        `/share/ with the share id as ${form}`,
      );
    }
    assert.equal(
      (await anonymous.get(`${link}/laptop/Docs/?x=1`).expect(302)).headers.location,
      `${room}laptop/Docs/?x=1`,
    );
    await anonymous
      .get('/browse/share/nobody-at-all/clients')
      .expect(302)
      .expect('location', `/share/${b32('nobody-at-all')}/clients/`);
    await anonymous.get(`/share/${b32('nobody-at-all')}/clients/`).expect(404);
    // the mobile app opens a room as its URL + '/'
    assert.deepEqual(
      (await anonymous.get((await anonymous.get(`${link}/`).expect(302)).headers.location).expect(200)).body,
      root.body,
    );
    assert.deepEqual((await anonymous.get(`${room}/`).expect(200)).body, root.body);
    assert.deepEqual(
      (await anonymous.get(`${room}laptop/Docs//`).expect(200)).body.files.map((f: { name: string }) => f.name),
      ['a.txt', 'b.txt'],
    );
    // versions of a room file, as in the storage interface
    const versions = await anonymous.get(`${room}laptop/Docs/a.txt?format=version_info`).expect(200);
    assert.deepEqual(
      versions.body.map((v: { url: string; size: number }) => [v.url, v.size]),
      [
        ['a.txt?version=0', 5],
        ['a.txt?version=1', 14],
      ],
    );
    assert.equal((await anonymous.get(`${room}laptop/Docs/a.txt?version=0`).expect(200)).text, 'first');
    // file objects carry etime (when the version was backed up), as the mobile app reads them
    const listing = await anonymous.get(`${room}laptop/Docs/`).expect(200);
    for (const file of [...listing.body.files, ...versions.body])
      assert.ok(Number.isInteger(file.etime) && file.etime > 1_600_000_000, JSON.stringify(file));
  });

  it('a room password: set by the owner or the partner, asked for (401, or 200 password_required for the mobile app), opened with Basic or the room cookie, throttled like logins, removed', async () => {
    const shared = await userWithShareRoom(target(), partner.api, {
      files: { 'Docs/a.txt': 'secret a' },
      room: { room_key: 'locked' },
    });
    const anonymous = partnerApi(target()).raw;
    const room = roomAddress(shared.room.url);
    const file = `${room}laptop/Docs/a.txt`;
    // the owner sets a password (storage API): a scrypt hash, shown only as password_required
    const set = await shared.storage.updateShare('locked', { password: 'room-password-1' });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.password_required, true);
    assert.ok(!JSON.stringify(set.body).includes('room-password-1') && !JSON.stringify(set.body).includes('scrypt'));
    assert.equal(
      (await partner.api.get(`/users/${shared.username}/shares/locked`).expect(200)).body.password_required,
      true,
      "the partner's room record",
    );
    // without it: 401 with a Basic challenge, or (the mobile app's form) 200 {"password_required": true}, for the room, folders and files
    for (const url of [room, `${room}laptop/Docs/`, file, `${room}?format=zip`]) {
      const refused = await anonymous.get(url).expect(401);
      assert.match(String(refused.headers['www-authenticate']), /^Basic /);
      assert.equal(refused.body.password_required, true, url);
      const sep = url.includes('?') ? '&' : '?';
      assert.deepEqual(
        (await anonymous.get(`${url}${sep}auth_required_format=json`).expect(200)).body,
        { password_required: true },
        url,
      );
    }
    // with it (any user name): the room as before
    assert.equal((await anonymous.get(file).auth('anyone', 'room-password-1').expect(200)).text, 'secret a');
    assert.equal(
      (await anonymous.get(`${room}?auth_required_format=json`).auth('', 'room-password-1').expect(200)).body.stats
        .room_name,
      'Shared',
    );
    const wrong = await anonymous.get(file).auth('anyone', 'not-the-password');
    assert.equal(wrong.status, 401);
    // the room page's form: a cookie for the room's path, then the room without a password
    const form = await anonymous
      .post(room)
      .set('Accept', 'text/html')
      .type('form')
      .send({ password: 'room-password-1', back: 'laptop/' })
      .expect(303);
    assert.equal(form.headers.location, `${room}laptop/`);
    const cookie = String(form.headers['set-cookie']).split(';')[0];
    assert.match(String(form.headers['set-cookie']), /HttpOnly/i);
    assert.equal((await anonymous.get(file).set('Cookie', cookie).expect(200)).text, 'secret a');
    assert.match(
      (
        await anonymous
          .post(room)
          .set('Accept', 'text/html')
          .type('form')
          .send({ password: 'nope-nope-nope' })
          .expect(401)
      ).text,
      /Wrong password/,
    );
    // the partner changes it: the old password and the old cookie stop working
    const changed = await partner.api.post(`/users/${shared.username}/shares/locked`, { password: 'room-password-2' });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.password_required, true);
    await anonymous.get(file).auth('x', 'room-password-1').expect(401);
    await anonymous.get(file).set('Cookie', cookie).expect(401);
    assert.equal((await anonymous.get(file).auth('x', 'room-password-2').expect(200)).text, 'secret a');
    assertBadFields(await partner.api.post(`/users/${shared.username}/shares/locked`, { password: 'short' }), [
      'password',
    ]);
    // failed attempts are throttled like logins: past the limit, 429 even for the right password
    let throttled: { status: number; headers: Record<string, string> } | null = null;
    for (let i = 0; i < 40 && !throttled; i++) {
      const res = await anonymous.get(file).auth('x', `guess-${i}-wrong`);
      if (res.status === 429) throttled = res;
      else assert.equal(res.status, 401);
    }
    assert.ok(throttled, 'no 429 after 40 wrong passwords');
    assert.ok(Number(throttled.headers['retry-after']) > 0);
    await anonymous.get(file).auth('x', 'room-password-2').expect(429);
    // the owner removes it: open to everyone again
    const removed = await shared.storage.updateShare('locked', { password: null });
    assert.equal(removed.body.password_required, false);
    assert.equal((await anonymous.get(file).expect(200)).text, 'secret a');
    assert.equal(
      (await partner.api.get(`/users/${shared.username}/shares/locked`).expect(200)).body.password_required,
      false,
    );
  });

  it('expiry chosen by the owner: rooms (a date, unix seconds, never; shown in both listings; expired = 404 like unknown) and single-file links', async () => {
    const shared = await userWithShareRoom(target(), partner.api, {
      files: { 'Docs/a.txt': 'expiring' },
      room: { room_key: 'soon', expires: '2999-12-31' },
    });
    const anonymous = partnerApi(target()).raw;
    const room = roomAddress(shared.room.url);
    const endOf2999 = Date.parse('3000-01-01T00:00:00Z') / 1000;
    assert.equal(shared.room.expires, endOf2999, 'a date: through its end, UTC');
    assert.equal((await list(shared.storage)).share_rooms.find((r) => r.room_key === 'soon')?.expires, endOf2999);
    assert.equal(
      (await partner.api.get(`/users/${shared.username}/shares/soon`).expect(200)).body.expires,
      endOf2999,
      "the partner's record",
    );
    await anonymous.get(room).expect(200);
    // a past or malformed expiry is refused; nothing changes
    assertBadFields(await shared.storage.updateShare('soon', { expires: 1_000_000 }), ['expires']);
    assertBadFields(await shared.storage.updateShare('soon', { expires: 'next tuesday' }), ['expires']);
    // in two seconds: served until then, then a 404 exactly like an unknown room's
    const soon = Math.floor(Date.now() / 1000) + 2;
    assert.equal((await shared.storage.updateShare('soon', { expires: soon }).expect(200)).body.expires, soon);
    await anonymous.get(`${room}laptop/Docs/a.txt`).expect(200);
    const unknown = await anonymous.get(room.replace(/soon\/$/, 'no-such-room/')).expect(404);
    const expired = await eventually(
      async () => {
        const res = await anonymous.get(room);
        assert.equal(res.status, 404, 'the room has not expired yet');
        return res;
      },
      15_000,
      200,
    );
    assert.deepEqual(expired.body, unknown.body);
    await anonymous.get(`${room}laptop/Docs/a.txt`).expect(404);
    // never again: served again
    assert.equal((await shared.storage.updateShare('soon', { expires: 'never' }).expect(200)).body.expires, null);
    await anonymous.get(room).expect(200);
    assert.equal((await partner.api.get(`/users/${shared.username}/shares/soon`).expect(200)).body.expires, null);

    // single-file links: the owner chooses the expiry (default 3 days), never included
    const fileUrl = `${shared.storage.root}/laptop/Docs/a.txt`;
    const forever = await shared.storage.agent
      .post(`${fileUrl}?expires=never`)
      .auth(shared.username, shared.password)
      .expect(200);
    assert.equal((await anonymous.get(forever.text).expect(200)).text, 'expiring');
    const token = JSON.parse(Buffer.from(forever.text.split('/')[2].split('.')[0], 'base64url').toString()) as {
      exp: number;
    };
    assert.ok(token.exp > Date.now() / 1000 + 50 * 365 * 86_400, 'never: a link signed for a century');
    assertBadFields(
      await shared.storage.agent.post(`${fileUrl}?expires=2001-01-01`).auth(shared.username, shared.password),
      ['expires'],
    );
    const brief = await shared.storage.agent
      .post(`${fileUrl}?expires=${Math.floor(Date.now() / 1000) + 2}`)
      .auth(shared.username, shared.password)
      .expect(200);
    await anonymous.get(brief.text).expect(200);
    await eventually(
      async () => assert.equal((await anonymous.get(brief.text)).status, 403, 'the link has not expired yet'),
      15_000,
      200,
    );
  });

  it("downloads and last access counted per room, in the owner's and the partner's records; share.accessed in the feed at most once an hour", async () => {
    const shared = await userWithShareRoom(target(), partner.api, {
      files: { 'Docs/a.txt': 'count me', 'Docs/b.txt': 'and me' },
      room: { room_key: 'counted' },
    });
    const anonymous = partnerApi(target()).raw;
    const room = roomAddress(shared.room.url);
    const feedOf = async () => {
      const events: { type: string; data: Record<string, unknown> }[] = [];
      for (let after = 0; ;) {
        const page = (await partner.api.get(`/events/?after=${after}&limit=500`).expect(200)).body as {
          events: typeof events;
          next_after: number;
          has_more: boolean;
        };
        events.push(...page.events);
        if (!page.has_more) return events.filter((e) => e.type === 'share.accessed' && e.data.room_key === 'counted');
        after = page.next_after;
      }
    };
    const before = Math.floor(Date.now() / 1000);
    // browsing is a visit, not a download; files and zips are downloads; a preview, a HEAD or a resumed range is not
    await anonymous.get(room).expect(200);
    await anonymous.get(`${room}laptop/Docs/`).expect(200);
    await anonymous.get(`${room}laptop/Docs/a.txt`).expect(200);
    await anonymous.get(`${room}laptop/Docs/b.txt`).set('Range', 'bytes=0-1').expect(206);
    await anonymous.get(`${room}laptop/Docs/b.txt`).set('Range', 'bytes=2-3').expect(206);
    await anonymous.head(`${room}laptop/Docs/a.txt`).expect(200);
    await anonymous.get(`${room}laptop/?format=zip`).expect(200);
    const counted = await eventually(
      async () => {
        const mine = (await list(shared.storage)).share_rooms.find(
          (r) => r.room_key === 'counted',
        ) as ShareRoomReply & { downloads: number; last_access: number | null };
        assert.equal(mine.downloads, 3, `downloads ${mine.downloads}`);
        return mine;
      },
      15_000,
      100,
    );
    assert.ok(counted.last_access !== null && counted.last_access >= before, `last_access ${counted.last_access}`);
    const theirs = await eventually(
      async () => {
        const record = (await partner.api.get(`/users/${shared.username}/shares/counted`).expect(200)).body;
        assert.equal(record.downloads, 3);
        return record;
      },
      15_000,
      100,
    );
    assert.equal(theirs.last_access, counted.last_access);
    assert.equal(theirs.last_login, counted.last_access, "netkes' last_login: the room's last visit");
    const [first] = await eventually(
      async () => {
        const events = await feedOf();
        assert.equal(events.length, 1);
        return events;
      },
      15_000,
      100,
    );
    assert.equal(first.data.username, shared.username);
    assert.ok((first.data.downloads as number) <= 3, 'the downloads counted up to its flush');
    // more downloads within the hour: the counts go on, the feed says nothing more
    await anonymous.get(`${room}laptop/Docs/a.txt`).expect(200);
    await eventually(
      async () =>
        assert.equal(
          (
            (await list(shared.storage)).share_rooms.find((r) => r.room_key === 'counted') as unknown as {
              downloads: number;
            }
          ).downloads,
          4,
        ),
      15_000,
      100,
    );
    assert.equal((await feedOf()).length, 1, 'one share.accessed per room per hour');
  });

  it('userWithShareRoom makes a user with files and a room (the fixture other scenarios use)', async () => {
    const shared = await userWithShareRoom(target(), partner.api, {
      files: { 'a/b.txt': 'b', 'c.txt': 'c' },
      room: { room_key: 'fixture' },
    });
    assert.deepEqual(
      [shared.room.room_key, shared.room.url, shared.room.number_of_files, shared.room.number_of_folders],
      ['fixture', `/browse/share/${b32(shared.username)}/fixture`, 2, 2],
    );
  });
}
