/**
 * Bus handlers for files and folders: checking an upload before its bytes are read, committing
 * an uploaded version, deleting a file or a folder, reading a version, the versions of a file,
 * a folder page and a subtree page. Every request is the authenticated user's own: a device or
 * file of anyone else is a 404.
 */
import {
  badRequest,
  DomainError,
  type CommitFileReply,
  type CommitFileRequest,
  type DevicePath,
  type FileChecksums,
  type FileEntry,
  fileIdOf,
  filePath,
  type FileIncarnation,
  type FileRequest,
  type FileVersionInfo,
  type FileVersionsRequest,
  gone,
  folderPath,
  type FolderPage,
  type FolderSummary,
  type ListFolderRequest,
  nameOf,
  notFound,
  parentOf,
  type PositionReply,
  type PrepareUploadReply,
  type PrepareUploadRequest,
  quotaExceeded,
  Streams,
  type SubtreePage,
  Subjects,
  UPLOAD_HEAD_BYTES,
  VERSIONS_MAX,
  withChecksums,
} from '@burrow/contracts';
import { appendEvents, handleCommand, loadAggregate, retryOnConflict } from '@burrow/eventsourcing';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type DeviceToRead, resolveDevice, resolveDeviceToRead } from '../devices/device-names.js';
import { STORAGE_CONTEXT, type StorageContext } from '../shared/context.js';
import { usageHead } from '../usage/usage.js';
import { userQuota } from '../users/user-quota.js';
import {
  type FileDoc,
  filesCollection,
  foldersCollection,
  versionsCollection,
  versionId,
} from '../read-models/catalog.documents.js';
import { commitVersion } from './commit-file.process.js';
import { folderExists } from './resolve-path.js';
import { fileDecider } from './file.js';
import { listFolder, toFileEntry, walkFolder } from './listing.js';

const GONE = 'the file this link or session extension was made for has been deleted or replaced';

/**
 * The device and live file a read names. With `expect` (a link's or a session extension's read)
 * the device must still be the same incarnation and the file the same life, or the answer is 410:
 * a device registered again under the name, or a file deleted and uploaded again to the path, is
 * not what was shared.
 */
async function liveFile(
  ctx: StorageContext,
  req: DevicePath & { expect?: FileIncarnation },
): Promise<{ device: DeviceToRead; path: string; file: FileDoc }> {
  const path = filePath(req.path);
  const expect = req.expect;
  let device: DeviceToRead;
  try {
    device = await resolveDeviceToRead(ctx, req.userId, req.device);
  } catch (error) {
    if (expect) throw gone(GONE);
    throw error;
  }
  const file = await filesCollection(ctx.docs).get(fileIdOf(device.deviceId, path));
  if (
    expect &&
    (expect.deviceId !== device.deviceId || !file || file.deleted || (file.incarnation ?? 0) !== expect.since)
  )
    throw gone(GONE);
  if (!file || file.deleted) throw notFound(`no file ${path}`);
  return { device, path, file };
}

const isBlobKey = (key: unknown): key is string => typeof key === 'string' && /^[0-9a-f]{64}$/.test(key);
const nonNegativeInt = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

/** A commit's `head` (base64 of the blob's first bytes), decoded; a 400 when it is not that. */
function headOf(req: CommitFileRequest): Buffer | undefined {
  if (req.head === undefined) return undefined;
  const ok =
    typeof req.head === 'string' &&
    req.head.length <= 4 * Math.ceil(UPLOAD_HEAD_BYTES / 3) &&
    /^[A-Za-z0-9+/]*={0,2}$/.test(req.head);
  const head = ok ? Buffer.from(req.head, 'base64') : null;
  if (!head || head.length !== Math.min(req.size, UPLOAD_HEAD_BYTES))
    throw badRequest(`head must be the blob's first ${UPLOAD_HEAD_BYTES} bytes, base64`, ['head']);
  return head;
}

/** A commit's checksums (lowercase hex SHA-1 and MD5), or undefined; a 400 when malformed. */
function checksumsOf(value: unknown): FileChecksums | undefined {
  if (value === undefined) return undefined;
  const c = (typeof value === 'object' ? value : null) as Partial<FileChecksums> | null;
  if (
    !c ||
    typeof c.sha1 !== 'string' ||
    !/^[0-9a-f]{40}$/.test(c.sha1) ||
    typeof c.md5 !== 'string' ||
    !/^[0-9a-f]{32}$/.test(c.md5)
  ) {
    throw badRequest('checksums must be {sha1, md5} in lowercase hex', ['checksums']);
  }
  return { sha1: c.sha1, md5: c.md5 };
}

