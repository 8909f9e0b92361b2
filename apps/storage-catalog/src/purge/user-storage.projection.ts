/**
 * Which deleted users still have storage to clear (`user_storage`, one document per user who has
 * had a device or a share room, or was deleted): the user's live devices and share rooms, from the
 * storage catalog's `device-` and `share-` streams, and whether accounts deleted the user
 * (`UserDeleted`). A deleted user with a live device or room is `pending`: the purger removes them
 * (`clear-user.ts`), and the document stops being pending when the removals are projected. A
 * device or room that appears after the deletion (a request that was already under way) makes the
 * user pending again, so clearing converges whatever the order.
 */
import { type DeviceEvent, type ShareEvent, StreamPrefixes } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { Projection } from '@burrow/eventsourcing';

export interface UserStorageDoc {
  /** the user's id */
  _id: string;
  deleted: boolean;
  /** ids of the user's devices not removed */
  devices: string[];
  /** keys of the user's share rooms not deleted */
  rooms: string[];
  /** deleted, with devices or rooms left */
  pending: boolean;
  [key: string]: unknown;
}

export const userStorageCollection = (docs: DocumentStore) => docs.collection<UserStorageDoc>('user_storage');

const blank = (userId: string): UserStorageDoc => ({
  _id: userId,
  deleted: false,
  devices: [],
  rooms: [],
  pending: false,
});
const without = (list: string[], item: string) => list.filter((x) => x !== item);
const withItem = (list: string[], item: string) => (list.includes(item) ? list : [...list, item]);

export const userStorageProjection = (): Projection => ({
  name: 'user-storage',
  prefixes: [StreamPrefixes.user, StreamPrefixes.device, StreamPrefixes.share],
  async init(docs) {
    await userStorageCollection(docs).ensureIndex({ pending: 1 });
    await userStorageCollection(docs).ensureIndex({ devices: 1 });
  },
  async apply(event, docs) {
    const users = userStorageCollection(docs);
    let doc: UserStorageDoc;
    if (event.stream.startsWith(StreamPrefixes.user)) {
      if (event.type !== 'UserDeleted') return;
      const userId = event.stream.slice(StreamPrefixes.user.length);
      doc = { ...((await users.get(userId)) ?? blank(userId)), deleted: true };
    } else if (event.stream.startsWith(StreamPrefixes.device)) {
      const e = { type: event.type, data: event.data } as DeviceEvent;
      const deviceId = event.stream.slice(StreamPrefixes.device.length);
      if (e.type === 'DeviceRegistered') {
        const found = (await users.get(e.data.userId)) ?? blank(e.data.userId);
        doc = { ...found, devices: withItem(found.devices, deviceId) };
      } else if (e.type === 'DeviceRemoved') {
        const found =
          (e.data.userId ? await users.get(e.data.userId) : null) ?? (await users.findOne({ devices: deviceId }));
        if (!found) return;
        doc = { ...found, devices: without(found.devices, deviceId) };
      } else return;
    } else {
      const e = { type: event.type, data: event.data } as ShareEvent;
      const userId = event.stream.slice(StreamPrefixes.share.length);
      if (e.type !== 'ShareRoomCreated' && e.type !== 'ShareRoomDeleted') return;
      const found = (await users.get(userId)) ?? blank(userId);
      doc = {
        ...found,
        rooms:
          e.type === 'ShareRoomCreated'
            ? withItem(found.rooms, e.data.room_key)
            : without(found.rooms, e.data.room_key),
      };
    }
    doc.pending = doc.deleted && (doc.devices.length > 0 || doc.rooms.length > 0);
    await users.upsert(doc);
  },
});
