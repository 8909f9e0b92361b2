/**
 * COPY and MOVE within a user's storage (`storage-catalog.paths.transfer`), as metadata only:
 * content addressing means a copy is a new version naming the same blob (counted in the user's
 * usage like an upload of the same bytes, which dedup makes free to store), and a move hands the
 * latest version over without touching the usage (`move-file.process.ts`). Dead properties go
 * along; a moved or copied folder is made at the destination (so an empty one survives), with its
 * made subfolders, then its files a batch at a time.
 *
 * A folder's transfer runs for at most `BATCH_MS` per request and replies with a cursor to go on
 * from (the gateway asks again until it is done), so no request outlives the bus timeout however
 * big the folder. What a transfer did stays done if it stops half way (each file moves or copies
 * whole); a move removes the source folder at the end. Dead properties carried along count as
 * written (and, for a copy, as held) by the user: past the bounds of `dead-property-usage.ts` the
 * transfer stops there (507 or 429), like a copy past the quota.
 */
import {
  DomainError,
  fileIdOf,
  folderPath,
  forbidden,
  notFound,
  parentOf,
  pathSegments,
  Streams,
  Subjects,
  type TransferReply,
  type TransferRequest,
  withChecksums,
} from '@burrow/contracts';
import { type DomainEvent, handleCommand } from '@burrow/eventsourcing';
import { Controller, Inject, Optional } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { DeviceState } from '../devices/device.js';
import { resolveDevice } from '../devices/device-names.js';
import { appendToDevice } from '../devices/device-writes.js';
import { prefixRange } from '@burrow/documents';
import { filesCollection, foldersCollection } from '../read-models/catalog.documents.js';
import { commitVersion } from '../files/commit-file.process.js';
import { checkDeadPropertyBudget, propertyBytes } from '../read-models/dead-property-usage.js';
import { fileDecider } from '../files/file.js';
import { folderExists, propsOf, resolvePath, type ResolvedPath } from '../files/resolve-path.js';
import { missingParent } from '../folders/folder-rules.js';
import { STORAGE_CONTEXT, type StorageContext } from '../shared/context.js';
import { userQuota } from '../users/user-quota.js';
import { moveFile } from './move-file.process.js';
import { checkTransfer } from './transfer-rules.js';

/** How long one request of a folder transfer works before it replies with a cursor. */
export const BATCH_MS = 1000;
const PAGE = 100;

interface Cursor {
  /** 'd': made subfolders, 'f': files */
  p: 'd' | 'f';
  /** the last path done in that phase ('' before the first) */
  a: string;
  /** the destination existed before (the final reply says so) */
  r: boolean;
}

const encode = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString('base64url');

function decode(cursor: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Cursor;
    if ((c.p === 'd' || c.p === 'f') && typeof c.a === 'string' && typeof c.r === 'boolean') return c;
  } catch {
    // fall through
  }
  throw new DomainError(400, { reason: 'invalid cursor', fields: ['cursor'] });
}

/** The destination's device; one that does not exist is a missing parent (409). */
async function destinationDevice(ctx: StorageContext, userId: string, name: string): Promise<DeviceState> {
  try {
    return await resolveDevice(ctx.store, userId, name);
  } catch (error) {
    if (error instanceof DomainError && error.status === 404) throw missingParent(`no device ${name}`);
    throw error;
  }
}

/** Tests shorten the batch to see a folder transfer go on over several requests. */
export const TRANSFER_OPTIONS = Symbol('TRANSFER_OPTIONS');

@Controller()
export class TransfersHandlers {
  private readonly batchMs: number;

  constructor(
    @Inject(STORAGE_CONTEXT) private readonly ctx: StorageContext,
    @Optional() @Inject(TRANSFER_OPTIONS) options?: { batchMs?: number },
  ) {
    this.batchMs = options?.batchMs ?? BATCH_MS;
  }