@Controller()
export class FilesHandlers {
  constructor(@Inject(STORAGE_CONTEXT) private readonly ctx: StorageContext) {}

  /**
   * Before the bytes: the device exists, the path is a file path, and a known size fits the quota;
   * with WebDAV's rules (`strict`) the parent folder exists and the path is not a folder. Replies
   * with the file's current version, for conditional requests, and with how many bytes the quota
   * still holds, so that the gateway refuses an upload of unknown size (chunked) as soon as it
   * passes them, rather than storing all of it first.
   */
  @MessagePattern(Subjects.storage.prepareUpload)
  async prepare(@Payload() req: PrepareUploadRequest): Promise<PrepareUploadReply> {
    const path = filePath(req.path);
    const device = await resolveDevice(this.ctx.store, req.userId, req.device);
    if (req.strict) await this.checkWebdavPath(device.deviceId, path);
    const quota = await userQuota(this.ctx, req.userId);
    const remaining = quota === null ? null : Math.max(0, quota - (await usageHead(this.ctx.store, req.userId)).total);
    if (remaining !== null && req.size !== undefined && req.size > remaining) throw quotaExceeded();
    const file = await filesCollection(this.ctx.docs).get(fileIdOf(device.deviceId, path));
    return {
      ok: true,
      current: file && !file.deleted ? { blob: file.blob, size: file.size, mtime: file.mtime } : null,
      remaining,
    };
  }

  /** WebDAV's rules for a PUT: the path is not a folder (405) and its parent folder exists (409). */
  private async checkWebdavPath(deviceId: string, path: string): Promise<void> {
    await this.ctx.runner.catchUp();
    if (await folderExists(this.ctx.docs, deviceId, `${path}/`))
      throw new DomainError(405, { reason: `${path} is a folder` });
    if (!(await folderExists(this.ctx.docs, deviceId, parentOf(path))))
      throw new DomainError(409, {
        reason: `no folder ${parentOf(path) || '/'} to put ${nameOf(path)} in`,
        conflicts: ['path'],
      });
  }

  /**
   * Commits an uploaded blob as the next version of the file (a multi-step write: the usage
   * ledger, then the file's stream). Missing folders appear with it. It decides all an upload
   * needs in one call, whether or not the gateway asked `prepareUpload` first: the device, WebDAV's
   * path rules (`strict`), the quota (exactly, by the usage ledger) and the version; the reply
   * says whether a live file was there before and about what the quota still holds, which the
   * gateway keeps to let the user's next small upload skip the prepare.
   */
  @MessagePattern(Subjects.storage.commitFile)
  async commit(@Payload() req: CommitFileRequest): Promise<CommitFileReply> {
    const path = filePath(req.path);
    if (!isBlobKey(req.blob) || !nonNegativeInt(req.size) || !nonNegativeInt(req.crc32))
      throw badRequest('blob, size and crc32 are required', ['blob']);
    const head = headOf(req);
    const device = await resolveDevice(this.ctx.store, req.userId, req.device);
    if (req.strict) await this.checkWebdavPath(device.deviceId, path);
    const before = await filesCollection(this.ctx.docs).get(fileIdOf(device.deviceId, path));
    const content = {
      size: req.size,
      blob: req.blob,
      crc32: req.crc32,
      ...withChecksums({ checksums: checksumsOf(req.checksums) }),
      mtime: req.mtime,
      ctime: req.ctime,
      head,
    };
    const quota = await userQuota(this.ctx, req.userId);
    const { data, version, position, used } = await commitVersion(this.ctx, device, path, content, quota, {
      absent: !before,
    });
    const remaining = quota === null ? null : Math.max(0, quota - used);
    return {
      ...data,
      name: nameOf(path),
      version,
      previews: {},
      position,
      existed: !!before && !before.deleted,
      remaining,
    };
  }

