/**
 * The storage catalog's events: devices, the versions of each file, share rooms and previews.
 * The accounts service projects device, file and share streams for quotas, device lists, user
 * logins and the brand-wide share list, so every event that changes a user's figures carries the
 * user and partner it belongs to.
 */
import type { Event } from '../event.js';
import type { FileChecksums } from './checksums.js';

// ---- device-<deviceId> -------------------------------------------------------------------------

export type DeviceRegistered = Event<
  'DeviceRegistered',
  {
    deviceId: string;
    userId: string;
    partnerId: string;
    name: string;
    sysplatform: string;
    client_revision: number;
    at: number;
  }
>;
/** Every device write is a device login (it also updates the user's last_login). */
export type DeviceLoggedIn = Event<
  'DeviceLoggedIn',
  { at: number; userId?: string; client_revision?: number; sysplatform?: string }
>;
/** Everything under `path` (a folder path ending in `/`) committed before `at` is deleted. */
export type FolderDeleted = Event<'FolderDeleted', { path: string; userId: string; partnerId: string; at: number }>;
export type BackupCompleted = Event<'BackupCompleted', { at: number }>;
export type DeviceRemoved = Event<'DeviceRemoved', { at: number; userId?: string; partnerId?: string }>;
/** Recovery's claim on a device stream whose registration crashed before `DeviceRegistered`. */
export type DeviceRegistrationAbandoned = Event<'DeviceRegistrationAbandoned', { at: number }>;
/**
 * A folder made on its own (WebDAV MKCOL, COPY or MOVE of a folder): it is listed, empty or not,
 * until it is deleted; a folder that only holds files comes and goes with them.
 */
export type FolderCreated = Event<'FolderCreated', { path: string; userId: string; partnerId: string; at: number }>;
/**
 * The dead properties (WebDAV PROPPATCH) of a made folder ('' is the device root): the whole set
 * after the change, keyed `{namespace}name`, each value the property's XML content.
 */
export type FolderPropertiesSet = Event<'FolderPropertiesSet', { path: string; props: DeadProperties; at: number }>;
export type DeviceEvent =
  | DeviceRegistered
  | DeviceLoggedIn
  | FolderDeleted
  | FolderCreated
  | FolderPropertiesSet
  | BackupCompleted
  | DeviceRemoved
  | DeviceRegistrationAbandoned;

/** WebDAV dead properties of a file or folder: `{namespace}name` -> the property's XML content. */
export type DeadProperties = Record<string, string>;

// ---- file-<fileId> -----------------------------------------------------------------------------

export interface FileVersionData {
  fileId: string;
  deviceId: string;
  userId: string;
  partnerId: string;
  /** the file's path within its device, `/`-separated, no leading slash: `Documents/report.pdf` */
  path: string;
  /** counts from 0 */
  version: number;
  size: number;
  /** sha256 of the content, lowercase hex: the blob's key */
  blob: string;
  /** CRC-32 of the content (zip entries need it before their data) */
  crc32: number;
  /** SHA-1 and MD5 of the content (absent in versions committed before Burrow computed them) */
  checksums?: FileChecksums;
  mtime: number;
  ctime: number;
  /** when it was committed */
  at: number;
  /**
   * Set on the version a WebDAV MOVE brought here (the source then records `FileMovedOut`): the
   * user's stored bytes do not change with either event, only the devices' do.
   */
  moved_from?: { deviceId: string; path: string };
  /**
   * `false`: the uploader's first bytes say the content is no image (JPEG, PNG, GIF or WebP), so
   * the commit decides its previews (none) and the previewer never looks at it. Absent: not known
   * at the commit (a copy, an import, versions committed before this was recorded): the previewer
   * decides, reading the first bytes if it must.
   */
  image?: false;
}

export type FileVersionCommitted = Event<'FileVersionCommitted', FileVersionData>;
/** The file is hidden from listings; its versions stay until purged. */
export type FileDeleted = Event<
  'FileDeleted',
  { userId: string; partnerId: string; deviceId: string; path: string; at: number }
>;
export type FileVersionsPurged = Event<
  'FileVersionsPurged',
  {
    userId: string;
    partnerId: string;
    deviceId: string;
    path: string;
    versions: number[];
    blobs: string[];
    bytes: number;
    at: number;
  }
