/**
 * The device writes that span streams, as multi-step writes:
 * - RegisterDevice: reserve the name for the new id, then `DeviceRegistered` expecting no stream
 *   (the commit point; recovery claims it with `DeviceRegistrationAbandoned`), or free the name.
 * - RemoveDevice: `DeviceRemoved` first (the commit point), then free the name. What the device
 *   stored is purged by the purger, which also gives the bytes back to the user's usage.
 */
import { badRequest, type DeviceRegistrationAbandoned, type DeviceRemoved, Streams } from '@burrow/contracts';
import {
  appendEvents,
  claimNewStream,
  defineWorkflow,
  type DomainEvent,
  releaseName,
  reserveName,
  retryOnConflict,
} from '@burrow/eventsourcing';
import type { StorageContext } from '../shared/context.js';
import { type DeviceState, loadDevice } from './device.js';
import { deviceNameReservation } from './device-names.js';

export interface RegisterDeviceProcess {
  deviceId: string;
  userId: string;
  name: string;
}

export const registerDeviceProcess = (ctx: StorageContext) =>
  defineWorkflow<RegisterDeviceProcess, { events: DomainEvent[] }>({
    kind: 'RegisterDevice',
    // the register handler waits once, for a new device and a login on a known one alike
    readYourWrites: false,
    steps: [
      {
        name: 'reserve-name',
        run: ({ data }) =>
          reserveName(ctx.store, deviceNameReservation(data.userId, data.name), data.deviceId, 'device'),
        undo: (data) => releaseName(ctx.store, deviceNameReservation(data.userId, data.name), data.deviceId),
      },
    ],
    async commit({ id, data, input }) {
      return (
        await appendEvents(ctx.store, Streams.device(data.deviceId), input.events, 'no_stream', { processId: id })
      ).position;
    },
    settle(data) {
      const marker: DeviceRegistrationAbandoned = {
        type: 'DeviceRegistrationAbandoned',
        data: { at: ctx.clock.now() },
      };
      return claimNewStream(ctx.store, Streams.device(data.deviceId), marker, 'DeviceRegistered');
    },
  });

export interface RemoveDeviceProcess {
  deviceId: string;
  userId: string;
  name: string;
}

export const removeDeviceProcess = (ctx: StorageContext) =>
  defineWorkflow<RemoveDeviceProcess>({
    kind: 'RemoveDevice',
    // the first step: an abandoned removal changed nothing, there is nothing to undo
    commit: ({ id, data }) =>
      retryOnConflict('device', async () => {
        const current = await loadDevice(ctx.store, data.deviceId);
        if (!current || current.removed) throw badRequest('the device is already removed');
        const event: DeviceRemoved = {
          type: 'DeviceRemoved',
          data: { at: ctx.clock.now(), userId: current.userId, partnerId: current.partnerId },
        };
        return (
          await appendEvents(ctx.store, Streams.device(data.deviceId), [event], current.revision, { processId: id })
        ).position;
      }),
    async settle(data) {
      return (await loadDevice(ctx.store, data.deviceId))?.removed ? 'committed' : 'abandoned';
    },
    async complete(data) {
      await releaseName(ctx.store, deviceNameReservation(data.userId, data.name), data.deviceId);
    },
  });

/**
 * Removes a device (a RemoveDevice write): `DeviceRemoved` is the commit point, then the name is
 * freed; returns once the read models show it. A 400 when it is removed already. Used by the
 * user's own request and by the clearing of a deleted user's storage; either way the purger then
 * purges what the device stored.
 */
export async function removeDevice(
  ctx: StorageContext,
  device: Pick<DeviceState, 'deviceId' | 'userId' | 'name'>,
): Promise<number | null> {
  return (
    await ctx.processes.run(removeDeviceProcess(ctx), {
      deviceId: device.deviceId,
      userId: device.userId,
      name: device.name,
    })
  ).position;
}
