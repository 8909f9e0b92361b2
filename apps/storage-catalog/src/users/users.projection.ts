/**
 * The storage catalog's own view of users and plans (from the accounts service's `user-` and
 * `plan-catalogue` streams): who users are, their partner, the names they log in with, and what
 * their quota is (plan + bonus), whether their data is on purge hold, and whether they are enabled.
 * Enough to resolve a partner's or a login's reference to a user, to refuse an upload past the
 * quota, to keep a held user's data from the purger and to serve a share room only while its owner
 * is enabled, without asking accounts.
 */
import {
  notFound,
  type Plan,
  type PlanAdded,
  StreamPrefixes,
  UNLIMITED_BYTES,
  type UserCreated,
} from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import { type Projection, dataOf } from '@burrow/eventsourcing';

export interface StorageUserDoc {
  _id: string;
  partnerId: string;
  username: string;
  usernameKey: string;
  email: string;
  emailKey: string;
  name: string;
  share_id: string;
  shareIdKey: string;
  plan_id: number;
  bonus_bytes: number;
  /** the partner put the user's data on hold: nothing of it is purged */
  purgehold_active: boolean;
  /** false while the partner has the user disabled (their share rooms are not served); absent in documents from before it was kept: enabled */
  enabled?: boolean;
  [key: string]: unknown;
}

interface PlanDoc extends Pick<Plan, 'plan_id' | 'storage_bytes'> {
  _id: string;
  [key: string]: unknown;
}

export const storageUsersCollection = (docs: DocumentStore) => docs.collection<StorageUserDoc>('users');
const plansCollection = (docs: DocumentStore) => docs.collection<PlanDoc>('plans');

export const storageUsersProjection = (): Projection => ({
  name: 'users',
  prefixes: [StreamPrefixes.user, StreamPrefixes.planCatalogue],
  async init(docs) {
    await storageUsersCollection(docs).ensureIndex({ partnerId: 1, usernameKey: 1 });
    await storageUsersCollection(docs).ensureIndex({ partnerId: 1, emailKey: 1 });
    await storageUsersCollection(docs).ensureIndex({ usernameKey: 1 });
    await storageUsersCollection(docs).ensureIndex({ emailKey: 1 });
    await storageUsersCollection(docs).ensureIndex({ shareIdKey: 1 });
  },
  async apply(event, docs) {
    if (event.stream === StreamPrefixes.planCatalogue) {
      if (event.type !== 'PlanAdded') return;
      const plan = event.data as PlanAdded['data'];
      await plansCollection(docs).upsert({
        _id: String(plan.plan_id),
        plan_id: plan.plan_id,
        storage_bytes: plan.storage_bytes,
      });
      return;
    }
    const users = storageUsersCollection(docs);
    const userId = event.stream.slice(StreamPrefixes.user.length);
    const d = event.data;
    if (event.type === 'UserCreated') {
      const c = dataOf<UserCreated>(event);
      await users.upsert({
        _id: userId,
        partnerId: c.partnerId,
        username: c.username,
        usernameKey: c.username.toLowerCase(),
        email: c.email,
        emailKey: c.email.toLowerCase(),
        name: c.name,
        share_id: c.share_id,
        shareIdKey: c.share_id.toLowerCase(),
        plan_id: c.plan_id,
        bonus_bytes: c.bonus_bytes,
        purgehold_active: false,
        enabled: true,
      });
      return;
    }
    if (event.type === 'UserDeleted') {
      await users.delete(userId);
      return;
    }
    const user = await users.get(userId);
    if (!user) return;
    switch (event.type) {
      case 'UserEmailChanged':
        user.email = d.email as string;
        user.emailKey = user.email.toLowerCase();
        break;
      case 'UserRenamed':
        user.name = d.name as string;
        break;
      case 'UserPlanChanged':
        user.plan_id = d.plan_id as number;
        break;
      case 'UserBonusChanged':
        user.bonus_bytes = d.bonus_bytes as number;
        break;
      case 'UserPurgeHoldChanged':
        user.purgehold_active = d.purgehold_active as boolean;
        break;
      case 'UserEnabled':
        user.enabled = true;
        break;
      case 'UserDisabled':
        user.enabled = false;
        break;
      default:
        return;
    }
    await users.upsert(user);
  },
});

/** A user of this partner by username (any case) or email; 404 otherwise, other partners' included. */
export async function findPartnerUser(docs: DocumentStore, partnerId: string, user: string): Promise<StorageUserDoc> {
  const users = storageUsersCollection(docs);
  const key = user.toLowerCase();
  const doc =
    (await users.findOne({ partnerId, usernameKey: key })) ??
    (user.includes('@') ? await users.findOne({ partnerId, emailKey: key }) : null);
  if (!doc) throw notFound(`no user ${user}`);
  return doc;
}

/** The user whose share id this is (any case), or null. */
export async function userByShareId(docs: DocumentStore, shareId: string): Promise<StorageUserDoc | null> {
  return storageUsersCollection(docs).findOne({ shareIdKey: shareId.toLowerCase() });
}

export async function requireUser(docs: DocumentStore, userId: string): Promise<StorageUserDoc> {
  const user = await storageUsersCollection(docs).get(userId);
  if (!user) throw notFound('no such user');
  return user;
}

/** The user's quota in bytes (plan + bonus), or null when the plan is unlimited. */
export async function quotaOf(docs: DocumentStore, user: StorageUserDoc): Promise<number | null> {
  const plan = await plansCollection(docs).get(String(user.plan_id));
  if (!plan || plan.storage_bytes >= UNLIMITED_BYTES) return null;
  return plan.storage_bytes + user.bonus_bytes;
}
