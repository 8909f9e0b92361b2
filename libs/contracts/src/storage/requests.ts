/**
 * What the storage catalog is asked. Every request made for a user carries `userId`, set by the
 * gateway from the user's authentication, never from the URL. Device names and paths are checked
 * with `paths.ts` by both the gateway and the catalog.
 */
import { z } from 'zod';
import type { PartnerScoped } from '../bus.js';
import { formBool, formInt, text } from '../validation.js';
import { SharePassword } from '../accounts/share-passwords.js';
import { Expiry } from './expiry.js';
import type { FileChecksums } from './checksums.js';
import type { FileIncarnation, FileVersionInfo } from './records.js';
import {
  DEVICE_NAME_MAX_LENGTH,
  LISTING_PAGE_MAX,
  ROOM_DESCRIPTION_MAX_LENGTH,
  ROOM_KEY_PATTERN,
  ROOM_NAME_MAX_LENGTH,
  SHARE_ROOM_DIRS_MAX,
} from './limits.js';

export interface UserScoped {
  userId: string;
}

export interface DeviceRef extends UserScoped {
  /** the device's name */
  device: string;
}

export interface DevicePath extends DeviceRef {
  /** a file path, or a folder path ending with `/` ('' is the device root) */
  path: string;
}

/** `PUT <device url>`: register or update a device; each such write is a device login. */
export const RegisterDeviceBody = z
  .object({
    sysplatform: text(64, { allowEmpty: true }).optional().describe('the client platform: win32, darwin, linux, ...'),
    client_revision: formInt({ min: 0 }).optional().describe("the backup client's revision number"),
    backup_complete: formBool()
      .optional()
      .describe('true when the client has just finished a backup (sets last_backup_complete)'),
  })
  .meta({ id: 'RegisterDeviceBody', description: 'A device registration or update (a device login).' });
export type RegisterDeviceBody = z.output<typeof RegisterDeviceBody>;

export type RegisterDeviceRequest = DeviceRef &
  RegisterDeviceBody & {
    /** only a new device: one of that name already there is a 405 (WebDAV MKCOL) */
    createOnly?: boolean;
  };

/** Checked before an upload's bytes are read: the device exists, the path is a file path, and (if the size is known) it fits the quota. */
export interface PrepareUploadRequest extends DevicePath {
  size?: number;
  /**
   * WebDAV's rules (PUT): the parent folder must exist (409 otherwise; the storage interface
   * makes missing folders) and the path must not be a folder (405).
   */
  strict?: boolean;
}

export interface PrepareUploadReply {
  ok: true;
  /** The path's current version as the upload finds it (for conditional requests), or null. */
  current: { blob: string; size: number; mtime: number } | null;
  /**
   * Bytes the user may still store (null: no limit). The commit checks the quota exactly; this
   * lets the gateway stop an upload of unknown length as soon as it is sure to be refused.
   */
  remaining: number | null;
}

/** How many first bytes of an upload the gateway hands to the commit (`CommitFileRequest.head`). */
export const UPLOAD_HEAD_BYTES = 16;

export interface CommitFileRequest extends DevicePath {
  blob: string;
  size: number;
  crc32: number;
  /** SHA-1 and MD5 of the bytes, computed as they streamed in */
  checksums?: FileChecksums;
  mtime?: number;
  ctime?: number;
  /**
   * The blob's first bytes (base64; at most `UPLOAD_HEAD_BYTES`, fewer only for a shorter blob), as
   * the uploader stored them: the previewer decides "not an image" from them instead of reading the
   * blob back. Absent: the previewer reads the blob.
   */
  head?: string;
  /**
   * What `prepareUpload` checks, decided here instead when the gateway skipped it (one bus round
   * trip per upload): WebDAV's rules (the parent folder exists, the path is not a folder).
   */
  strict?: boolean;
}

/** A committed upload: the version, and what the gateway keeps to skip the next upload's prepare. */
export interface CommitFileReply extends FileVersionInfo {
  /** the read models' position that shows the version */
  position: number | null;
  /** a live file was at the path before (WebDAV answers 204 rather than 201) */
  existed: boolean;
  /** about how many bytes the user's quota still holds after this version (null: no limit) */
  remaining: number | null;
}

/** A read on behalf of a link or session extension: only while the file is still that life of it (410 otherwise). */
export interface IncarnationBound {
  expect?: FileIncarnation;
}

export interface FileRequest extends DevicePath, IncarnationBound {
  /** a version number; the latest when absent */
  version?: number;
}

export interface FileVersionsRequest extends DevicePath, IncarnationBound {}