>;
/** Recovery's claim on a file stream whose commit crashed: the commit can no longer happen. */
export type FileCommitAbandoned = Event<'FileCommitAbandoned', { processId: string; at: number }>;
/** Recovery's claim on a file stream whose purge crashed before `FileVersionsPurged`: that purge can no longer happen. */
export type FilePurgeAbandoned = Event<'FilePurgeAbandoned', { processId: string; at: number }>;
/** The file's dead properties (WebDAV PROPPATCH, or carried by a COPY or MOVE): the whole set after the change. */
export type FilePropertiesSet = Event<'FilePropertiesSet', { props: DeadProperties; at: number }>;
/**
 * The file's latest version now lives at another path (WebDAV MOVE): it leaves this file's stored
 * versions without being purged (the destination's `FileVersionCommitted`, marked `moved_from`,
 * holds the same blob, and the user's usage ledger is not touched: the bytes are counted once,
 * where they now are; this device's bytes drop, the user's do not). The file is deleted here; its
 * older versions stay until purged, like any deleted file's.
 */
export type FileMovedOut = Event<
  'FileMovedOut',
  {
    userId: string;
    partnerId: string;
    deviceId: string;
    path: string;
    version: number;
    bytes: number;
    to: { deviceId: string; path: string };
    at: number;
  }
>;
/** Do a file event's bytes change the user's stored bytes? A move's two halves do not (they only move bytes between paths and devices). */
export const changesUserBytes = (e: { type: string; data: unknown }) =>
  (e.type === 'FileVersionCommitted' && !(e.data as FileVersionData).moved_from) || e.type === 'FileVersionsPurged';

export type FileEvent =
  | FileVersionCommitted
  | FileDeleted
  | FileVersionsPurged
  | FilePropertiesSet
  | FileMovedOut
  | FileCommitAbandoned
  | FilePurgeAbandoned;

// ---- share-<userId> ----------------------------------------------------------------------------

export interface ShareRoomData {
  room_key: string;
  name: string;
  description: string;
  /** shared folders, each `<device name>/<folder path>/` */
  dirs: string[];
  /** unix seconds after which the room answers 404; null or absent (every room made before expiry existed): never */
  expires?: number | null;
}

export type ShareRoomCreated = Event<
  'ShareRoomCreated',
  ShareRoomData & { userId: string; partnerId: string; at: number }
>;
export type ShareRoomUpdated = Event<'ShareRoomUpdated', Partial<ShareRoomData> & { room_key: string; at: number }>;
export type ShareRoomEnabled = Event<'ShareRoomEnabled', { room_key: string; at: number }>;
export type ShareRoomDisabled = Event<'ShareRoomDisabled', { room_key: string; at: number }>;
export type ShareRoomDeleted = Event<'ShareRoomDeleted', { room_key: string; at: number }>;
/** The room's password set (its scrypt hash, made by the accounts service) or removed (null). */
export type ShareRoomPasswordSet = Event<
  'ShareRoomPasswordSet',
  { room_key: string; password_hash: string | null; at: number }
>;
/** Visits since the last such event (a catalog replica writes one per room at most every flush interval): downloads, and the last access. */
export type ShareRoomAccessed = Event<'ShareRoomAccessed', { room_key: string; downloads: number; at: number }>;
export type ShareEvent =
  | ShareRoomCreated
  | ShareRoomUpdated
  | ShareRoomEnabled
  | ShareRoomDisabled
  | ShareRoomDeleted
  | ShareRoomPasswordSet
  | ShareRoomAccessed;

// ---- preview-<sha256> --------------------------------------------------------------------------

export const PREVIEW_WIDTHS = [25, 48, 228, 800] as const;
export type PreviewWidth = (typeof PREVIEW_WIDTHS)[number];

/**
 * A previewer took the image on (its `attempt`-th try since the previews were last discarded): other
 * previewers leave it alone while the claim is fresh. A claim with no result after it means the
 * previewer died on the image; after a few such attempts the image is given up (`PreviewsFailed`).
 */
export type PreviewsStarted = Event<'PreviewsStarted', { blob: string; attempt: number; at: number }>;
/** Preview blobs (PNG/JPEG) of one image blob, by width; a width the image is too small for is absent. */
export type PreviewsGenerated = Event<
  'PreviewsGenerated',
  { blob: string; previews: Partial<Record<`${PreviewWidth}`, string>>; at: number }
>;
/** The blob is no image the previewer can read (corrupt, or a format it does not know). */
export type PreviewsFailed = Event<'PreviewsFailed', { blob: string; reason: string; at: number }>;
/** The blob was reaped (nothing referenced it): what was decided about it goes with it; content uploaded again starts afresh. */
export type PreviewsDiscarded = Event<'PreviewsDiscarded', { blob: string; at: number }>;
export type PreviewEvent = PreviewsStarted | PreviewsGenerated | PreviewsFailed | PreviewsDiscarded;
