/**
 * Reading the storage interface (spec B, "Storage"), as the logged-in user:
 * - `GET /storage/<b32>/` the storage root object (`?device_info=yes`: device objects);
 * - `GET <device or folder url>` (ending with `/`) a folder object, streamed page by page;
 *   `?format=zip` the folder as a zip;
 * - `GET <file url>` the latest version's bytes; `?version=<n>` an older one; `?preview_<w>` a
 *   preview; `?format=version_info` every version; `?format=session_extension&ip=<addr>` a string
 *   that, as `se=`, lets that address fetch this file for `share_link_ttl` minutes (made by a
 *   logged-in owner only: an extension never makes another);
 * - `POST <file url>` a single-file share link (a path beginning with `/`, valid 3 days).
 * One catalog call per request (plus authentication), except a listing or a zip, which read the
 * catalog a page at a time (a zip in two passes); unknown query parameters are ignored.
 */
import type { BlobReader } from '@burrow/blobs';
import {
  type AuthenticatedUser,
  badRequest,
  type FileEntry,
  type FileVersionInfo,
  type FolderPage,
  forbidden,
  GIGABYTE,
  notFound,
  type StorageRoot,
  Subjects,
  UNLIMITED_BYTES,
} from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, HttpCode, Inject, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { isIP } from 'node:net';
import {
  dirPair,
  fileObject,
  humanSize,
  requestedVersion,
  sendFileVersion,
  sendFolder,
  splitName,
} from '../transfers/catalog-views.js';
import { createFileLink, linkTtlSeconds } from '../storage-access/links.js';
import { STORAGE_MOUNT } from '../storage-access/mounts.js';
import { queryValue } from '../http/query.js';
import { extensionAddress, type ExtensionClaims, extensionResource } from '../storage-access/session-extensions.js';
import type { TokenSigner } from '../storage-access/signed-tokens.js';
import { devicePath, parseMountedPath } from '../storage-access/storage-path.js';
import { type StorageRequest, StorageUser, StorageUserGuard } from '../storage-access/storage-user.guard.js';
import { BLOBS, GATEWAY_LOGGER, RPC, SIGNER } from '../http/tokens.js';
import { sendFolderZip, type ZipErrorLog } from '../transfers/zip-download.js';
import { Route } from '../http/route.js';
import { STORAGE_READ_ROUTES } from './storage-read.routes.js';

/** `device_info=yes` (any case; also 1/true). */
const wantsDeviceInfo = (req: Request) => /^(yes|1|true|on)$/i.test(queryValue(req, 'device_info') ?? '');