/**
 * A file or a folder (WebDAV PROPFIND): a path without a trailing slash names the file, or else the
 * folder, of that name; with one, or '' (the device root), only a folder.
 */
export interface StatRequest extends DevicePath {
  /** also a page of a folder's members (subfolders first, then files, each by name) */
  members?: { cursor?: string; limit?: number };
  /**
   * false: without the user's quota figures (`PathStat.quota`), for a caller that only needs the
   * resource (a WebDAV GET): they cost a read of the usage ledger and of the user's plan. Default true.
   */
  figures?: boolean;
}

/** COPY or MOVE within the user's storage (paths as in StatRequest; neither may be a device root). */
export interface TransferRequest extends UserScoped {
  mode: 'copy' | 'move';
  from: { device: string; path: string };
  to: { device: string; path: string };
  /** false: an existing destination is a 412 */
  overwrite: boolean;
  /** a folder without its members (COPY with Depth: 0) */
  shallow?: boolean;
  /** continues a folder transfer that the previous reply left unfinished (its `next`) */
  cursor?: string;
}

/** PROPPATCH: dead properties set (`{namespace}name` -> XML content) and removed, all or nothing. */
export interface SetPropertiesRequest extends DevicePath {
  set: Record<string, string>;
  remove: string[];
}

export interface ListFolderRequest extends DevicePath {
  cursor?: string;
  limit?: number;
}

export const ListingLimit = formInt({ min: 1, max: LISTING_PAGE_MAX });

const shareRoomFields = {
  room_name: text(ROOM_NAME_MAX_LENGTH),
  room_description: text(ROOM_DESCRIPTION_MAX_LENGTH, { allowEmpty: true }),
  dirs: z
    .array(z.string().min(1).max(4096))
    .min(1)
    .max(SHARE_ROOM_DIRS_MAX)
    .describe('shared folders, each `<device name>/<folder path>/` (`<device name>/` shares the whole device)'),
};

/** Share rooms of the logged-in user: `POST {storage_root}/<b32>/shares` (and `?room_key=K` to update). */
export const ShareRoomBody = z
  .object({
    room_key: z
      .string()
      .regex(ROOM_KEY_PATTERN)
      .optional()
      .describe('chosen by the client (1 to 64 of A-Z a-z 0-9 _ -), or generated'),
    ...shareRoomFields,
    room_description: shareRoomFields.room_description.default(''),
    password: SharePassword.optional(),
    expires: Expiry.optional().describe('when the room stops working (a future moment), or never (the default)'),
  })
  .meta({ id: 'ShareRoomBody', description: 'A share room: its name, description and the folders it shows.' });
export type ShareRoomBody = z.output<typeof ShareRoomBody>;

/** The fields to change (no defaults: an absent field stays as it is). */
export const UpdateShareRoomBody = z
  .object({
    ...shareRoomFields,
    password: SharePassword,
    expires: Expiry.describe('when the room stops working (a future moment), or null: never'),
  })
  .partial()
  .meta({
    id: 'UpdateShareRoomBody',
    description: 'The fields of a share room to change; absent ones stay as they are.',
  });
export type UpdateShareRoomBody = z.output<typeof UpdateShareRoomBody>;

export type CreateShareRoomRequest = UserScoped & ShareRoomBody;
export interface UpdateShareRoomRequest extends UserScoped {
  room_key: string;
  changes: UpdateShareRoomBody;
}
export interface ShareRoomRef extends UserScoped {
  room_key: string;
}

/** A public share room by its address: the owner's share id and the room key. */
export interface OpenShareRequest {
  share_id: string;
  /** tried when share_id names no room: a URL segment may be the base32 of a share id or the id itself */
  also_share_id?: string;
  room_key: string;
  /** a password the visitor gave (HTTP Basic, the room page's form) */
  password?: string;
  /** a room cookie's password stamp */
  stamp?: string;
  /** the visitor's address (failed passwords are throttled per address too) */
  address?: string;
  /** the visit fetches a file or a zip (counted as a download) */
  download?: boolean;
}

/** A partner sets or removes the password of one of its users' rooms (interface A): null removes it. */
export interface SetSharePasswordRequest extends PartnerScoped {
  /** username or email */
  user: string;
  room_key: string;
  password: string | null;
}

/** A partner enables or disables one of its users' rooms (interface A). */
export interface SetShareEnabledRequest extends PartnerScoped {
  /** username or email */
  user: string;
  room_key: string;
  enabled: boolean;
}

export const DEVICE_NAME = text(DEVICE_NAME_MAX_LENGTH);
