/**
 * The device writes that span streams, as multi-step writes:
 * - RegisterDevice: reserve the name for the new id, then `DeviceRegistered` expecting no stream
 *   (the commit point; recovery claims it with `DeviceRegistrationAbandoned`), or free the name.
 * - RemoveDevice: `DeviceRemoved` first (the commit point), then free the name. What the device
 *   stored is purged by the purger, which also gives the bytes back to the user's usage.
 */
import { type DeviceRegistrationAbandoned, Streams } from '@burrow/contracts';
import { claimNewStream, type ProcessDefinition, releaseName } from '@burrow/eventsourcing';
import type { StorageContext } from '../shared/context.js';
import { loadDevice } from './device.js';
import { deviceNameReservation } from './device-names.js';

export interface RegisterDeviceProcess {
  deviceId: string;
  userId: string;
  name: string;
}

export const registerDeviceProcess = (ctx: StorageContext): ProcessDefinition<RegisterDeviceProcess> => ({
  kind: 'RegisterDevice',
  settle(data) {
    const marker: DeviceRegistrationAbandoned = { type: 'DeviceRegistrationAbandoned', data: { at: ctx.clock.now() } };
    return claimNewStream(ctx.store, Streams.device(data.deviceId), marker, 'DeviceRegistered');
  },
  async complete() {},
  async compensate(data) {
    await releaseName(ctx.store, deviceNameReservation(data.userId, data.name), data.deviceId);
  },
});

export interface RemoveDeviceProcess {
  deviceId: string;
  userId: string;
  name: string;
}

export const removeDeviceProcess = (ctx: StorageContext): ProcessDefinition<RemoveDeviceProcess> => ({
  kind: 'RemoveDevice',
  async settle(data) {
    return (await loadDevice(ctx.store, data.deviceId))?.removed ? 'committed' : 'abandoned';
  },
  async complete(data) {
    await releaseName(ctx.store, deviceNameReservation(data.userId, data.name), data.deviceId);
  },
  async compensate() {
    // the commit point is the first step: an abandoned removal changed nothing
  },
});