  /** A file (path without trailing slash) or a folder and everything under it (path ending with `/`). */
  @MessagePattern(Subjects.storage.deletePath)
  async delete(@Payload() req: DevicePath): Promise<PositionReply> {
    const device = await resolveDevice(this.ctx.store, req.userId, req.device);
    const now = this.ctx.clock.now();
    if (req.path.endsWith('/') || req.path === '') {
      const path = folderPath(req.path);
      if (path === '') throw badRequest('the device root is not a folder to delete: delete the device', ['path']);
      await this.ctx.runner.catchUp();
      if (!(await foldersCollection(this.ctx.docs).get(`${device.deviceId}:${path}`)))
        throw notFound(`no folder ${path}`);
      const position = await retryOnConflict('device', async () => {
        const current = await resolveDevice(this.ctx.store, req.userId, req.device);
        const event = {
          type: 'FolderDeleted' as const,
          data: { path, userId: current.userId, partnerId: current.partnerId, at: now },
        };
        return (await appendEvents(this.ctx.store, Streams.device(current.deviceId), [event], current.revision))
          .position;
      });
      await this.ctx.runner.waitFor(position);
      return { position };
    }
    const path = filePath(req.path);
    const fileId = fileIdOf(device.deviceId, path);
    const live = await filesCollection(this.ctx.docs).get(fileId);
    const { state } = await loadAggregate(this.ctx.store, Streams.file(fileId), fileDecider);
    if (!state.identity || (live && live.deleted) || (!live && state.deleted)) throw notFound(`no file ${path}`);
    // a file deleted with its folder is still live in its own stream: FileDeleted is then a no-op in the read model
    const result = await handleCommand(this.ctx.store, Streams.file(fileId), fileDecider, {
      type: 'DeleteFile',
      at: now,
    });
    await this.ctx.runner.waitFor(result.position);
    return { position: result.position };
  }

  /**
   * One version of a file (the latest when `version` is absent), with the life of the file it
   * belongs to; a deleted file is a 404 (a 410 for a link's read, see `liveFile`).
   */
  @MessagePattern(Subjects.storage.fileVersion)
  async version(@Payload() req: FileRequest): Promise<FileEntry> {
    const { device, path, file } = await liveFile(this.ctx, req);
    const entry: FileEntry = {
      ...toFileEntry(file),
      incarnation: { deviceId: device.deviceId, since: file.incarnation ?? 0 },
    };
    if (req.version === undefined || req.version === file.version) return entry;
    const v = await versionsCollection(this.ctx.docs).get(versionId(file._id, req.version));
    if (!v) throw notFound(`no version ${req.version} of ${path}`);
    const { checksums: _latest, ...rest } = entry;
    return {
      ...rest,
      version: v.version,
      size: v.size,
      blob: v.blob,
      crc32: v.crc32,
      ...withChecksums(v),
      mtime: v.mtime,
      ctime: v.ctime,
      at: v.at,
      previews: v.previews,
    };
  }

  /** Every stored version of a file, oldest first (the last is the latest). */
  @MessagePattern(Subjects.storage.fileVersions)
  async versions(@Payload() req: FileVersionsRequest): Promise<FileVersionInfo[]> {
    const { path, file } = await liveFile(this.ctx, req);
    const fileId = file._id;
    const versions = await versionsCollection(this.ctx.docs).find(
      { fileId },
      { sort: { version: 1 }, limit: VERSIONS_MAX },
    );
    return versions.map((v) => ({
      path,
      name: file.name,
      version: v.version,
      size: v.size,
      blob: v.blob,
      crc32: v.crc32,
      ...withChecksums(v),
      mtime: v.mtime,
      ctime: v.ctime,
      at: v.at,
      previews: v.previews,
    }));
  }

  @MessagePattern(Subjects.storage.listFolder)
  async list(@Payload() req: ListFolderRequest): Promise<FolderPage> {
    const path = folderPath(req.path);
    const device = await resolveDeviceToRead(this.ctx, req.userId, req.device);
    if (path !== '' && !(await foldersCollection(this.ctx.docs).get(`${device.deviceId}:${path}`)))
      throw notFound(`no folder ${path}`);
    return listFolder(this.ctx.docs, device.deviceId, path, req);
  }

  @MessagePattern(Subjects.storage.walkFolder)
  async walk(@Payload() req: ListFolderRequest): Promise<SubtreePage> {
    const path = folderPath(req.path);
    const device = await resolveDeviceToRead(this.ctx, req.userId, req.device);
    if (path !== '' && !(await foldersCollection(this.ctx.docs).get(`${device.deviceId}:${path}`)))
      throw notFound(`no folder ${path}`);
    return walkFolder(this.ctx.docs, device.deviceId, path, req);
  }

  /** Live files, folders and bytes under a folder (a zip's size is known from them). */
  @MessagePattern(Subjects.storage.folderSummary)
  async summary(@Payload() req: DevicePath): Promise<FolderSummary> {
    const path = folderPath(req.path);
    const device = await resolveDeviceToRead(this.ctx, req.userId, req.device);
    const folder = await foldersCollection(this.ctx.docs).get(`${device.deviceId}:${path}`);
    if (!folder) {
      if (path === '') return { files: 0, folders: 0, bytes: 0 };
      throw notFound(`no folder ${path}`);
    }
    return { files: folder.files, folders: folder.folders, bytes: folder.bytes };
  }
}
