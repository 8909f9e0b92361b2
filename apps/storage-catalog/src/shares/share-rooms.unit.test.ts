/** The share-room decider (given events, when a command, then events) and the shape of shared folders. */
import { DomainError, fold, SHARE_ROOMS_MAX, type ShareEvent } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseShareDir } from './share-dirs.js';
import { type ShareRoomsCommand, shareRoomsDecider } from './share-rooms.js';

const AT = 1_800_000_000;
const created = (room_key: string, dirs = ['laptop/']): ShareEvent => ({
  type: 'ShareRoomCreated',
  data: { room_key, name: `Room ${room_key}`, description: '', dirs, userId: 'u1', partnerId: 'p1', at: AT },
});
const create = (room_key: string): ShareRoomsCommand => ({
  type: 'CreateShareRoom',
  room_key,
  name: 'Holiday',
  description: 'pictures',
  dirs: ['phone/DCIM/'],
  userId: 'u1',
  partnerId: 'p1',
  at: AT,
});

function refused(given: ShareEvent[], command: ShareRoomsCommand, status: number): DomainError {
  try {
    shareRoomsDecider.decide(command, fold(shareRoomsDecider, given));
  } catch (error) {
    assert.ok(error instanceof DomainError);
    assert.equal(error.status, status, JSON.stringify(error.body));
    return error;
  }
  assert.fail(`expected a ${status}`);
}

describe('share rooms decider', () => {
  it('creates a room under a new key; a key in use is a 409 naming room_key, a deleted one is free again', () => {
    assert.deepEqual(shareRoomsDecider.decide(create('holiday'), shareRoomsDecider.initialState), [
      {
        type: 'ShareRoomCreated',
        data: {
          room_key: 'holiday',
          name: 'Holiday',
          description: 'pictures',
          dirs: ['phone/DCIM/'],
          userId: 'u1',
          partnerId: 'p1',
          at: AT,
        },
      },
    ]);
    assert.deepEqual(refused([created('holiday')], create('holiday'), 409).body.conflicts, ['room_key']);
    const deleted: ShareEvent = { type: 'ShareRoomDeleted', data: { room_key: 'holiday', at: AT } };
    assert.equal(
      shareRoomsDecider.decide(create('holiday'), fold(shareRoomsDecider, [created('holiday'), deleted])).length,
      1,
    );
  });

  it(`a user has at most ${SHARE_ROOMS_MAX} rooms`, () => {
    const full = Array.from({ length: SHARE_ROOMS_MAX }, (_, i) => created(`r${i}`));
    assert.match(refused(full, create('one-more'), 400).body.reason, /at most/);
    const oneDeleted: ShareEvent[] = [...full, { type: 'ShareRoomDeleted', data: { room_key: 'r7', at: AT } }];
    assert.equal(shareRoomsDecider.decide(create('one-more'), fold(shareRoomsDecider, oneDeleted)).length, 1);
  });

  it('an update carries only the fields that change, and nothing when none does; an unknown room is a 404', () => {
    const given = [created('holiday', ['phone/DCIM/'])];
    const state = fold(shareRoomsDecider, given);
    const update = (changes: object): ShareRoomsCommand => ({
      type: 'UpdateShareRoom',
      room_key: 'holiday',
      changes,
      at: AT + 5,
    });
    assert.deepEqual(
      shareRoomsDecider.decide(update({ name: 'Summer', description: '', dirs: ['phone/DCIM/'] }), state),
      [{ type: 'ShareRoomUpdated', data: { room_key: 'holiday', name: 'Summer', at: AT + 5 } }],
    );
    assert.deepEqual(shareRoomsDecider.decide(update({ name: 'Room holiday' }), state), []);
    assert.deepEqual(shareRoomsDecider.decide(update({ dirs: ['phone/'] }), state), [
      { type: 'ShareRoomUpdated', data: { room_key: 'holiday', dirs: ['phone/'], at: AT + 5 } },
    ]);
    refused(given, { type: 'UpdateShareRoom', room_key: 'work', changes: { name: 'x' }, at: AT }, 404);
    // the update folds into the state: fields not sent are kept
    const after = fold(shareRoomsDecider, [
      ...given,
      { type: 'ShareRoomUpdated', data: { room_key: 'holiday', name: 'Summer', at: AT + 5 } },
    ]);
    assert.deepEqual(after.rooms.get('holiday'), {
      room_key: 'holiday',
      name: 'Summer',
      description: '',
      dirs: ['phone/DCIM/'],
      expires: null,
      enabled: true,
      has_password: false,
    });
  });

  it('deletes a room once; enabling follows the partner, and a repeated setting writes nothing', () => {
    const given = [created('holiday')];
    assert.deepEqual(
      shareRoomsDecider.decide(
        { type: 'DeleteShareRoom', room_key: 'holiday', at: AT },
        fold(shareRoomsDecider, given),
      ),
      [{ type: 'ShareRoomDeleted', data: { room_key: 'holiday', at: AT } }],
    );
    refused(
      [...given, { type: 'ShareRoomDeleted', data: { room_key: 'holiday', at: AT } }],
      { type: 'DeleteShareRoom', room_key: 'holiday', at: AT },
      404,
    );
    const state = fold(shareRoomsDecider, given);
    assert.deepEqual(
      shareRoomsDecider.decide({ type: 'SetShareRoomEnabled', room_key: 'holiday', enabled: true, at: AT }, state),
      [],
    );
    assert.deepEqual(
      shareRoomsDecider.decide({ type: 'SetShareRoomEnabled', room_key: 'holiday', enabled: false, at: AT }, state),
      [{ type: 'ShareRoomDisabled', data: { room_key: 'holiday', at: AT } }],
    );
  });
});

describe('shared folder entries', () => {
  it('are `<device>/<folder path>/`, leniently: a leading slash or a missing trailing slash is fine', () => {
    assert.deepEqual(parseShareDir('laptop/Documents/Work/'), { device: 'laptop', path: 'Documents/Work/' });
    assert.deepEqual(parseShareDir('laptop/'), { device: 'laptop', path: '' });
    assert.deepEqual(parseShareDir('laptop'), { device: 'laptop', path: '' });
    assert.deepEqual(parseShareDir('/laptop/Documents'), { device: 'laptop', path: 'Documents/' });
    assert.deepEqual(parseShareDir('my phone/Ünïcode ☃/'), { device: 'my phone', path: 'Ünïcode ☃/' });
    // a backslash is part of a name (docs/api.md, "File names")
    assert.deepEqual(parseShareDir('a\\b/C:\\Users\\me/'), { device: 'a\\b', path: 'C:\\Users\\me/' });
  });

  it('refuse what the path rules refuse, with a 400 naming dirs', () => {
    for (const bad of [
      '',
      '/',
      'laptop/../etc/',
      'laptop//Documents/',
      'laptop/./',
      '../',
      'laptop/a\0b/',
      `laptop/${'x'.repeat(256)}/`,
    ]) {
      try {
        parseShareDir(bad);
        assert.fail(`accepted ${JSON.stringify(bad)}`);
      } catch (error) {
        assert.ok(error instanceof DomainError, String(error));
        assert.equal(error.status, 400);
        assert.deepEqual(error.body.fields, ['dirs'], JSON.stringify(bad));
      }
    }
  });
});
