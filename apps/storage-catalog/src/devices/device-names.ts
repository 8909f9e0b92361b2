/**
 * A device's name is unique per user: `devicename-<userId>-<name key>` is reserved for the
 * device's id. The reservation is also the authoritative name -> id lookup (no read model lag):
 * a device registered a moment ago through another replica is found at once.
 */
import { Streams } from '@burrow/contracts';
import type { EventStore } from '@burrow/event-store';
import { nameKey, reservationHolder } from '@burrow/eventsourcing';
import { type DeviceState, requireDevice } from './device.js';

export const deviceNameReservation = (userId: string, name: string) => Streams.deviceName(userId, nameKey(name));

/** The id of the user's device with this name, or null. */
export function deviceIdByName(store: EventStore, userId: string, name: string): Promise<string | null> {
  return reservationHolder(store, deviceNameReservation(userId, name));
}

/** The user's live device with this name, or 404. */
export async function resolveDevice(store: EventStore, userId: string, name: string): Promise<DeviceState> {
  return requireDevice(store, await deviceIdByName(store, userId, name), userId, name);
}
