/**
 * Public share rooms (spec B, "Shares"): no login; a room is addressed by its owner's share id
 * (base32) and its room key. `GET /share/<b32 share id>/<room key>/` is the room's root object
 * (stats and its folders), below it folder objects, files and their previews, and `?format=zip` of
 * any folder (or of the whole room at its root). The room's folders appear under their own names
 * (a second folder of the same name gets " (2)"). An unknown, disabled or deleted room is a 404; a
 * POST on anything here is a 405. `?format=version_info` on a file lists its versions, as in the
 * storage interface. `/browse/share/<share id>/<room key>` (the room link the original emitted, the
 * management appliance shows and the mobile app mails; the share id in base32 or raw) redirects
 * to the room's address here. Wherever a share id is in a URL, either form is accepted.
 *
 * Also here: single-file share links (`/link/<token>/<name>`, made by a POST on a storage file).
 */
import type { BlobReader } from '@burrow/blobs';
import {
  type AuthenticatedUser,
  DomainError,
  type FileEntry,
  type FileVersionInfo,
  type FolderPage,
  forbidden,
  notFound,
  type PublicShareRoom,
  Subjects,
} from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  dirPair,
  fileObject,
  humanSize,
  requestedPreview,
  requestedVersion,
  sendFileVersion,
  sendFolder,
  splitName,
} from '../transfers/catalog-views.js';
import { claimedIncarnation, type LinkClaims } from '../storage-access/links.js';
import { BROWSE_SHARE_MOUNT, SHARE_MOUNT } from '../storage-access/mounts.js';
import { queryValue } from '../http/query.js';
import { isPasswordRequired, ROOM_REALM, wantsJsonPasswordPrompt } from '../storage-access/room-access.js';
import { openRoom, roomFolderAt, roomFolders, shareRoomUrl, shareSegmentB32 } from '../storage-access/share-rooms.js';
import type { TokenSigner } from '../storage-access/signed-tokens.js';
import { checkStoragePolicy } from '../storage-access/storage-access.js';
import { encodeSegment, parseMountedPath } from '../storage-access/storage-path.js';
import { BLOBS, GATEWAY_LOGGER, PUBLIC_URL, RPC, SESSIONS, SIGNER } from '../http/tokens.js';
import type { Sessions } from '../storage-access/sessions.js';
import { sendFolderZip, type ZipErrorLog, type ZipRoot } from '../transfers/zip-download.js';
import { Route } from '../http/route.js';
import { SHARE_ROUTES } from './share.routes.js';

/**
 * Does this request download something from the room (what its download count counts)? A file's
 * bytes or a zip, from their start: not a listing, a preview, a version list, a HEAD, or a resumed
 * range (the download it resumes was counted).
 */
function isDownload(req: Request, label: string | undefined, folder: boolean): boolean {
  if (req.method !== 'GET') return false;
  const format = queryValue(req, 'format');
  if (format === 'zip') return true;
  if (label === undefined || folder || format !== undefined || requestedPreview(req) !== undefined) return false;
  const range = req.headers.range;
  return range === undefined || /^bytes=0-/.test(range);
}

