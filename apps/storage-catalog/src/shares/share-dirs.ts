/**
 * The folders a share room shows, each `<device name>/<folder path>/` (`<device name>/` for a
 * whole device). What a user sends is checked with the contracts' path rules and against their
 * storage: the device must be one of theirs and live, the folder must hold live files (folders
 * exist only while they do). Every problem is a 400 naming `dirs`, with the entry in the reason:
 * the request's resource (the user's share list) exists; one of its values is wrong. Entries are
 * stored canonical (the device's own spelling of its name, one trailing slash), duplicates removed.
 */
import { badRequest, DomainError, pathSegments } from '@burrow/contracts';
import type { DeviceState } from '../devices/device.js';
import { resolveDevice } from '../devices/device-names.js';
import { folderId, foldersCollection } from '../read-models/catalog.documents.js';
import type { StorageContext } from '../shared/context.js';

export interface ShareDir {
  device: string;
  /** a folder path within the device ('' is the whole device) */
  path: string;
}

const FIELD = 'dirs';

/**
 * One entry, checked for shape only. Lenient where it costs nothing: a leading `/` and a missing
 * trailing `/` are accepted (a shared entry is always a folder).
 */
export function parseShareDir(dir: string): ShareDir {
  const trimmed = dir.startsWith('/') ? dir.slice(1) : dir;
  let segments: string[];
  try {
    segments = pathSegments(trimmed.endsWith('/') ? trimmed : `${trimmed}/`, FIELD);
  } catch (error) {
    if (error instanceof DomainError) throw badRequest(`${error.body.reason} (in ${JSON.stringify(dir)})`, [FIELD]);
    throw error;
  }
  const [device, ...rest] = segments;
  if (device === undefined)
    throw badRequest('a shared folder is `<device name>/<folder path>/`: name a device', [FIELD]);
  return { device, path: rest.length ? `${rest.join('/')}/` : '' };
}

export const shareDirString = (d: ShareDir) => `${d.device}/${d.path}`;

/** Every entry of `dirs` as one of this user's live folders, canonical and without duplicates; a 400 otherwise. */
export async function resolveShareDirs(ctx: StorageContext, userId: string, dirs: string[]): Promise<string[]> {
  const parsed = dirs.map(parseShareDir);
  const devices = new Map<string, DeviceState>();
  const out: string[] = [];
  let caughtUp = false;
  for (const dir of parsed) {
    const key = dir.device.toLowerCase();
    let device = devices.get(key);
    if (!device) {
      try {
        device = await resolveDevice(ctx.store, userId, dir.device);
      } catch (error) {
        if (error instanceof DomainError && error.status === 404)
          throw badRequest(`no device ${dir.device} (in ${JSON.stringify(shareDirString(dir))})`, [FIELD]);
        throw error;
      }
      devices.set(key, device);
    }
    if (dir.path !== '') {
      const folders = foldersCollection(ctx.docs);
      let folder = await folders.get(folderId(device.deviceId, dir.path));
      // a folder whose first file was committed through another replica a moment ago
      if (!folder && !caughtUp) {
        await ctx.runner.catchUp();
        caughtUp = true;
        folder = await folders.get(folderId(device.deviceId, dir.path));
      }
      if (!folder) throw badRequest(`no folder ${dir.path} on device ${device.name}`, [FIELD]);
    }
    const canonical = shareDirString({ device: device.name, path: dir.path });
    if (!out.includes(canonical)) out.push(canonical);
  }
  return out;
}
