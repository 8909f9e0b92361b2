/**
 * The write side of the storage namespace (DESIGN §5), authenticated as the user like every
 * storage request:
 * - `PUT /storage/<b32>/<device>/` (JSON `{sysplatform, client_revision, backup_complete}`):
 *   registers or updates the device; every such write is a device login;
 * - `PUT /storage/<b32>/<device>/<path>` (raw bytes; `X-Burrow-Mtime` / `X-Burrow-Ctime` unix
 *   seconds): a new version of that file, streamed into the blob store, then committed (the same
 *   upload as WebDAV's PUT, transfers/upload.ts: one bus round trip for a small file to a known device);
 * - `DELETE` of a file, of a folder (path ending with `/`: it and everything under it), or of the
 *   device itself.
 */
import type { BlobReader, BlobWriter } from '@burrow/blobs';
import { type AuthenticatedUser, badRequest, type DeviceInfo, RegisterDeviceBody, Subjects } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, HttpCode, Inject, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { declaredLength, unixHeader } from '../transfers/ingest.js';
import { upload } from '../transfers/upload.js';
import type { UploadHints } from '../transfers/upload-hints.js';
import { readJsonBody } from '../http/json-body.js';
import { STORAGE_MOUNT } from '../storage-access/mounts.js';
import { parseBody } from '../http/request.js';
import { devicePath, parseMountedPath } from '../storage-access/storage-path.js';
import { StorageUser, StorageUserGuard } from '../storage-access/storage-user.guard.js';
import { BLOBS, RPC, UPLOAD_HINTS } from '../http/tokens.js';
import { Route } from '../http/route.js';
import { STORAGE_WRITE_ROUTES } from './storage-write.routes.js';

/** What a device registration answers: the device as the storage root shows it. */
const deviceReply = (d: DeviceInfo) => ({
  name: d.name,
  sysplatform: d.sysplatform,
  client_revision: d.client_revision,
  creation_time: d.creation_time,
  lastlogin: d.lastlogin,
  lastcommit: d.lastcommit,
  last_backup_complete: d.last_backup_complete,
});

@Controller()
@UseGuards(StorageUserGuard)
export class StorageWriteController {
  constructor(
    @Inject(RPC) readonly rpc: RpcClient,
    @Inject(BLOBS) readonly blobs: BlobReader & BlobWriter,
    @Inject(UPLOAD_HINTS) readonly hints: UploadHints,
  ) {}

  @Route(STORAGE_WRITE_ROUTES.put)
  async put(@Req() req: Request, @Res() res: Response, @StorageUser() user: AuthenticatedUser): Promise<void> {
    const { segments, folder } = parseMountedPath(req, STORAGE_MOUNT);
    const [, device, ...rest] = segments;
    if (!device) throw badRequest('name a device: PUT /storage/<user>/<device>/ registers it', ['path']);
    if (folder) {
      if (rest.length) throw badRequest('folders appear with their files: PUT a file, or the device itself', ['path']);
      const body = parseBody(RegisterDeviceBody, await readJsonBody(req));
      const info = await this.rpc.call<DeviceInfo>(Subjects.storage.registerDevice, {
        userId: user.userId,
        partnerId: user.partnerId,
        device,
        ...body,
      });
      this.hints.learn(user.userId, device);
      res.status(200).json(deviceReply(info));
      return;
    }
    const path = devicePath(rest, false);
    const mtime = unixHeader(req, 'X-Burrow-Mtime');
    const ctime = unixHeader(req, 'X-Burrow-Ctime');
    const { blob, version } = await upload(this, {
      req,
      res,
      userId: user.userId,
      device,
      path,
      size: declaredLength(req),
      mtime,
      ctime,
    });
    res.status(201).json({
      path: version.path,
      name: version.name,
      version: version.version,
      size: version.size,
      sha256: version.blob,
      crc32: version.crc32,
      sha1: blob.checksums.sha1,
      md5: blob.checksums.md5,
      mtime: version.mtime,
      ctime: version.ctime,
    });
  }

  @Route(STORAGE_WRITE_ROUTES.remove)
  @HttpCode(200)
  async delete(@Req() req: Request, @StorageUser() user: AuthenticatedUser): Promise<null> {
    const { segments, folder } = parseMountedPath(req, STORAGE_MOUNT);
    const [, device, ...rest] = segments;
    if (!device) throw badRequest('name a device, folder or file to delete', ['path']);
    if (rest.length === 0) {
      if (!folder) throw badRequest('a device URL ends with /', ['path']);
      this.hints.forgetDevice(user.userId, device);
      await this.rpc.call(Subjects.storage.removeDevice, { userId: user.userId, device });
      this.hints.forgetDevice(user.userId, device);
      return null;
    }
    await this.rpc.call(Subjects.storage.deletePath, { userId: user.userId, device, path: devicePath(rest, folder) });
    return null;
  }
}
