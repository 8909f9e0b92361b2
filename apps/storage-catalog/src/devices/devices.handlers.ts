/**
 * Bus handlers for devices and the storage root: registering or updating a device (each such
 * write is a device login), removing one, and the user's root (who they are, their usage and
 * quota, their devices).
 */
import {
  badRequest,
  conflict,
  DomainError,
  DEVICES_MAX,
  type DeviceInfo,
  type DeviceRef,
  type PositionReply,
  type RegisterDeviceRequest,
  segmentProblem,
  type StorageRoot,
  Streams,
  Subjects,
  type UserScoped,
} from '@burrow/contracts';
import { appendEvents, type DomainEvent, releaseName, retryOnConflict } from '@burrow/eventsourcing';
import { WrongExpectedRevisionError } from '@burrow/event-store';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { randomUUID } from 'node:crypto';
import { foldersCollection } from '../read-models/catalog.documents.js';
import { STORAGE_CONTEXT, type StorageContext } from '../shared/context.js';
import { storedBytesToRead } from '../usage/usage.js';
import { quotaOf, requireUser } from '../users/users.projection.js';
import { loadDevice } from './device.js';
import { deviceIdByName, deviceNameReservation, resolveDevice } from './device-names.js';
import { registerDeviceProcess, removeDevice } from './device-processes.js';
import { type DeviceDoc, devicesCollection } from '../read-models/devices.projection.js';

function deviceName(name: unknown): string {
  const problem = typeof name === 'string' ? segmentProblem(name) : 'a device name is required';
  if (problem) throw badRequest(`invalid device name: ${problem}`, ['device']);
  return name as string;
}

@Controller()
export class DevicesHandlers {
  constructor(@Inject(STORAGE_CONTEXT) private readonly ctx: StorageContext) {}

  private async info(doc: DeviceDoc): Promise<DeviceInfo> {
    const root = await foldersCollection(this.ctx.docs).get(`${doc._id}:`);
    return {
      deviceId: doc._id,
      name: doc.name,
      sysplatform: doc.sysplatform,
      client_revision: doc.client_revision,
      creation_time: doc.creation_time,
      lastlogin: doc.lastlogin,
      lastcommit: doc.lastcommit,
      last_backup_complete: doc.last_backup_complete,
      bytes: doc.bytes,
      files: root?.files ?? 0,
    };
  }

  /**
   * Registers the device, or (when the user has one of that name) records a login with the
   * platform and client revision it reports. Replies once the read models show it.
   */
  @MessagePattern(Subjects.storage.registerDevice)
  async register(@Payload() req: RegisterDeviceRequest & { partnerId: string }): Promise<DeviceInfo & PositionReply> {
    const name = deviceName(req.device);
    const at = this.ctx.clock.now();
    const position = await retryOnConflict('device', async () => {
      const existingId = await deviceIdByName(this.ctx.store, req.userId, name);
      const existing = existingId ? await loadDevice(this.ctx.store, existingId) : null;
      if (existing && !existing.removed) {
        if (req.createOnly) throw new DomainError(405, { reason: `a device named ${name} exists` });
        const events: DomainEvent[] = [
          {
            type: 'DeviceLoggedIn',
            data: {
              at,
              userId: req.userId,
              ...(req.sysplatform !== undefined ? { sysplatform: req.sysplatform } : {}),
              ...(req.client_revision !== undefined ? { client_revision: req.client_revision } : {}),
            },
          },
        ];
        if (req.backup_complete) events.push({ type: 'BackupCompleted', data: { at } });
        return (await appendEvents(this.ctx.store, Streams.device(existing.deviceId), events, existing.revision))
          .position;
      }
      // a removed device whose name was not freed yet (its removal crashed before): free it now
      if (existing?.removed)
        await releaseName(this.ctx.store, deviceNameReservation(req.userId, name), existing.deviceId);
      return this.registerNew(req, name, at);
    });
    await this.ctx.runner.waitFor(position);
    const doc = await devicesCollection(this.ctx.docs).get((await deviceIdByName(this.ctx.store, req.userId, name))!);
    if (!doc) throw conflict('the device changed while it was registered; retry', ['device']);
    return { ...(await this.info(doc)), position };
  }

  /** A new device: reserve its name for a new id, then `DeviceRegistered` (a multi-step write). */
  private async registerNew(
    req: RegisterDeviceRequest & { partnerId: string },
    name: string,
    at: number,
  ): Promise<number | null> {
    const deviceId = randomUUID();
    const events: DomainEvent[] = [
      {
        type: 'DeviceRegistered',
        data: {
          deviceId,
          userId: req.userId,
          partnerId: req.partnerId,
          name,
          sysplatform: req.sysplatform ?? '',
          client_revision: req.client_revision ?? 0,
          at,
        },
      },
    ];
    if (req.backup_complete) events.push({ type: 'BackupCompleted', data: { at } });
    try {
      return (
        await this.ctx.processes.run(
          registerDeviceProcess(this.ctx),
          { deviceId, userId: req.userId, name },
          { events },
        )
      ).position;
    } catch (error) {
      // the name was taken meanwhile by a concurrent registration of the same device: the retry
      // (a concurrency conflict) then logs in on that device
      if (error instanceof DomainError && error.status === 409)
        throw new WrongExpectedRevisionError(deviceNameReservation(req.userId, name), 'no_stream', 0);
      throw error;
    }
  }

  /** Removes the device: hidden at once, its stored versions purged after (the purger). */
  @MessagePattern(Subjects.storage.removeDevice)
  async remove(@Payload() req: DeviceRef): Promise<PositionReply> {
    const device = await resolveDevice(this.ctx.store, req.userId, deviceName(req.device));
    return { position: await removeDevice(this.ctx, device) };
  }

  @MessagePattern(Subjects.storage.root)
  async root(@Payload() req: UserScoped): Promise<StorageRoot> {
    let user;
    try {
      user = await requireUser(this.ctx.docs, req.userId);
    } catch {
      await this.ctx.runner.catchUp();
      user = await requireUser(this.ctx.docs, req.userId);
    }
    const devices = await devicesCollection(this.ctx.docs).find(
      { userId: req.userId, removed: false },
      { sort: { nameKey: 1, _id: 1 }, limit: DEVICES_MAX },
    );
    return {
      user: {
        userId: user._id,
        partnerId: user.partnerId,
        username: user.username,
        name: user.name,
        email: user.email,
        share_id: user.share_id,
        quota_bytes: await quotaOf(this.ctx.docs, user),
        bytes_stored: await storedBytesToRead(this.ctx, req.userId),
      },
      devices: await Promise.all(devices.map((d) => this.info(d))),
    };
  }
}
