/**
 * The device aggregate (stream `device-<deviceId>`). Its stream grows with logins and folder
 * deletions, so no command folds it: what a command needs (does the device exist, is it removed,
 * whose is it) comes from its first and last events, read in two O(1) reads, and remembered with
 * the stream's revision (every download resolves its device): while the revision is the same the
 * state is, and any append (a login, a removal, here or on another replica) reads it again.
 */
import { type DeviceEvent, type DeviceRegistered, notFound, Streams } from '@burrow/contracts';
import type { EventStore } from '@burrow/event-store';
import { StreamFacts } from '@burrow/eventsourcing';

export interface DeviceState {
  deviceId: string;
  userId: string;
  partnerId: string;
  name: string;
  /** revision of the last event: a command appends expecting it */
  revision: number;
  removed: boolean;
}

const devices = new StreamFacts<Readonly<DeviceState> | null>();

/** The device (shared: never modified), or null when the stream holds no registered device. */
export function loadDevice(store: EventStore, deviceId: string): Promise<Readonly<DeviceState> | null> {
  const stream = Streams.device(deviceId);
  return devices.get(store, stream, async () => {
    const [last] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    if (!last) return null;
    const [first] = last.revision === 0 ? [last] : await store.readStream(stream, { maxCount: 1 });
    if (first?.type !== 'DeviceRegistered') return { revision: last.revision, facts: null };
    const registered = first.data as DeviceRegistered['data'];
    const device: DeviceState = {
      deviceId,
      userId: registered.userId,
      partnerId: registered.partnerId,
      name: registered.name,
      revision: last.revision,
      removed: (last.type as DeviceEvent['type']) === 'DeviceRemoved',
    };
    return { revision: last.revision, facts: Object.freeze(device) };
  });
}

/** The user's live device, or 404 (another user's device is as good as absent). */
export async function requireDevice(
  store: EventStore,
  deviceId: string | null,
  userId: string,
  name: string,
): Promise<Readonly<DeviceState>> {
  const device = deviceId ? await loadDevice(store, deviceId) : null;
  if (!device || device.removed || device.userId !== userId) throw notFound(`no device ${name}`);
  return device;
}
