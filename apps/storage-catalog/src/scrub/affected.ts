/**
 * Who a damaged or missing blob hurts: the stored versions holding it, with the user's name and
 * the device's, so the operator's report says which files of which users to restore or re-upload.
 */
import type { AffectedFile, BlobProblem } from '@burrow/contracts';
import { devicesCollection } from '../read-models/devices.projection.js';
import { versionsCollection } from '../read-models/catalog.documents.js';
import type { StorageContext } from '../shared/context.js';
import { storageUsersCollection } from '../users/users.projection.js';

const FILES_LISTED = 20;
const VERSIONS_FOR_USERS = 1000;

export async function affectedBy(
  ctx: StorageContext,
  blob: string,
): Promise<Pick<BlobProblem, 'files' | 'files_total' | 'users'>> {
  const versions = versionsCollection(ctx.docs);
  const holding = await versions.find({ blob }, { limit: VERSIONS_FOR_USERS });
  const userNames = new Map<string, string>();
  const deviceNames = new Map<string, string>();
  for (const v of holding) {
    if (!userNames.has(v.userId))
      userNames.set(v.userId, (await storageUsersCollection(ctx.docs).get(v.userId))?.username ?? v.userId);
  }
  const files: AffectedFile[] = [];
  for (const v of holding.slice(0, FILES_LISTED)) {
    if (!deviceNames.has(v.deviceId))
      deviceNames.set(v.deviceId, (await devicesCollection(ctx.docs).get(v.deviceId))?.name ?? v.deviceId);
    files.push({
      user: userNames.get(v.userId)!,
      device: deviceNames.get(v.deviceId)!,
      path: v.path,
      version: v.version,
      latest: v.latest,
    });
  }
  const total = holding.length < VERSIONS_FOR_USERS ? holding.length : await versions.count({ blob });
  return { files, files_total: total, users: [...new Set(userNames.values())].sort() };
}
