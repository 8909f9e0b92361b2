/**
 * What one user's WebDAV dead properties take, so that they are bounded per user and not only per
 * file or folder (issue 33, item 6):
 * - `stored`: the bytes (names and values, UTF-8) that the user's live files and folders hold now;
 *   at most `maxBytesPerUser` (507 past it, as a PROPPATCH that cannot be stored);
 * - `written`: the bytes of the property sets written on `day` (UTC), each rewrite counting the
 *   whole set it appends, which is what the event log keeps for good; at most
 *   `maxWriteBytesPerDay` (429 past it, until the next UTC day). A rewrite that changes nothing
 *   appends nothing and costs nothing.
 * The catalog projection keeps one document per user (`countDeadProperties`, in the batch that
 * applies the change, so it is exact after a replay); the handlers check a change against it
 * before they append (`checkDeadPropertyBudget`). The check reads the read model, so concurrent
 * PROPPATCHes of one user can pass it together: the bound is then overshot by at most what those
 * few requests set (each within the per-resource 64 KiB).
 */
import {
  type DeadProperties,
  DEAD_PROPERTIES_PER_USER_MAX_BYTES,
  DEAD_PROPERTY_WRITES_PER_DAY_MAX_BYTES,
  insufficientStorage,
  tooManyRequests,
} from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { DeadPropertyLimits, StorageContext } from '../shared/context.js';

export interface DeadPropertyUsageDoc {
  /** the user */
  _id: string;
  stored: number;
  /** the UTC day `written` counts (unix seconds / 86,400) */
  day: number;
  written: number;
  [key: string]: unknown;
}

export type { DeadPropertyLimits } from '../shared/context.js';

export const DEFAULT_DEAD_PROPERTY_LIMITS: DeadPropertyLimits = {
  maxBytesPerUser: DEAD_PROPERTIES_PER_USER_MAX_BYTES,
  maxWriteBytesPerDay: DEAD_PROPERTY_WRITES_PER_DAY_MAX_BYTES,
};

const DAY = 86_400;

export const deadPropertyUsageCollection = (docs: DocumentStore) =>
  docs.collection<DeadPropertyUsageDoc>('dead_property_usage');

/** A property set's size: names and values, UTF-8 bytes (what the per-resource and per-user limits count). */
export const propertyBytes = (props: DeadProperties) =>
  Object.entries(props).reduce((sum, [k, v]) => sum + Buffer.byteLength(k) + Buffer.byteLength(v), 0);

/** The size of the properties a read-model document holds (their JSON; absent: none). */
export const storedPropertyBytes = (json: string | undefined) =>
  json ? propertyBytes(JSON.parse(json) as DeadProperties) : 0;

/**
 * The projection's side: a file's or folder's properties went from `before` to `after` bytes; `at`
 * (unix seconds) when that was a property set written (it counts towards that day's writes), absent
 * when they went with their file or folder (deleted, moved away, purged).
 */
export async function countDeadProperties(
  docs: DocumentStore,
  userId: string,
  change: { before: number; after: number; at?: number },
): Promise<void> {
  if (change.before === change.after && change.at === undefined) return;
  const usage = deadPropertyUsageCollection(docs);
  const doc = (await usage.get(userId)) ?? { _id: userId, stored: 0, day: 0, written: 0 };
  // read models from before this was kept do not know what their properties took: never below 0
  doc.stored = Math.max(0, doc.stored + change.after - change.before);
  if (change.at !== undefined) {
    const day = Math.floor(change.at / DAY);
    doc.written = (doc.day === day ? doc.written : 0) + change.after;
    doc.day = day;
  }
  await usage.upsert(doc);
}

/**
 * The handlers' side, before appending a change of one file's or folder's properties from `before`
 * to `after` bytes: 507 when it would take the user past what they may hold, 429 when a set that
 * does not shrink would take them past today's writes. A change that shrinks is always let through
 * (it frees what it removes).
 */
export async function checkDeadPropertyBudget(
  ctx: StorageContext,
  userId: string,
  before: number,
  after: number,
): Promise<void> {
  const limits = ctx.deadProperties ?? DEFAULT_DEAD_PROPERTY_LIMITS;
  const usage = await deadPropertyUsageCollection(ctx.docs).get(userId);
  if (after > before && (usage?.stored ?? 0) - before + after > limits.maxBytesPerUser) {
    throw insufficientStorage(
      `a user's WebDAV properties take at most ${limits.maxBytesPerUser} bytes (names and values): remove some first`,
    );
  }
  const now = ctx.clock.now();
  const today = Math.floor(now / DAY);
  const written = usage && usage.day === today ? usage.written : 0;
  if (after >= before && after > 0 && written + after > limits.maxWriteBytesPerDay) {
    throw tooManyRequests(
      `a user writes at most ${limits.maxWriteBytesPerDay} bytes of WebDAV properties a day (each change counts the whole set of its file or folder): try again tomorrow (UTC)`,
      Math.max(1, (today + 1) * DAY - now),
    );
  }
}
