/**
 * What the storage catalog answers on the bus (the gateway turns these into the storage and share
 * interface's objects). Times are unix seconds; sizes bytes; blobs sha256 keys.
 */
import type { FileChecksums } from './checksums.js';
import type { DeadProperties, PreviewWidth } from './events.js';

export interface DeviceInfo {
  deviceId: string;
  name: string;
  sysplatform: string;
  client_revision: number;
  creation_time: number;
  lastlogin: number | null;
  lastcommit: number | null;
  last_backup_complete: number | null;
  /** bytes of every stored version on the device */
  bytes: number;
  /** live (not deleted) files */
  files: number;
}

export interface FileVersionInfo {
  path: string;
  name: string;
  version: number;
  size: number;
  blob: string;
  crc32: number;
  /** SHA-1 and MD5 (absent for versions committed before Burrow computed them) */
  checksums?: FileChecksums;
  mtime: number;
  ctime: number;
  /** when this version was committed */
  at: number;
  /** preview blobs of this version's content, by width (absent until made; none for non-images) */
  previews: Partial<Record<`${PreviewWidth}`, string>>;
}

/**
 * Which life of a file something was made for (a single-file link, a session extension): the
 * device's incarnation (its id, new at each registration, so a device removed and registered again
 * under the same name is another) and the version number that began the file's current life (a
 * file deleted and uploaded again to the same path starts a new one).
 */
export interface FileIncarnation {
  deviceId: string;
  since: number;
}

/** The latest version of a file as a folder listing shows it. */
export interface FileEntry extends FileVersionInfo {
  /** versions stored (not purged) */
  versions: number;
  /** the life of the file this is (in the replies to single-file reads: what links and extensions name) */
  incarnation?: FileIncarnation;
}

export interface FolderEntry {
  name: string;
  /** the folder's path within its device, ending with `/` */
  path: string;
  /** live files in its whole subtree */
  files: number;
  /** folders in its whole subtree that hold live files */
  folders: number;
}

/** A page of a folder: subfolders first, then files, each by name; `next` continues it. */
export interface FolderPage {
  dirs: FolderEntry[];
  files: FileEntry[];
  /** opaque cursor of the next page, null on the last */
  next: string | null;
}

/** A file of a subtree walk. */
export interface SubtreeFile extends FileEntry {
  /**
   * Set when a folder of the same path holds files too (the catalog allows both, a zip cannot
   * extract both): the name this file's zip entry takes instead, `<name> (file)` (or
   * `<name> (file 2)`, ... whichever no file or folder beside it has).
   */
  archive_name?: string;
}

/** A page of every live file under a folder, in path order (for zips); `next` continues it. */
export interface SubtreePage {
  files: SubtreeFile[];
  next: string | null;
}

/** A folder as WebDAV shows it. */
export interface FolderStat {
  /** '' for the device root, else ending with `/` */
  path: string;
  name: string;
  files: number;
  folders: number;
  bytes: number;
  /** when it was made on its own (MKCOL, COPY, MOVE); null for one that exists through its files */
  created: number | null;
  props: DeadProperties;
}

/** A file or a folder (`storage-catalog.paths.stat`), with the user's quota for WebDAV's quota properties. */
export type PathStat = (
  | { kind: 'file'; file: FileEntry; props: DeadProperties }
  | {
      kind: 'folder';
      folder: FolderStat;
      members?: { dirs: FolderStat[]; files: (FileEntry & { props: DeadProperties })[]; next: string | null };
    }
) & {
  /** the user's stored bytes and what is left of the quota (absent when the request said `figures: false`) */
  quota?: { used: number; available: number | null };
};

/** A COPY or MOVE step: whether the destination existed before, and where to go on (null: done). */
export interface TransferReply {
  replaced: boolean;
  next: string | null;
}

export interface FolderSummary {
  files: number;
  folders: number;
  /** bytes of the latest versions of the live files */
  bytes: number;
}

export interface StorageUserInfo {
  userId: string;
  partnerId: string;
  username: string;
  name: string;
  email: string;
  share_id: string;
  /** plan + bonus; null when unlimited */
  quota_bytes: number | null;
  /** every stored version's bytes */
  bytes_stored: number;
}

export interface StorageRoot {
  user: StorageUserInfo;
  devices: DeviceInfo[];
}

export interface ShareRoomInfo {
  room_key: string;
  name: string;
  description: string;
  /** shared folders, each `<device name>/<folder path>/` (`<device name>/`: the whole device) */
  dirs: string[];
  /** false when the partner disabled the room (it is then not served publicly) */
  enabled: boolean;
  /** whether visitors must give the room's password */
  password_required: boolean;
  /** unix seconds after which the room answers 404; null: never */
  expires: number | null;
  /** files and zips fetched from the room by its visitors */
  downloads: number;
  /** unix seconds of the last visit; null: none yet */
  last_access: number | null;
  creation_time: number;
  update_time: number;
  /**
   * Live files under the room's folders; folders: the shared folders themselves plus every folder
   * below them that holds live files; bytes of the files' latest versions. A shared folder inside
   * another of the same room counts once; one with no live file counts nothing.
   */
  files: number;
  folders: number;
  bytes: number;
}