@Controller()
@UseGuards(StorageUserGuard)
export class StorageReadController {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(BLOBS) private readonly blobs: BlobReader,
    @Inject(SIGNER) private readonly signer: TokenSigner,
    @Inject(GATEWAY_LOGGER) private readonly log: ZipErrorLog,
  ) {}

  @Route(STORAGE_READ_ROUTES.get)
  async get(@Req() req: StorageRequest, @Res() res: Response, @StorageUser() user: AuthenticatedUser): Promise<void> {
    const { segments, folder } = parseMountedPath(req, STORAGE_MOUNT);
    const [, device, ...rest] = segments;
    if (!device) return this.root(req, res, user);
    // a session extension's read: only while the file is the one it was made for
    const expect = req.storageExtension;
    if (folder) {
      const path = devicePath(rest, true);
      const format = queryValue(req, 'format');
      if (format === 'session_extension')
        throw badRequest('session extensions are made for files: ask on a file URL', ['format']);
      if (format === 'zip') {
        const name = rest.length ? rest[rest.length - 1] : device;
        return sendFolderZip(
          req,
          res,
          this.rpc,
          this.blobs,
          [{ userId: user.userId, device, path, prefix: `${name}/` }],
          name,
          this.log,
        );
      }
      return sendFolder(res, (cursor, limit) =>
        this.rpc.call<FolderPage>(Subjects.storage.listFolder, { userId: user.userId, device, path, cursor, limit }),
      );
    }
    if (rest.length === 0) throw notFound(`no device ${device} (a device URL ends with /)`);
    const path = devicePath(rest, false);
    const format = queryValue(req, 'format');
    if (format === 'version_info') {
      const versions = await this.rpc.call<FileVersionInfo[]>(Subjects.storage.fileVersions, {
        userId: user.userId,
        device,
        path,
        expect,
      });
      res.setHeader('Cache-Control', 'private, no-cache');
      res.json(versions.map((v) => fileObject(v, 'version')));
      return;
    }
    if (format === 'session_extension') return this.sessionExtension(req, res, user, segments, device, path);
    const file = await this.rpc.call<FileEntry>(Subjects.storage.fileVersion, {
      userId: user.userId,
      device,
      path,
      version: requestedVersion(req),
      expect,
    });
    await sendFileVersion(req, res, this.blobs, file);
  }

  /** A single-file share link: the file's current version (or `?version=n`), without login, for 3 days or until `?expires=` (a future moment, or never). */
  @Route(STORAGE_READ_ROUTES.post)
  @HttpCode(200)
  async share(@Req() req: Request, @Res() res: Response, @StorageUser() user: AuthenticatedUser): Promise<void> {
    req.resume(); // any body is ignored
    const { segments, folder } = parseMountedPath(req, STORAGE_MOUNT);
    const [, device, ...rest] = segments;
    if (!device || folder || rest.length === 0)
      throw badRequest('a share link is made by a POST on a file URL', ['path']);
    const ttl = linkTtlSeconds(queryValue(req, 'expires'), this.signer.seconds());
    const link = await createFileLink(
      this.rpc,
      this.signer,
      user,
      device,
      devicePath(rest, false),
      requestedVersion(req),
      ttl,
    );
    res.setHeader('Cache-Control', 'no-store');
    res.type('text/plain').send(link);
  }

  private async sessionExtension(
    req: StorageRequest,
    res: Response,
    user: AuthenticatedUser,
    segments: string[],
    device: string,
    path: string,
  ): Promise<void> {
    // only the owner, logged in, extends access: an extension would otherwise renew itself forever, for any address
    if (req.storageAuth === 'extension')
      throw forbidden('a session extension cannot make another: log in (cookie or HTTP Basic) to make one');
    const ip = queryValue(req, 'ip')?.trim() ?? '';
    if (!isIP(ip)) throw badRequest('ip must be the IPv4 or IPv6 address of the third party', ['ip']);
    if (!user.sharing_enabled) throw forbidden('sharing is turned off for this account');
    // the file must exist now; the extension then covers that URL (any version of it) while the file lives
    const file = await this.rpc.call<FileEntry>(Subjects.storage.fileVersion, { userId: user.userId, device, path });
    const life = file.incarnation!;
    const claims: ExtensionClaims = {
      u: user.userId,
      st: user.sessionStamp,
      r: extensionResource(segments),
      k: 'file',
      ip: extensionAddress(ip),
      di: life.deviceId,
      g: life.since,
    };
    const token = this.signer.sign<ExtensionClaims>('extension', claims, user.share_link_ttl * 60);
    res.setHeader('Cache-Control', 'no-store');
    res.type('text/plain').send(token);
  }

  private async root(req: Request, res: Response, user: AuthenticatedUser): Promise<void> {
    const root = await this.rpc.call<StorageRoot>(Subjects.storage.root, { userId: user.userId });
    const info = root.user;
    // unlimited: the plan's own huge size, as the original sent it (a 0 made the mobile app's bar Infinity% full)
    const quota = info.quota_bytes ?? UNLIMITED_BYTES;
    const stats = {
      ...splitName(info.name),
      devices: root.devices.length,
      backupsize: humanSize(info.bytes_stored),
      size: Math.round((quota / GIGABYTE) * 100) / 100,
      // a decimal string, as in the original's replies (the mobile app parseInts it)
      backupsize_for_robots: String(info.bytes_stored),
      size_for_robots: quota,
      billing_url: '',
    };
    const devices = wantsDeviceInfo(req)
      ? root.devices.map((d) => {
          const url = dirPair(d.name)[1];
          return {
            name: d.name,
            url,
            encoded: url,
            lastcommit: d.lastcommit ?? 0,
            lastlogin: d.lastlogin ?? 0,
            sysplatform: d.sysplatform,
          };
        })
      : root.devices.map((d) => dirPair(d.name));
    res.setHeader('Cache-Control', 'private, no-cache');
    res.json({ stats, devices });
  }
}
