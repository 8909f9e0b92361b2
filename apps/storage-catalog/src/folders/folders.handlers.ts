/**
 * Bus handlers for what WebDAV needs of paths beyond the storage interface: making an empty
 * folder (MKCOL), a file or folder with a page of its members and the user's quota (PROPFIND), and
 * dead properties (PROPPATCH). A folder's changes are events on its device's stream, appended
 * expecting the device's revision and decided on the read models caught up to the store (as a
 * folder deletion is). Every request is the user's own: anyone else's device is a 404.
 */
import {
  type DevicePath,
  DomainError,
  fileIdOf,
  folderPath,
  notFound,
  parentOf,
  type PathStat,
  type PositionReply,
  type SetPropertiesRequest,
  type StatRequest,
  Streams,
  Subjects,
} from '@burrow/contracts';
import { type DomainEvent, handleCommand } from '@burrow/eventsourcing';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { resolveDevice, resolveDeviceToRead } from '../devices/device-names.js';
import { appendToDevice } from '../devices/device-writes.js';
import { changedProperties, sameProperties } from '../files/dead-properties.js';
import { checkDeadPropertyBudget, propertyBytes } from '../read-models/dead-property-usage.js';
import { fileDecider } from '../files/file.js';
import { folderPage } from '../files/listing.js';
import { folderExists, propsOf, resolvePath, toFileStat, toFolderStat } from '../files/resolve-path.js';
import { STORAGE_CONTEXT, type StorageContext } from '../shared/context.js';
import { storedBytesToRead } from '../usage/usage.js';
import { userQuota } from '../users/user-quota.js';
import { checkNewFolder, missingParent, notAllowed } from './folder-rules.js';

/** Is a live file or a folder at `path` (a canonical folder path)? */
async function taken(ctx: StorageContext, deviceId: string, path: string): Promise<boolean> {
  return (await resolvePath(ctx.docs, deviceId, path.slice(0, -1))) !== null;
}

@Controller()
export class FoldersHandlers {
  constructor(@Inject(STORAGE_CONTEXT) private readonly ctx: StorageContext) {}

  /** An empty folder inside an existing one; a device that does not exist is a missing parent too. */
  @MessagePattern(Subjects.storage.makeFolder)
  async make(@Payload() req: DevicePath): Promise<PositionReply> {
    const path = folderPath(req.path);
    if (path === '') throw notAllowed('the device exists');
    try {
      await resolveDevice(this.ctx.store, req.userId, req.device);
    } catch (error) {
      if (error instanceof DomainError && error.status === 404) throw missingParent(`no device ${req.device}`);
      throw error;
    }
    return appendToDevice(this.ctx, req.userId, req.device, async (device) => {
      checkNewFolder(path, {
        taken: await taken(this.ctx, device.deviceId, path),
        parent: await folderExists(this.ctx.docs, device.deviceId, parentOf(path)),
      });
      return [
        {
          type: 'FolderCreated',
          data: { path, userId: device.userId, partnerId: device.partnerId, at: this.ctx.clock.now() },
        },
      ];
    });
  }

  @MessagePattern(Subjects.storage.stat)
  async stat(@Payload() req: StatRequest): Promise<PathStat> {
    const device = await resolveDeviceToRead(this.ctx, req.userId, req.device);
    const found = await resolvePath(this.ctx.docs, device.deviceId, req.path);
    if (!found) throw notFound(`no file or folder ${req.path}`);
    const figures = req.figures === false ? {} : { quota: await quotaFigures(this.ctx, req.userId) };
    if (found.kind === 'file')
      return { kind: 'file', file: toFileStat(found.doc), props: propsOf(found.doc), ...figures };
    const folder = toFolderStat(found.path, found.doc);
    if (!req.members) return { kind: 'folder', folder, ...figures };
    const page = await folderPage(this.ctx.docs, device.deviceId, found.path, req.members);
    const members = {
      dirs: page.dirs.map((d) => toFolderStat(d.path, d)),
      files: page.files.map(toFileStat),
      next: page.next,
    };
    return { kind: 'folder', folder, members, ...figures };
  }

  /**
   * Sets and removes dead properties, all or nothing. A folder given properties is kept as a made
   * one (it stays when its files go), so that what was set on it is not lost with them. A change
   * that changes nothing appends nothing; one that does is checked against what the user may hold
   * and write (`dead-property-usage.ts`).
   */
  @MessagePattern(Subjects.storage.setProperties)
  async setProperties(@Payload() req: SetPropertiesRequest): Promise<PositionReply> {
    const device = await resolveDevice(this.ctx.store, req.userId, req.device);
    await this.ctx.runner.catchUp();
    const found = await resolvePath(this.ctx.docs, device.deviceId, req.path);
    if (!found) throw notFound(`no file or folder ${req.path}`);
    const at = this.ctx.clock.now();
    if (found.kind === 'file') {
      // checked against the read model's set; the file's stream decides the change itself
      const before = propsOf(found.doc);
      const after = changedProperties(before, req.set, req.remove);
      if (sameProperties(before, after)) return { position: null };
      await checkDeadPropertyBudget(this.ctx, req.userId, propertyBytes(before), propertyBytes(after));
      const fileId = fileIdOf(device.deviceId, found.path);
      const result = await handleCommand(this.ctx.store, Streams.file(fileId), fileDecider, {
        type: 'SetProperties',
        set: req.set,
        remove: req.remove,
        at,
      });
      await this.ctx.runner.waitFor(result.position);
      return { position: result.position };
    }
    return appendToDevice(this.ctx, req.userId, req.device, async (current) => {
      const resolved = await resolvePath(this.ctx.docs, current.deviceId, found.path);
      if (!resolved || resolved.kind !== 'folder') throw notFound(`no folder ${found.path}`);
      const before = propsOf(resolved.doc);
      const props = changedProperties(before, req.set, req.remove);
      if (sameProperties(before, props)) return [];
      await checkDeadPropertyBudget(this.ctx, req.userId, propertyBytes(before), propertyBytes(props));
      const owner = { userId: current.userId, partnerId: current.partnerId };
      const events: DomainEvent[] = resolved.doc?.made
        ? []
        : [{ type: 'FolderCreated', data: { path: found.path, ...owner, at } }];
      events.push({ type: 'FolderPropertiesSet', data: { path: found.path, props, at } });
      return events;
    });
  }
}

/** The user's stored bytes and what is left of the quota (PROPFIND's quota properties). */
async function quotaFigures(ctx: StorageContext, userId: string): Promise<{ used: number; available: number | null }> {
  const quota = await userQuota(ctx, userId);
  const used = await storedBytesToRead(ctx, userId);
  return { used, available: quota === null ? null : Math.max(0, quota - used) };
}