@Controller()
export class ShareController {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(BLOBS) private readonly blobs: BlobReader,
    @Inject(SIGNER) private readonly signer: TokenSigner,
    @Inject(GATEWAY_LOGGER) private readonly log: ZipErrorLog,
    @Inject(PUBLIC_URL) private readonly publicUrl: string,
    @Inject(SESSIONS) private readonly sessions: Sessions,
  ) {}

  @Route(SHARE_ROUTES.room)
  async get(@Req() req: Request, @Res() res: Response): Promise<void> {
    const { segments, folder } = parseMountedPath(req, SHARE_MOUNT);
    const [shareB32, roomKey, label, ...rest] = segments;
    let room: PublicShareRoom;
    try {
      room = await openRoom(this.rpc, req, this.signer, shareB32, roomKey, {
        download: isDownload(req, label, folder),
      });
    } catch (error) {
      if (!isPasswordRequired(error)) throw error;
      res.setHeader('Cache-Control', 'no-store');
      // the mobile app asks to be told with a 200; everyone else gets the Basic challenge
      if (wantsJsonPasswordPrompt(req)) return void res.status(200).json({ password_required: true });
      res.setHeader('WWW-Authenticate', ROOM_REALM);
      throw error;
    }
    const folders = roomFolders(room.dirs);
    if (label === undefined) {
      if (queryValue(req, 'format') === 'zip') {
        const roots: ZipRoot[] = folders.map((f) => ({
          userId: room.userId,
          device: f.device,
          path: f.path,
          prefix: `${f.label}/`,
        }));
        return sendFolderZip(req, res, this.rpc, this.blobs, roots, room.name || roomKey, this.log);
      }
      res.setHeader('Cache-Control', 'no-cache');
      res.json({
        // the mobile app's recorded reply: a start date of "" (none), and the room's link for people
        browse_url: shareRoomUrl(this.publicUrl, room.share_id, roomKey),
        stats: {
          start_date: '',
          room_name: room.name,
          room_description: room.description,
          number_of_files: room.files,
          number_of_folders: room.folders,
          ...splitName(room.owner_name),
          room_size: humanSize(room.bytes),
        },
        dirs: folders.map((f) => dirPair(f.label)),
      });
      return;
    }
    const { top, path } = roomFolderAt(folders, label, rest);
    const inner = rest.join('/');
    if (folder) {
      if (queryValue(req, 'format') === 'zip') {
        const name = rest.length ? rest[rest.length - 1] : top.label;
        return sendFolderZip(
          req,
          res,
          this.rpc,
          this.blobs,
          [{ userId: room.userId, device: top.device, path, prefix: `${name}/` }],
          name,
          this.log,
        );
      }
      return sendFolder(res, (cursor, limit) =>
        this.rpc.call<FolderPage>(Subjects.storage.listFolder, {
          userId: room.userId,
          device: top.device,
          path,
          cursor,
          limit,
        }),
      );
    }
    if (!inner) throw notFound(`no file ${label}`);
    if (queryValue(req, 'format') === 'version_info') {
      const versions = await this.rpc.call<FileVersionInfo[]>(Subjects.storage.fileVersions, {
        userId: room.userId,
        device: top.device,
        path: top.path + inner,
      });
      res.setHeader('Cache-Control', 'no-cache');
      res.json(versions.map((v) => fileObject(v, 'version')));
      return;
    }
    const file = await this.rpc.call<FileEntry>(Subjects.storage.fileVersion, {
      userId: room.userId,
      device: top.device,
      path: top.path + inner,
      version: requestedVersion(req),
    });
    await sendFileVersion(req, res, this.blobs, file);
  }

  /**
   * A room by the link people are handed, `/browse/share/<share id>/<room key>[/<path>]` with the
   * share id in base32 (what Burrow and the original emit) or as it is: the same place at the
   * room's own address, query kept. Whether the room exists is for that address to say (it tries
   * both readings of a segment that is valid base32).
   */
  @Route(SHARE_ROUTES.browseShare)
  browse(@Req() req: Request, @Res() res: Response): void {
    const { segments, folder } = parseMountedPath(req, BROWSE_SHARE_MOUNT);
    const [shareId, roomKey, ...rest] = segments;
    if (!shareId || !roomKey) throw notFound('no such share');
    const path = rest.map(encodeSegment).join('/');
    const query = (req.originalUrl ?? req.url).match(/\?.*$/)?.[0] ?? '';
    const target = `/${SHARE_MOUNT}/${shareSegmentB32(shareId)}/${encodeSegment(roomKey)}/${path}${path && folder ? '/' : ''}${query}`;
    res.setHeader('Cache-Control', 'no-cache');
    res.redirect(302, target);
  }

  /** Share rooms are read-only: a POST (or any other write) on them is refused. */
  @Route(SHARE_ROUTES.roomPost)
  refuse(@Res() res: Response): void {
    res.setHeader('Allow', 'GET, HEAD');
    res.status(405).json({ reason: 'share rooms are read-only: only GET and HEAD are allowed here' });
  }

  /**
   * A single-file share link: the version it was made for, while valid (3 days), while its user may
   * share, and while the file is the one it was made for (410 once deleted or its device removed).
   */
  @Route(SHARE_ROUTES.link)
  async link(@Req() req: Request, @Res() res: Response): Promise<void> {
    const claims = this.signer.verify<LinkClaims>('link', String(req.params.token));
    const expect = claims && claimedIncarnation(claims);
    if (
      !claims ||
      !expect ||
      typeof claims.d !== 'string' ||
      typeof claims.p !== 'string' ||
      !Number.isInteger(claims.v)
    ) {
      throw forbidden('this link is not valid: it has expired or been altered');
    }
    let user: AuthenticatedUser;
    try {
      // as this replica remembers accounts confirming it (session-memo.ts), or asked
      user = await this.sessions.memo.session({ userId: claims.u, stamp: claims.st }, () =>
        this.rpc.call<AuthenticatedUser>(Subjects.accounts.sessionUser, { userId: claims.u, stamp: claims.st }),
      );
    } catch (error) {
      if (error instanceof DomainError && error.status === 401) throw forbidden('this link has been revoked');
      throw error;
    }
    checkStoragePolicy(user);
    if (!user.sharing_enabled) throw forbidden('sharing is turned off for this account');
    const file = await this.rpc.call<FileEntry>(Subjects.storage.fileVersion, {
      userId: user.userId,
      device: claims.d,
      path: claims.p,
      version: claims.v,
      expect,
    });
    await sendFileVersion(req, res, this.blobs, file);
  }
}
