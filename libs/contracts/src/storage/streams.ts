/**
 * Stream names of the storage catalog (DESIGN §3), chosen so that no command folds a stream whose
 * length grows with the number of files a user has:
 * - `device-<deviceId>`: registration, logins, folder deletions, backup completions, removal. A
 *   command needs only whether the device exists and is not removed (its first and last events).
 * - `file-<fileId>`: the versions of ONE file (fileId derives from the device and the path), so
 *   version numbers come from this stream with optimistic concurrency.
 * - `usage-<userId>`: the user's stored bytes as a running-total ledger (quota, exact under
 *   concurrency); commands read only its last entry.
 * - `share-<userId>`: the user's share rooms.
 * - `preview-<sha256>`: the previews of one blob (a claim, then the previews or why there are none;
 *   discarded when the blob is reaped), a handful of events per life of the blob.
 * - `devicename-<userId>-<name>`: a device name's reservation (unique per user).
 * - `process-storage-catalog-<id>`: multi-step writes.
 */
import { createHash } from 'node:crypto';

/** A file's id: its device and a digest of its path (a path can be long; a stream name should not be). */
export const fileIdOf = (deviceId: string, path: string): string =>
  `${deviceId}.${createHash('sha256').update(path).digest('hex').slice(0, 32)}`;

export const StorageStreams = {
  device: (deviceId: string) => `device-${deviceId}`,
  file: (fileId: string) => `file-${fileId}`,
  usage: (userId: string) => `usage-${userId}`,
  share: (userId: string) => `share-${userId}`,
  preview: (blob: string) => `preview-${blob}`,
  deviceName: (userId: string, nameKey: string) => `devicename-${userId}-${nameKey}`,
} as const;

export const StorageStreamPrefixes = {
  device: 'device-',
  file: 'file-',
  usage: 'usage-',
  share: 'share-',
  preview: 'preview-',
} as const;