  @MessagePattern(Subjects.storage.transfer)
  async transfer(@Payload() req: TransferRequest): Promise<TransferReply> {
    if (req.mode !== 'copy' && req.mode !== 'move')
      throw new DomainError(400, { reason: 'mode is copy or move', fields: ['mode'] });
    if (req.mode === 'move' && req.shallow)
      throw new DomainError(400, {
        reason: 'a folder moves with everything in it (Depth: infinity)',
        fields: ['depth'],
      });
    if (pathSegments(req.from.path, 'from').length === 0 || pathSegments(req.to.path, 'to').length === 0) {
      throw forbidden('a device is not copied or moved: copy or move what is in it');
    }
    const source = await resolveDevice(this.ctx.store, req.userId, req.from.device);
    const target = await destinationDevice(this.ctx, req.userId, req.to.device);
    await this.ctx.runner.catchUp();
    if (req.cursor) {
      // a folder transfer going on: the checks were made by its first request
      return this.continueFolder(
        req,
        source,
        target,
        folderPath(req.from.path),
        folderPath(req.to.path),
        decode(req.cursor),
      );
    }
    const found = await resolvePath(this.ctx.docs, source.deviceId, req.from.path);
    if (!found) throw notFound(`no file or folder ${req.from.path}`);
    const to = found.kind === 'file' ? pathSegments(req.to.path, 'to').join('/') : folderPath(req.to.path, 'to');
    const existing = await resolvePath(this.ctx.docs, target.deviceId, to.endsWith('/') ? to.slice(0, -1) : to);
    checkTransfer({
      source: { deviceId: source.deviceId, path: found.path, kind: found.kind },
      destination: { deviceId: target.deviceId, path: to },
      existing: existing?.kind ?? null,
      parent: await folderExists(this.ctx.docs, target.deviceId, parentOf(to)),
      overwrite: req.overwrite,
    });
    // Overwrite: T deletes the destination first, except a file over a file, which gets a new
    // version (its history is kept, as an upload over it would keep it)
    if (existing && !(existing.kind === 'file' && found.kind === 'file'))
      await this.remove(req.userId, req.to.device, target, existing);
    const replaced = existing !== null;
    if (found.kind === 'file') {
      await this.transferFile(req.mode, found, target, to, req.userId);
      await this.ctx.runner.catchUp();
      return { replaced, next: null };
    }
    await this.makeFolder(req.mode, req.userId, req.to.device, to, propsOf(found.doc));
    if (req.shallow) return { replaced, next: null };
    return this.continueFolder(req, source, target, found.path, to, { p: 'd', a: '', r: replaced });
  }

  private async transferFile(
    mode: 'copy' | 'move',
    found: Extract<ResolvedPath, { kind: 'file' }>,
    target: DeviceState,
    to: string,
    userId: string,
  ): Promise<void> {
    const props = propsOf(found.doc);
    await this.checkProperties(mode, userId, props);
    if (mode === 'move') {
      await moveFile(this.ctx, found.doc, props, target, to);
      return;
    }
    const d = found.doc;
    await commitVersion(
      this.ctx,
      target,
      to,
      { size: d.size, blob: d.blob, crc32: d.crc32, ...withChecksums(d), mtime: d.mtime, ctime: d.ctime, props },
      await userQuota(this.ctx, userId),
    );
  }

  /** Deletes what is at the destination (a folder with everything in it, or a file). */
  private async remove(userId: string, device: string, target: DeviceState, existing: ResolvedPath): Promise<void> {
    if (existing.kind === 'file') {
      const result = await handleCommand(
        this.ctx.store,
        Streams.file(fileIdOf(target.deviceId, existing.path)),
        fileDecider,
        { type: 'DeleteFile', at: this.ctx.clock.now() },
      );
      await this.ctx.runner.waitFor(result.position);
      return;
    }
    await appendToDevice(this.ctx, userId, device, async (current) => [
      {
        type: 'FolderDeleted',
        data: { path: existing.path, userId: current.userId, partnerId: current.partnerId, at: this.ctx.clock.now() },
      },
    ]);
  }