/** A room as its owner's writes return it, with the share id its public address uses. */
export interface OwnShareRoom extends ShareRoomInfo {
  share_id: string;
}

/** The logged-in user's rooms (oldest first), and the share id their addresses use. */
export interface UserShareRooms {
  share_id: string;
  rooms: ShareRoomInfo[];
}

/** A share room opened by its public address (share id and room key), with its owner's names. */
export interface PublicShareRoom extends ShareRoomInfo {
  userId: string;
  share_id: string;
  owner_name: string;
  /** a room with a password, opened without it (the visitor gave none, or a stale cookie): nothing of it may be served */
  locked: boolean;
  /** what a room cookie binds to (a digest of the password hash: it changes with the password); null without a password */
  password_stamp: string | null;
}

/** What one purger run did (`storage-catalog.purge.run`, and the periodic run's log line). */
export interface PurgeReport {
  /** deleted users whose remaining devices and share rooms were removed in this run */
  cleared_users: number;
  removed_devices: number;
  deleted_rooms: number;
  /** files with versions purged, those versions, and their bytes (taken off the users' usage) */
  purged_files: number;
  purged_versions: number;
  purged_bytes: number;
  /** partners skipped because one of their deletions is within `purgehold_duration` */
  held_partners: number;
  /** removed devices, and files, due for purging but kept because their user has `purgehold_active` */
  held_devices: number;
  held_files: number;
  /** purges that failed this time (the next run tries again), with why */
  failed: { fileId: string; error: string }[];
}

/** `storage-catalog.blobs.reap`: the reaper's grace for this run only (default BURROW_BLOB_REAP_GRACE_SECONDS). */
export interface ReapBlobsRequest {
  /** blobs put less than this long ago are kept; never less than the longest upload-to-commit time */
  grace_seconds?: number;
}

/** `storage-catalog.blobs.verify`: one page of the scrub, in key order after `after`. */
export interface VerifyBlobsRequest {
  /** the `next` of the page before (absent: from the first key) */
  after?: string;
  /** stop the page once this many bytes were read (default 256 MiB; a blob is always read whole) */
  max_bytes?: number;
  /** and after at most this many blobs (default and maximum 1000) */
  max_blobs?: number;
}

/** A file version whose bytes are a damaged or missing blob. */
export interface AffectedFile {
  /** the user's username (their id if the user is gone) */
  user: string;
  /** the device's name */
  device: string;
  path: string;
  version: number;
  /** the file's current version (a download of the file fails), not an older one */
  latest: boolean;
}

/** A blob that does not verify (`corrupt`) or that stored versions name but the store lacks (`missing`). */
export interface BlobProblem {
  blob: string;
  /** corrupt only: its size as stored */
  size?: number;
  /** corrupt only: moved to the store's quarantine (it now reads as missing; the next upload of its content stores it anew) */
  quarantined?: boolean;
  /** versions holding it (the first 20) */
  files: AffectedFile[];
  /** how many versions hold it in all */
  files_total: number;
  /** the users those versions belong to (from at most the first 1000 versions) */
  users: string[];
}

/** One page of the scrub (`storage-catalog.blobs.verify`); pages together cover the whole store once. */
export interface VerifyBlobsPage {
  /** blobs read whole and their bytes */
  checked: number;
  bytes: number;
  corrupt: BlobProblem[];
  /** referenced by a stored version in this page's key range but not in the store */
  missing: BlobProblem[];
  /** blobs that could not be read (an I/O error: not a verdict), with why */
  failed: { blob: string; error: string }[];
  /** the `after` of the next page; null when this was the last */
  next: string | null;
}

/** What one blob reaper run did (`storage-catalog.blobs.reap`, and the periodic run's log line). */
export interface BlobReapReport {
  /** blobs looked at (every blob in the store) */
  listed: number;
  /** put within the grace period (an upload may be about to commit them) */
  recent: number;
  /** referenced by a stored version, or a preview of one */
  referenced: number;
  /** removed, and their bytes */
  reaped: number;
  reaped_bytes: number;
  /** unreferenced, but put again while the reaper looked at them: kept */
  raced: number;
  /** what interrupted uploads left (temporary files, unfinished multipart uploads), removed once older than the grace */
  temporaries: number;
  /** what uploads of a process that no longer runs (this host's) left, removed at once whatever its age */
  abandoned: number;
  /** blobs whose removal failed this time (the next run tries again), with why */
  failed: { blob: string; error: string }[];
}
