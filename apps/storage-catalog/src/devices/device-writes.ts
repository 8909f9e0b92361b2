/**
 * Appending folder events (made, deleted, given properties) to a device's stream: decided on the
 * read models caught up to the store, appended expecting the device's revision, decided again on
 * a lost race; the reply waits for the read models.
 */
import { type PositionReply, Streams } from '@burrow/contracts';
import { appendEvents, type DomainEvent, retryOnConflict } from '@burrow/eventsourcing';
import type { StorageContext } from '../shared/context.js';
import type { DeviceState } from './device.js';
import { resolveDevice } from './device-names.js';

export async function appendToDevice(
  ctx: StorageContext,
  userId: string,
  device: string,
  decide: (current: DeviceState) => Promise<DomainEvent[]>,
): Promise<PositionReply> {
  const position = await retryOnConflict('device', async () => {
    const current = await resolveDevice(ctx.store, userId, device);
    await ctx.runner.catchUp();
    const events = await decide(current);
    if (!events.length) return null;
    return (await appendEvents(ctx.store, Streams.device(current.deviceId), events, current.revision)).position;
  });
  await ctx.runner.waitFor(position);
  return { position };
}
