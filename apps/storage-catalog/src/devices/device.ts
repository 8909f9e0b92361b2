/**
 * The device aggregate (stream `device-<deviceId>`). Its stream grows with logins and folder
 * deletions, so no command folds it: what a command needs (does the device exist, is it removed,
 * whose is it) comes from its first and last events, read in two O(1) reads.
 */
import { type DeviceEvent, type DeviceRegistered, notFound, Streams } from '@burrow/contracts';
import type { EventStore } from '@burrow/event-store';

export interface DeviceState {
  deviceId: string;
  userId: string;
  partnerId: string;
  name: string;
  /** revision of the last event: a command appends expecting it */
  revision: number;
  removed: boolean;
}

/** The device, or null when the stream holds no registered device. */
export async function loadDevice(store: EventStore, deviceId: string): Promise<DeviceState | null> {
  const stream = Streams.device(deviceId);
  const [first] = await store.readStream(stream, { maxCount: 1 });
  if (first?.type !== 'DeviceRegistered') return null;
  const [last] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
  const registered = first.data as DeviceRegistered['data'];
  return {
    deviceId,
    userId: registered.userId,
    partnerId: registered.partnerId,
    name: registered.name,
    revision: last.revision,
    removed: (last.type as DeviceEvent['type']) === 'DeviceRemoved',
  };
}

/** The user's live device, or 404 (another user's device is as good as absent). */
export async function requireDevice(store: EventStore, deviceId: string | null, userId: string, name: string): Promise<DeviceState> {
  const device = deviceId ? await loadDevice(store, deviceId) : null;
  if (!device || device.removed || device.userId !== userId) throw notFound(`no device ${name}`);
  return device;
}
