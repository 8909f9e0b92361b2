/**
 * Clearing a deleted user's storage (accounts deleted the user: interface A's `DELETE /users/<u>`):
 * every device of theirs is removed (`DeviceRemoved`, as if they had removed it; the purger then
 * purges what it stored, and the blob reaper reclaims blobs nothing else references) and every
 * share room deleted (`ShareRoomDeleted` on `share-<userId>`). Each step re-reads the stream it
 * writes, so running it again, or twice at once on two replicas, writes nothing more.
 */
import { DomainError, type ShareEvent, type ShareRoomDeleted, Streams } from '@burrow/contracts';
import { appendEvents, retryOnConflict } from '@burrow/eventsourcing';
import { loadDevice } from '../devices/device.js';
import { removeDevice } from '../devices/device-processes.js';
import type { StorageContext } from '../shared/context.js';
import type { UserStorageDoc } from './user-storage.projection.js';

export interface ClearedUser {
  removedDevices: number;
  deletedRooms: number;
  /** global position of the last write (null: nothing was left to clear) */
  position: number | null;
}

/** The live share rooms of a user and the stream's revision, from `share-<userId>` itself. */
async function liveRooms(ctx: StorageContext, userId: string): Promise<{ rooms: string[]; revision: number | null }> {
  const events = await ctx.store.readStream(Streams.share(userId));
  const rooms = new Set<string>();
  for (const e of events) {
    const event = { type: e.type, data: e.data } as ShareEvent;
    if (event.type === 'ShareRoomCreated') rooms.add(event.data.room_key);
    else if (event.type === 'ShareRoomDeleted') rooms.delete(event.data.room_key);
  }
  return { rooms: [...rooms], revision: events.length ? events[events.length - 1].revision : null };
}

export async function clearDeletedUser(ctx: StorageContext, user: UserStorageDoc): Promise<ClearedUser> {
  const cleared: ClearedUser = { removedDevices: 0, deletedRooms: 0, position: null };
  for (const deviceId of user.devices) {
    const device = await loadDevice(ctx.store, deviceId);
    if (!device || device.removed) continue;
    try {
      cleared.position = await removeDevice(ctx, device);
      cleared.removedDevices += 1;
    } catch (error) {
      // removed meanwhile (by the user, or another replica clearing the same user)
      if (!(error instanceof DomainError && error.status === 400)) throw error;
    }
  }
  await retryOnConflict('share rooms', async () => {
    const { rooms, revision } = await liveRooms(ctx, user._id);
    if (!rooms.length) return;
    const at = ctx.clock.now();
    const events: ShareRoomDeleted[] = rooms.map((room_key) => ({ type: 'ShareRoomDeleted', data: { room_key, at } }));
    cleared.position = (
      await appendEvents(ctx.store, Streams.share(user._id), events, revision ?? 'no_stream')
    ).position;
    cleared.deletedRooms = rooms.length;
  });
  return cleared;
}
