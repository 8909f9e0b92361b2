/** Read model of share rooms (one document per room), as the partner interface shows them. */
import { type ShareEvent, StreamPrefixes, type UserShareRoom } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { Projection } from '@burrow/eventsourcing';

export interface ShareRoomDoc extends UserShareRoom {
  _id: string;
  userId: string;
  partnerId: string;
  dirs: string[];
  /** the room password's scrypt hash (absent in rooms projected before passwords existed: none) */
  password_hash?: string | null;
  /** global position of its creation: orders rooms created in the same second */
  seq: number;
  [key: string]: unknown;
}

export const shareRoomsCollection = (docs: DocumentStore) => docs.collection<ShareRoomDoc>('share_rooms');
export const shareRoomId = (userId: string, roomKey: string) => `${userId}:${roomKey}`;

export const toUserShareRoom = ({ _id, userId: _u, partnerId: _p, dirs: _d, seq: _s, password_hash: _h, ...room }: ShareRoomDoc): UserShareRoom => room;

/** Oldest first. */
export const ROOM_ORDER = { creation_time: 1, seq: 1 } as const;

export const shareRoomsProjection = (): Projection => ({
  name: 'share-rooms',
  prefixes: [StreamPrefixes.share, StreamPrefixes.user],
  async init(docs) {
    await shareRoomsCollection(docs).ensureIndex({ userId: 1 });
  },
  async apply(event, docs) {
    const rooms = shareRoomsCollection(docs);
    if (event.stream.startsWith(StreamPrefixes.user)) {
      if (event.type === 'UserDeleted') await rooms.deleteMany({ userId: event.stream.slice(StreamPrefixes.user.length) });
      return;
    }
    const userId = event.stream.slice(StreamPrefixes.share.length);
    const e = { type: event.type, data: event.data } as ShareEvent;
    const id = shareRoomId(userId, e.data.room_key);
    if (e.type === 'ShareRoomCreated') {
      const d = e.data;
      await rooms.upsert({
        _id: id, userId, partnerId: d.partnerId, room_key: d.room_key, name: d.name, description: d.description, dirs: d.dirs, seq: event.position,
        enabled: true, password_required: false, expires: d.expires ?? null, creation_time: d.at, update_time: d.at, last_login: null,
        downloads: 0, last_access: null,
      });
      return;
    }
    const room = await rooms.get(id);
    if (!room) return;
    switch (e.type) {
      case 'ShareRoomUpdated':
        if (e.data.name !== undefined) room.name = e.data.name;
        if (e.data.description !== undefined) room.description = e.data.description;
        if (e.data.dirs !== undefined) room.dirs = e.data.dirs;
        if (e.data.expires !== undefined) room.expires = e.data.expires;
        room.update_time = e.data.at;
        break;
      case 'ShareRoomEnabled':
      case 'ShareRoomDisabled':
        room.enabled = e.type === 'ShareRoomEnabled';
        room.update_time = e.data.at;
        break;
      case 'ShareRoomDeleted':
        await rooms.delete(id);
        return;
      case 'ShareRoomAccessed':
        room.downloads = (room.downloads ?? 0) + e.data.downloads;
        room.last_access = Math.max(room.last_access ?? 0, e.data.at);
        room.last_login = room.last_access;
        break;
      case 'ShareRoomPasswordSet':
        room.password_hash = e.data.password_hash;
        room.password_required = e.data.password_hash !== null;
        room.update_time = e.data.at;
        break;
      default:
        return;
    }
    await rooms.upsert(room);
  },
});
