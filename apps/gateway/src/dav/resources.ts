/**
 * Reading what a WebDAV URL names, in one bus call: the user's root (their devices and quota), or
 * a device's folder or file (with a page of a folder's members), and turning the catalog's
 * records into `DavResource`s.
 */
import {
  type DeadProperties,
  type DeviceInfo,
  type FileEntry,
  type FolderStat,
  type PathStat,
  type StorageRoot,
  Subjects,
} from '@burrow/contracts';
import { typeOf } from '../transfers/download.js';
import type { DavCall } from './context.js';
import type { DavLock } from './locks.js';
import type { DavResource } from './properties.js';
import { type DavTarget, hrefOf, lockPathOf, lockRootOf } from './target.js';

export type Quota = { used: number; available: number | null };

/**
 * A file's entity tag: its content hash (sha256), in base64url rather than hex. Shorter in every
 * listing and in `If` headers (litmus, for one, cuts long ones off).
 */
export const etagOf = (blob: string) => `"${Buffer.from(blob, 'hex').toString('base64url')}"`;

const locksOn = (user: string, locks: DavLock[], path: string) =>
  locks.filter((l) => l.path === path).map((l) => ({ ...l, root: lockRootOf(user, l), owner: '' }));

export function rootResource(user: string, root: StorageRoot, locks: DavLock[]): DavResource {
  const quota = {
    used: root.user.bytes_stored,
    available: root.user.quota_bytes === null ? null : Math.max(0, root.user.quota_bytes - root.user.bytes_stored),
  };
  return {
    href: hrefOf(user, null, '', true),
    collection: true,
    displayname: root.user.username,
    quota,
    dead: {},
    locks: locksOn(user, locks, ''),
  };
}

export function deviceResource(user: string, device: DeviceInfo, quota: Quota, locks: DavLock[]): DavResource {
  return {
    href: hrefOf(user, device.name, '', true),
    collection: true,
    displayname: device.name,
    modified: device.lastcommit ?? device.creation_time,
    created: device.creation_time,
    quota,
    dead: {},
    locks: locksOn(user, locks, device.name),
  };
}

export function folderResource(
  user: string,
  device: string,
  folder: FolderStat,
  quota: Quota | undefined,
  locks: DavLock[],
): DavResource {
  const path = folder.path.replace(/\/$/, '');
  return {
    href: hrefOf(user, device, path, true),
    collection: true,
    displayname: folder.name || device,
    modified: folder.created,
    created: folder.created,
    quota,
    dead: folder.props,
    locks: locksOn(user, locks, lockPathOf({ device, path })),
  };
}

export function fileResource(
  user: string,
  device: string,
  file: FileEntry,
  props: DeadProperties,
  locks: DavLock[],
): DavResource {
  return {
    href: hrefOf(user, device, file.path, false),
    collection: false,
    displayname: file.name,
    size: file.size,
    etag: etagOf(file.blob),
    contentType: typeOf(file.name),
    modified: file.mtime,
    created: file.ctime,
    checksums: file.checksums,
    dead: props,
    locks: locksOn(user, locks, lockPathOf({ device, path: file.path })),
  };
}

/** The user's root: the catalog's storage root (devices, usage and quota). */
export const readRoot = (call: DavCall) =>
  call.rpc.call<StorageRoot>(Subjects.storage.root, { userId: call.user.userId });

/**
 * A device's folder or file; `members` asks for a page of a folder's members too, `figures: false`
 * leaves the quota figures out (what a PROPFIND's quota properties need, and nothing else).
 */
export function readPath(
  call: DavCall,
  target: DavTarget,
  members?: { cursor?: string },
  options: { figures?: boolean } = {},
): Promise<PathStat> {
  const path = target.slash && target.path ? `${target.path}/` : target.path;
  return call.rpc.call<PathStat>(Subjects.storage.stat, {
    userId: call.user.userId,
    device: target.device,
    path,
    ...(members ? { members } : {}),
    ...(options.figures === false ? { figures: false } : {}),
  });
}

/** The resource of a stat reply. */
export function statResource(call: DavCall, target: DavTarget, stat: PathStat, locks: DavLock[]): DavResource {
  if (stat.kind === 'file') return fileResource(target.user, target.device!, stat.file, stat.props, locks);
  return folderResource(target.user, target.device!, stat.folder, stat.quota, locks);
}
