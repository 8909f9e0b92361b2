/**
 * A device's name is unique per user: `devicename-<userId>-<name key>` is reserved for the
 * device's id. The reservation is also the authoritative name -> id lookup (no read model lag):
 * a device registered a moment ago through another replica is found at once.
 *
 * Reads (downloads, listings, zips, share rooms) keep working while the event store is down
 * (issue 39): `resolveDeviceToRead` then finds the device in the devices read model, which holds
 * every device registered before the outage (no device can be registered during it).
 */
import { notFound, Streams, unavailableDependencyOf } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { EventStore } from '@burrow/event-store';
import { nameKey, reservationHolder } from '@burrow/eventsourcing';
import { type DeviceState, requireDevice } from './device.js';
import { devicesCollection } from '../read-models/devices.projection.js';

export const deviceNameReservation = (userId: string, name: string) => Streams.deviceName(userId, nameKey(name));

/** The id of the user's device with this name, or null. */
export function deviceIdByName(store: EventStore, userId: string, name: string): Promise<string | null> {
  return reservationHolder(store, deviceNameReservation(userId, name));
}

/** The user's live device with this name, or 404. */
export async function resolveDevice(store: EventStore, userId: string, name: string): Promise<DeviceState> {
  return requireDevice(store, await deviceIdByName(store, userId, name), userId, name);
}

/** A device as a read sees it: no revision, so nothing can append expecting one read from a read model. */
export type DeviceToRead = Omit<DeviceState, 'revision'>;

/** A user's devices a read-model lookup considers at most (a user has a handful). */
const DEVICES_PER_USER = 10_000;

/**
 * For reads: the user's live device with this name, or 404; from the event store (`resolveDevice`)
 * while it answers, else from the devices read model.
 */
export async function resolveDeviceToRead(
  ctx: { store: EventStore; docs: DocumentStore },
  userId: string,
  name: string,
): Promise<DeviceToRead> {
  try {
    return await resolveDevice(ctx.store, userId, name);
  } catch (error) {
    if (unavailableDependencyOf(error) !== 'event store') throw error;
    const key = nameKey(name);
    const devices = await devicesCollection(ctx.docs).find({ userId, removed: false }, { limit: DEVICES_PER_USER });
    const device = devices.find((d) => nameKey(d.name) === key);
    if (!device) throw notFound(`no device ${name}`);
    return {
      deviceId: device._id,
      userId: device.userId,
      partnerId: device.partnerId,
      name: device.name,
      removed: false,
    };
  }
}
