/**
 * The device writes that span streams, as multi-step writes:
 * - RegisterDevice: reserve the name for the new id, then `DeviceRegistered` expecting no stream
 *   (the commit point; recovery claims it with `DeviceRegistrationAbandoned`), or free the name.
 * - RemoveDevice: `DeviceRemoved` first (the commit point), then free the name. What the device
 *   stored is purged by the purger, which also gives the bytes back to the user's usage.
 */
import { badRequest, type DeviceRegistrationAbandoned, type DeviceRemoved, Streams } from '@burrow/contracts';
import { appendEvents, claimNewStream, type ProcessDefinition, releaseName, retryOnConflict } from '@burrow/eventsourcing';
import type { StorageContext } from '../shared/context.js';
import { type DeviceState, loadDevice } from './device.js';
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

/**
 * Removes a device (a RemoveDevice write): `DeviceRemoved` is the commit point, then the name is
 * freed. A 400 when it is removed already. Used by the user's own request and by the clearing of a
 * deleted user's storage; either way the purger then purges what the device stored.
 */
export async function removeDevice(ctx: StorageContext, device: Pick<DeviceState, 'deviceId' | 'userId' | 'name'>): Promise<number> {
  const process = await ctx.processes.begin(removeDeviceProcess(ctx), { deviceId: device.deviceId, userId: device.userId, name: device.name });
  let position: number;
  try {
    position = await process.step('commit', () =>
      retryOnConflict('device', async () => {
        const current = await loadDevice(ctx.store, device.deviceId);
        if (!current || current.removed) throw badRequest('the device is already removed');
        const event: DeviceRemoved = { type: 'DeviceRemoved', data: { at: ctx.clock.now(), userId: current.userId, partnerId: current.partnerId } };
        return (await appendEvents(ctx.store, Streams.device(device.deviceId), [event], current.revision, { processId: process.id })).position;
      }),
    );
  } catch (error) {
    return process.abandon(error);
  }
  await process.complete();
  return position;
}
