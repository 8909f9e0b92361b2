/** Read model of share rooms (one document per room), as the partner interface shows them. */
import {
  createdShareRoom,
  evolveShareRoom,
  type ShareEvent,
  StreamPrefixes,
  type UserShareRoom,
} from '@burrow/contracts';
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

export const toUserShareRoom = ({
  _id,
  userId: _u,
  partnerId: _p,
  dirs: _d,
  seq: _s,
  password_hash: _h,
  ...room
}: ShareRoomDoc): UserShareRoom => room;

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
      if (event.type === 'UserDeleted')
        await rooms.deleteMany({ userId: event.stream.slice(StreamPrefixes.user.length) });
      return;
    }
    const userId = event.stream.slice(StreamPrefixes.share.length);
    const e = { type: event.type, data: event.data } as ShareEvent;
    const id = shareRoomId(userId, e.data.room_key);
    if (e.type === 'ShareRoomCreated') {
      const d = e.data;
      await rooms.upsert({
        ...createdShareRoom(d),
        _id: id,
        userId,
        partnerId: d.partnerId,
        dirs: d.dirs,
        seq: event.position,
      });
      return;
    }
    const room = await rooms.get(id);
    if (!room) return;
    const next = evolveShareRoom(room, e);
    if (next === room) return;
    if (!next) {
      await rooms.delete(id);
      return;
    }
    // what only the catalog keeps: the shared folders and the password's hash
    if (e.type === 'ShareRoomUpdated' && e.data.dirs !== undefined) next.dirs = e.data.dirs;
    if (e.type === 'ShareRoomPasswordSet') next.password_hash = e.data.password_hash;
    await rooms.upsert(next);
  },
});
