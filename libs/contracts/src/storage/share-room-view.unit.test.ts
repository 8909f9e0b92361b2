import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ShareEvent } from './events.js';
import { createdShareRoom, evolveShareRoom } from './share-room-view.js';

const created = {
  room_key: 'docs',
  name: 'Docs',
  description: 'd',
  dirs: ['laptop/Docs/'],
  userId: 'u1',
  partnerId: 'p1',
  at: 100,
};

describe('share room view', () => {
  it('a new room: enabled, no password, no visits, never expiring unless told', () => {
    assert.deepEqual(createdShareRoom(created), {
      room_key: 'docs',
      name: 'Docs',
      description: 'd',
      enabled: true,
      password_required: false,
      expires: null,
      creation_time: 100,
      update_time: 100,
      last_login: null,
      downloads: 0,
      last_access: null,
    });
    assert.equal(createdShareRoom({ ...created, expires: 500 }).expires, 500);
  });

  it("each event changes its fields on a copy, keeps a caller's own fields, and a delete ends the room", () => {
    const room = { ...createdShareRoom(created), _id: 'u1:docs', dirs: ['laptop/Docs/'] };
    const renamed = evolveShareRoom(room, {
      type: 'ShareRoomUpdated',
      data: { room_key: 'docs', name: 'Papers', expires: null, at: 110 },
    })!;
    assert.equal(renamed.name, 'Papers');
    assert.equal(renamed.description, 'd', 'a field the update does not name stays');
    assert.equal(renamed.update_time, 110);
    assert.equal(renamed._id, 'u1:docs');
    assert.deepEqual(renamed.dirs, ['laptop/Docs/']);
    assert.equal(room.name, 'Docs', 'the given room is not changed');
    const off = evolveShareRoom(renamed, { type: 'ShareRoomDisabled', data: { room_key: 'docs', at: 120 } })!;
    assert.equal(off.enabled, false);
    assert.equal(
      evolveShareRoom(off, { type: 'ShareRoomEnabled', data: { room_key: 'docs', at: 130 } })!.enabled,
      true,
    );
    const locked = evolveShareRoom(off, {
      type: 'ShareRoomPasswordSet',
      data: { room_key: 'docs', password_hash: 'scrypt$...', at: 140 },
    })!;
    assert.equal(locked.password_required, true);
    assert.equal('password_hash' in locked, false, 'the view never holds the hash');
    assert.equal(
      evolveShareRoom(locked, {
        type: 'ShareRoomPasswordSet',
        data: { room_key: 'docs', password_hash: null, at: 150 },
      })!.password_required,
      false,
    );
    const visited = evolveShareRoom(locked, {
      type: 'ShareRoomAccessed',
      data: { room_key: 'docs', downloads: 3, at: 160 },
    })!;
    const again = evolveShareRoom(visited, {
      type: 'ShareRoomAccessed',
      data: { room_key: 'docs', downloads: 2, at: 155 },
    })!;
    assert.deepEqual(
      [again.downloads, again.last_access, again.last_login],
      [5, 160, 160],
      'counts add up; the last visit never goes back',
    );
    assert.equal(again.update_time, 140, 'visits are not changes of the room');
    assert.equal(evolveShareRoom(again, { type: 'ShareRoomDeleted', data: { room_key: 'docs', at: 170 } }), null);
  });

  it('an event it does not show gives the very room back (nothing to write)', () => {
    const room = createdShareRoom(created);
    assert.equal(
      evolveShareRoom(room, { type: 'SomethingElse', data: { room_key: 'docs' } } as unknown as Exclude<
        ShareEvent,
        { type: 'ShareRoomCreated' }
      >),
      room,
    );
  });
});
