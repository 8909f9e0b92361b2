/**
 * What a share room holds, from the catalog's folder summaries (no walk): the live files, the
 * folders and the bytes of the latest versions under its shared folders. A shared folder counts as
 * a folder itself (it is an entry of the room's root) besides the folders below it. A shared
 * folder inside another shared folder of the same room is counted once, with the outer one. A
 * shared folder that holds no live file any more (deleted, or its device removed) counts nothing.
 *
 * Cost: one read of the user's devices, then one read per shared folder (a room has at most
 * SHARE_ROOM_DIRS_MAX).
 */
import { DEVICES_MAX, type FolderSummary } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import { devicesCollection } from '../read-models/devices.projection.js';
import { folderId, foldersCollection } from '../read-models/catalog.documents.js';
import { parseShareDir, type ShareDir } from './share-dirs.js';

/** The user's live devices: name key -> device id. */
export async function liveDevices(docs: DocumentStore, userId: string): Promise<Map<string, string>> {
  const devices = await devicesCollection(docs).find({ userId, removed: false }, { limit: DEVICES_MAX });
  return new Map(devices.map((d) => [d.nameKey, d._id]));
}

/** `inner` is strictly below `outer` (the same device, a longer path under it). */
const covers = (outer: ShareDir, inner: ShareDir) =>
  outer.device.toLowerCase() === inner.device.toLowerCase() &&
  inner.path.length > outer.path.length &&
  inner.path.startsWith(outer.path);

export async function roomCounts(
  docs: DocumentStore,
  devices: Map<string, string>,
  dirs: string[],
): Promise<FolderSummary> {
  const parsed = dirs.map(parseShareDir);
  const outermost = parsed.filter((d) => !parsed.some((o) => covers(o, d)));
  const folders = await Promise.all(
    outermost.map((d) => {
      const deviceId = devices.get(d.device.toLowerCase());
      return deviceId ? foldersCollection(docs).get(folderId(deviceId, d.path)) : Promise.resolve(null);
    }),
  );
  const total: FolderSummary = { files: 0, folders: 0, bytes: 0 };
  for (const folder of folders) {
    if (!folder || folder.files <= 0) continue;
    total.files += folder.files;
    total.folders += folder.folders + 1;
    total.bytes += folder.bytes;
  }
  return total;
}
