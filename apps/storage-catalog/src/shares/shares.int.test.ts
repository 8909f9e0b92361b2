/**
 * Share rooms through the storage catalog's handlers, on the real event store and read models:
 * a user creates (chosen or generated key), lists (with what each room holds), edits and deletes
 * their rooms; the shared folders are checked against their storage; a room is opened by its
 * public address only while it, and its owner, are enabled.
 */
import { type CreateShareRoomRequest, ROOM_KEY_PATTERN, SHARE_ROOM_DIRS_MAX, Streams } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import {
  cleanUpTestStorage,
  expectError,
  startTestStorage,
  TEST_NOW,
  type TestStorage,
  type TestUser,
} from '../testing/test-context.js';

after(cleanUpTestStorage);

describe('share rooms', () => {
  let t: TestStorage;
  let alice: TestUser;
  let bob: TestUser;

  beforeEach(async () => {
    t = await startTestStorage();
    const partner = await t.createPartner();
    alice = await t.createUser(partner, { username: `alice-${Date.now()}` });
    bob = await t.createUser(partner);
    await t.registerDevice(alice, 'Laptop');
    await t.registerDevice(alice, 'phone');
    await t.upload(alice, 'Laptop', 'Documents/report.pdf', 'r'.repeat(100));
    await t.upload(alice, 'Laptop', 'Documents/Work/plan.txt', 'p'.repeat(30));
    await t.upload(alice, 'Laptop', 'Documents/Work/Old/notes.txt', 'n'.repeat(5));
    await t.upload(alice, 'Laptop', 'Music/song.mp3', 's'.repeat(1000));
    await t.upload(alice, 'phone', 'DCIM/a.jpg', 'a'.repeat(200));
    await t.registerDevice(bob, 'desktop');
    await t.upload(bob, 'desktop', 'Secret/x.txt', 'x');
  });
  afterEach(async () => {
    await t?.close();
  });

  const create = (
    user: TestUser,
    body: Omit<CreateShareRoomRequest, 'userId' | 'room_description'> & { room_description?: string },
  ) => t.shares.create({ userId: user.userId, room_description: '', ...body });
  const shareEvents = async (user: TestUser) =>
    (await t.store.readStream(Streams.share(user.userId))).map((e) => e.type);

  it('creates a room under a chosen key, with its folders canonical and counted, and lists it', async () => {
    const room = await create(alice, {
      room_key: 'work',
      room_name: ' Work stuff ',
      room_description: 'for the team',
      dirs: ['laptop/Documents/Work', 'Laptop/Documents/Work/', '/phone/DCIM/'],
    });
    assert.deepEqual(room, {
      room_key: 'work',
      name: 'Work stuff',
      description: 'for the team',
      dirs: ['Laptop/Documents/Work/', 'phone/DCIM/'],
      enabled: true,
      password_required: false,
      expires: null,
      downloads: 0,
      last_access: null,
      creation_time: t.clock.now(),
      update_time: t.clock.now(),
      files: 3,
      folders: 3,
      bytes: 235,
      share_id: alice.username,
    });
    const list = await t.shares.list({ userId: alice.userId });
    assert.equal(list.share_id, alice.username);
    const { share_id: _s, ...info } = room;
    assert.deepEqual(list.rooms, [info]);
    assert.deepEqual((await t.shares.list({ userId: bob.userId })).rooms, [], "another user's list is their own");
    // what accounts projects (the brand-wide list, the user's share_rooms) is on the user's share stream
    const [event] = await t.store.readStream(Streams.share(alice.userId));
    assert.equal(event.type, 'ShareRoomCreated');
    assert.deepEqual(
      [event.data.userId, event.data.partnerId, event.data.room_key],
      [alice.userId, alice.partnerId, 'work'],
    );
  });

  it('generates a URL-safe key when none is given; a key in use is a 409 naming room_key, for this user only', async () => {
    const a = await create(alice, { room_name: 'A', dirs: ['phone/'] });
    const b = await create(alice, { room_name: 'B', dirs: ['phone/'] });
    for (const key of [a.room_key, b.room_key]) {
      assert.match(key, ROOM_KEY_PATTERN);
      assert.equal(key.length, 16);
    }
    assert.notEqual(a.room_key, b.room_key);
    await create(alice, { room_key: 'holiday', room_name: 'Holiday', dirs: ['phone/DCIM/'] });
    const error = await expectError(create(alice, { room_key: 'holiday', room_name: 'Again', dirs: ['phone/'] }), 409);
    assert.deepEqual(error.body.conflicts, ['room_key']);
    await create(bob, { room_key: 'holiday', room_name: "Bob's", dirs: ['desktop/'] });
    assert.equal(
      (await t.shares.list({ userId: alice.userId })).rooms.find((r) => r.room_key === 'holiday')?.name,
      'Holiday',
    );
  });

  it('refuses shared folders that are not live folders of the user, with a 400 naming dirs, and writes nothing', async () => {
    await t.deletePath(alice, 'Laptop', 'Music/song.mp3');
    await t.registerDevice(alice, 'old');
    await t.upload(alice, 'old', 'x.txt', 'x');
    await t.removeDevice(alice, 'old');
    const cases: [string, RegExp][] = [
      ['tablet/', /no device tablet/],
      ['desktop/Secret/', /no device desktop/], // bob's
      ['old/', /no device old/], // removed
      ['Laptop/Nope/', /no folder Nope\/ on device Laptop/],
      ['Laptop/Music/', /no folder Music\//], // its only file deleted
      ['Laptop/Documents/report.pdf/', /no folder/], // a file, not a folder
      ['Laptop/../phone/', /invalid path/],
      ['', /invalid|device/],
    ];
    for (const [dir, reason] of cases) {
      const error = await expectError(create(alice, { room_key: 'bad', room_name: 'Bad', dirs: ['phone/', dir] }), 400);
      assert.deepEqual(error.body.fields, ['dirs'], dir);
      assert.match(error.body.reason, reason, dir);
    }
    for (const body of [
      { room_name: 'x', dirs: [] },
      { room_name: 'x', dirs: Array.from({ length: SHARE_ROOM_DIRS_MAX + 1 }, () => 'phone/') },
      { room_name: 'x', dirs: 'phone/' },
    ]) {
      assert.deepEqual((await expectError(create(alice, body as never), 400)).body.fields, ['dirs']);
    }
    assert.deepEqual((await expectError(create(alice, { room_name: '  ', dirs: ['phone/'] }), 400)).body.fields, [
      'room_name',
    ]);
    assert.deepEqual(
      (await expectError(create(alice, { room_key: 'no/slash', room_name: 'x', dirs: ['phone/'] }), 400)).body.fields,
      ['room_key'],
    );
    assert.deepEqual(await shareEvents(alice), []);
  });

  it('counts every live file and folder under the shared folders once, and follows uploads and deletes', async () => {
    const whole = await create(alice, {
      room_key: 'whole',
      room_name: 'Everything',
      dirs: ['Laptop/', 'Laptop/Documents/', 'phone/DCIM/'],
    });
    // Laptop/ (itself, Documents, Work, Old, Music) and DCIM; Documents/ is inside Laptop/
    assert.deepEqual([whole.files, whole.folders, whole.bytes], [5, 6, 1335]);
    const docs = await create(alice, {
      room_key: 'docs',
      room_name: 'Docs',
      dirs: ['Laptop/Documents/Work/Old/', 'Laptop/Documents/'],
    });
    assert.deepEqual([docs.files, docs.folders, docs.bytes], [3, 3, 135]);

    await t.upload(alice, 'Laptop', 'Documents/Work/Old/more.txt', 'm'.repeat(10));
    await t.deletePath(alice, 'Laptop', 'Documents/report.pdf');
    await t.deletePath(alice, 'phone', 'DCIM/');
    const counts = async () =>
      new Map(
        (await t.shares.list({ userId: alice.userId })).rooms.map((r) => [r.room_key, [r.files, r.folders, r.bytes]]),
      );
    assert.deepEqual(
      await counts(),
      new Map([
        ['whole', [4, 5, 1045]],
        ['docs', [3, 3, 45]],
      ]),
    );
    // a removed device's folders count nothing; the room keeps its entries
    await t.removeDevice(alice, 'Laptop');
    assert.deepEqual(
      await counts(),
      new Map([
        ['whole', [0, 0, 0]],
        ['docs', [0, 0, 0]],
      ]),
    );
    const kept = (await t.shares.list({ userId: alice.userId })).rooms.find((r) => r.room_key === 'docs');
    assert.deepEqual(kept?.dirs, ['Laptop/Documents/Work/Old/', 'Laptop/Documents/']);
  });

  it('an update changes only the fields given (folders checked as on create); an unknown room is a 404', async () => {
    await create(alice, { room_key: 'work', room_name: 'Work', room_description: 'team', dirs: ['Laptop/Documents/'] });
    t.clock.advance(60);
    const renamed = await t.shares.update({
      userId: alice.userId,
      room_key: 'work',
      changes: { room_name: 'Work 2026' },
    });
    assert.deepEqual(
      [renamed.name, renamed.description, renamed.dirs, renamed.update_time - renamed.creation_time],
      ['Work 2026', 'team', ['Laptop/Documents/'], 60],
    );
    const moved = await t.shares.update({
      userId: alice.userId,
      room_key: 'work',
      changes: { room_description: '', dirs: ['phone/DCIM', 'phone/DCIM/'] },
    });
    assert.deepEqual(
      [moved.name, moved.description, moved.dirs, moved.files, moved.bytes],
      ['Work 2026', '', ['phone/DCIM/'], 1, 200],
    );
    const error = await expectError(
      t.shares.update({ userId: alice.userId, room_key: 'work', changes: { dirs: ['Laptop/Nope/'] } }),
      400,
    );
    assert.deepEqual(error.body.fields, ['dirs']);
    await expectError(t.shares.update({ userId: alice.userId, room_key: 'play', changes: { room_name: 'x' } }), 404);
    await expectError(
      t.shares.update({ userId: bob.userId, room_key: 'work', changes: { room_name: 'mine now' } }),
      404,
    );
    // the same values again change nothing and write nothing
    await t.shares.update({
      userId: alice.userId,
      room_key: 'work',
      changes: { room_name: 'Work 2026', dirs: ['phone/DCIM/'] },
    });
    assert.deepEqual(await shareEvents(alice), ['ShareRoomCreated', 'ShareRoomUpdated', 'ShareRoomUpdated']);
  });

  it("deletes a room (404 when unknown or another user's); its key is free again", async () => {
    await create(alice, { room_key: 'work', room_name: 'Work', dirs: ['Laptop/Documents/'] });
    await expectError(t.shares.delete({ userId: bob.userId, room_key: 'work' }), 404);
    await t.shares.delete({ userId: alice.userId, room_key: 'work' });
    assert.deepEqual((await t.shares.list({ userId: alice.userId })).rooms, []);
    await expectError(t.shares.delete({ userId: alice.userId, room_key: 'work' }), 404);
    await expectError(t.shares.open({ share_id: alice.username, room_key: 'work' }), 404);
    assert.equal(
      (await create(alice, { room_key: 'work', room_name: 'Work again', dirs: ['phone/'] })).name,
      'Work again',
    );
  });

  it('opens a room by share id and key while the room and its owner are enabled; otherwise a 404 that says nothing more', async () => {
    await create(alice, { room_key: 'holiday', room_name: 'Holiday', room_description: 'sun', dirs: ['phone/DCIM/'] });
    const open = () => t.shares.open({ share_id: alice.username.toUpperCase(), room_key: 'holiday' });
    const room = await open();
    assert.deepEqual(
      [
        room.userId,
        room.share_id,
        room.owner_name,
        room.name,
        room.description,
        room.dirs,
        room.files,
        room.folders,
        room.bytes,
      ],
      [alice.userId, alice.username, (await t.root(alice)).user.name, 'Holiday', 'sun', ['phone/DCIM/'], 1, 1, 200],
    );
    const reasons = new Set<string>();
    const refused = async (req = { share_id: alice.username, room_key: 'holiday' }) =>
      reasons.add((await expectError(t.shares.open(req), 404)).body.reason);
    await refused({ share_id: alice.username, room_key: 'HOLIDAY' });
    await refused({ share_id: bob.username, room_key: 'holiday' });
    await refused({ share_id: 'nobody', room_key: 'holiday' });

    await t.shares.setEnabled({
      partnerId: alice.partnerId,
      user: alice.username,
      room_key: 'holiday',
      enabled: false,
    });
    await refused();
    assert.equal(
      (await t.shares.list({ userId: alice.userId })).rooms[0].enabled,
      false,
      'the owner still sees it, disabled',
    );
    await t.shares.setEnabled({ partnerId: alice.partnerId, user: alice.username, room_key: 'holiday', enabled: true });
    await open();

    await t.setUserEnabled(alice, false);
    await refused();
    await t.setUserEnabled(alice, true);
    await open();

    await t.deleteUser(alice);
    await refused();
    assert.deepEqual([...reasons], ['no such share']);
    await expectError(t.shares.list({ userId: alice.userId }), 404);
    await expectError(create(alice, { room_name: 'x', dirs: ['phone/'] }), 404);
  });

  it('lists rooms oldest first, in creation order within a second', async () => {
    t.clock.advance(10);
    for (const key of ['c', 'a', 'b']) await create(alice, { room_key: key, room_name: key, dirs: ['phone/'] });
    t.clock.set(TEST_NOW);
    await create(alice, { room_key: 'z', room_name: 'z', dirs: ['phone/'] });
    assert.deepEqual(
      (await t.shares.list({ userId: alice.userId })).rooms.map((r) => r.room_key),
      ['z', 'c', 'a', 'b'],
    );
  });
});
