/** The room objects of the storage interface's share list: friendly URLs, relative or absolute. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { b32decode } from '../storage-access/b32.js';
import { shareIdCandidates, shareRoomUrl, shareSegmentB32 } from '../storage-access/share-rooms.js';
import { shareRoomObject } from './share-rooms.controller.js';

describe('share room objects', () => {
  it("a room's URL is the original's /browse/share/<b32 share id>/<room key>, under BURROW_PUBLIC_URL when it is set", () => {
    assert.equal(shareRoomUrl('', 'jdoe', 'holiday'), '/browse/share/NJSG6ZI/holiday');
    assert.equal(
      shareRoomUrl('https://burrow.example.com/base', 'jdoe', 'a-b_C'),
      'https://burrow.example.com/base/browse/share/NJSG6ZI/a-b_C',
    );
    const unicode = shareRoomUrl('', 'Zoë@example.com', 'k');
    assert.equal(b32decode(unicode.split('/')[3]), 'Zoë@example.com');
  });

  it('a share id segment is read both ways: its base32 decoding first, then as it is', () => {
    assert.deepEqual(shareIdCandidates('NJSG6ZI'), ['jdoe', 'NJSG6ZI']);
    assert.deepEqual(shareIdCandidates('jdoe!'), ['jdoe!'], 'not base32: only the raw id');
    assert.equal(shareSegmentB32('NJSG6ZI'), 'NJSG6ZI');
    assert.equal(shareSegmentB32('nobody-at-all'), 'NZXWE33EPEWWC5BNMFWGY');
  });

  it('carries the spec and CLIENT-FACTS fields, named as clients read them', () => {
    const room = shareRoomObject('', 'jdoe', {
      room_key: 'holiday',
      name: 'Holiday',
      description: 'sun',
      dirs: ['phone/DCIM/'],
      enabled: true,
      password_required: false,
      expires: null,
      downloads: 4,
      last_access: 5,
      creation_time: 1,
      update_time: 2,
      files: 3,
      folders: 1,
      bytes: 99,
    });
    assert.deepEqual(room, {
      url: '/browse/share/NJSG6ZI/holiday',
      room_key: 'holiday',
      room_name: 'Holiday',
      room_description: 'sun',
      dirs: ['phone/DCIM/'],
      enabled: true,
      password_required: false,
      expires: null,
      downloads: 4,
      last_access: 5,
      number_of_files: 3,
      number_of_folders: 1,
      creation_time: 1,
      update_time: 2,
    });
  });
});