  /**
   * Dead properties a transfer carries: a copy adds them to what the user holds, a move only
   * writes them again (it takes them from the source); both count as written.
   */
  private async checkProperties(mode: 'copy' | 'move', userId: string, props: Record<string, string>): Promise<void> {
    const bytes = propertyBytes(props);
    if (bytes) await checkDeadPropertyBudget(this.ctx, userId, mode === 'move' ? bytes : 0, bytes);
  }

  /** Makes the folder `path` (if it is not made yet) with these dead properties. */
  private async makeFolder(
    mode: 'copy' | 'move',
    userId: string,
    device: string,
    path: string,
    props: Record<string, string>,
  ): Promise<void> {
    await this.checkProperties(mode, userId, props);
    await appendToDevice(this.ctx, userId, device, async (current) => {
      const doc = await foldersCollection(this.ctx.docs).get(`${current.deviceId}:${path}`);
      const owner = { userId: current.userId, partnerId: current.partnerId };
      const at = this.ctx.clock.now();
      const events: DomainEvent[] = doc?.made ? [] : [{ type: 'FolderCreated', data: { path, ...owner, at } }];
      if (Object.keys(props).length) events.push({ type: 'FolderPropertiesSet', data: { path, props, at } });
      return events;
    });
  }

  /** Made subfolders, then files, in path order from the cursor, for at most BATCH_MS; then the source goes (a move). */
  private async continueFolder(
    req: TransferRequest,
    source: DeviceState,
    target: DeviceState,
    from: string,
    to: string,
    cursor: Cursor,
  ): Promise<TransferReply> {
    const started = Date.now();
    const { $lt } = prefixRange(from);
    const range = (after: string) => ({ $gt: after || from, ...($lt === undefined ? {} : { $lt }) });
    const rebase = (path: string) => to + path.slice(from.length);
    let at: Cursor = cursor;
    while (at.p === 'd') {
      const page = await foldersCollection(this.ctx.docs).find(
        { deviceId: source.deviceId, path: range(at.a) },
        { sort: { path: 1 }, limit: PAGE },
      );
      for (const folder of page) {
        if (folder.made || folder.props)
          await this.makeFolder(req.mode, req.userId, req.to.device, rebase(folder.path), propsOf(folder));
        at = { ...at, a: folder.path };
      }
      if (page.length < PAGE) at = { p: 'f', a: '', r: at.r };
      if (Date.now() - started >= this.batchMs) return { replaced: at.r, next: encode(at) };
    }
    const quota = req.mode === 'copy' ? await userQuota(this.ctx, req.userId) : null;
    for (;;) {
      const page = await filesCollection(this.ctx.docs).find(
        { deviceId: source.deviceId, deleted: false, path: range(at.a) },
        { sort: { path: 1 }, limit: PAGE },
      );
      for (const doc of page) {
        const props = propsOf(doc);
        await this.checkProperties(req.mode, req.userId, props);
        if (req.mode === 'move') await moveFile(this.ctx, doc, props, target, rebase(doc.path));
        else
          await commitVersion(
            this.ctx,
            target,
            rebase(doc.path),
            {
              size: doc.size,
              blob: doc.blob,
              crc32: doc.crc32,
              ...withChecksums(doc),
              mtime: doc.mtime,
              ctime: doc.ctime,
              props,
            },
            quota,
          );
        at = { ...at, a: doc.path };
        if (Date.now() - started >= this.batchMs) {
          await this.ctx.runner.catchUp();
          return { replaced: at.r, next: encode(at) };
        }
      }
      if (page.length < PAGE) break;
    }
    if (req.mode === 'move') {
      await appendToDevice(this.ctx, req.userId, req.from.device, async (current) => [
        {
          type: 'FolderDeleted',
          data: { path: from, userId: current.userId, partnerId: current.partnerId, at: this.ctx.clock.now() },
        },
      ]);
    }
    await this.ctx.runner.catchUp();
    return { replaced: at.r, next: null };
  }
}
