/** Read model of users (one document per live user), and the user record clients see. */
import { type Plan, StreamPrefixes, UNLIMITED_BYTES, type UserCreatedData, type UserRecord, type UserShareRoom } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { Projection } from '@burrow/eventsourcing';

export interface UserDoc {
  _id: string;
  partnerId: string;
  username: string;
  email: string;
  /** lower-cased email and username for case-insensitive lookup */
  emailKey: string;
  usernameKey: string;
  name: string;
  plan_id: number;
  group_id: number | null;
  bonus_bytes: number;
  enabled: boolean;
  purgehold_active: boolean;
  avatar_id: number;
  share_id: string;
  creation_time: number;
  last_login: number | null;
  bytes_stored: number;
  num_devices: number;
  share_rooms: UserShareRoom[];
  share_count: number;
  passwordHash: string;
  [key: string]: unknown;
}

export const usersCollection = (docs: DocumentStore) => docs.collection<UserDoc>('users');

export const usersProjection = (docs: DocumentStore): Projection => ({
  name: 'users',
  prefixes: [StreamPrefixes.user],
  async init() {
    const users = usersCollection(docs);
    await users.ensureIndex({ username: 1 }, { unique: true });
    await users.ensureIndex({ partnerId: 1, username: 1 });
    await users.ensureIndex({ partnerId: 1, emailKey: 1 });
    await users.ensureIndex({ partnerId: 1, usernameKey: 1 });
    await users.ensureIndex({ partnerId: 1, group_id: 1 });
    await users.ensureIndex({ partnerId: 1 });
  },
  async apply(event) {
    const users = usersCollection(docs);
    const userId = event.stream.slice(StreamPrefixes.user.length);
    const d = event.data as Record<string, unknown>;
    if (event.type === 'UserCreated') {
      const c = d as unknown as UserCreatedData & { passwordHash: string };
      await users.upsert({
        _id: c.userId, partnerId: c.partnerId, username: c.username, usernameKey: c.username.toLowerCase(), email: c.email, emailKey: c.email.toLowerCase(),
        name: c.name, plan_id: c.plan_id, group_id: c.group_id, bonus_bytes: c.bonus_bytes, enabled: true,
        purgehold_active: false, avatar_id: c.avatar_id, share_id: c.share_id, creation_time: c.creation_time,
        last_login: null, bytes_stored: 0, num_devices: 0, share_rooms: [], share_count: 0, passwordHash: c.passwordHash,
      });
      return;
    }
    const user = await users.get(userId);
    if (!user) return;
    switch (event.type) {
      case 'UserRenamed': user.name = d.name as string; break;
      case 'UserEmailChanged': user.email = d.email as string; user.emailKey = user.email.toLowerCase(); break;
      case 'UserPlanChanged': user.plan_id = d.plan_id as number; break;
      case 'UserGroupChanged': user.group_id = d.group_id as number | null; break;
      case 'UserBonusChanged': user.bonus_bytes = d.bonus_bytes as number; break;
      case 'UserEnabled': user.enabled = true; break;
      case 'UserDisabled': user.enabled = false; break;
      case 'UserPurgeHoldChanged': user.purgehold_active = d.purgehold_active as boolean; break;
      case 'UserPasswordChanged': user.passwordHash = d.passwordHash as string; break;
      case 'UserDeleted': {
        await users.delete(userId);
        // The user's devices and shares go with them (the storage catalog purges the data).
        const usage = await docs.collection<{ _id: string; bytes_used: number; share_count: number; device_count: number }>('partner_usage').get(user.partnerId);
        if (usage) {
          usage.bytes_used -= user.bytes_stored;
          usage.device_count -= user.num_devices;
          usage.share_count -= user.share_count;
          await docs.collection('partner_usage').upsert(usage);
        }
        await docs.collection('devices').deleteMany({ userId });
        await docs.collection('shares').deleteMany({ userId });
        return;
      }
      default: return;
    }
    await users.upsert(user);
  },
});

export const storageBytesOf = (plan: Plan | undefined, bonus: number) =>
  !plan ? bonus : plan.storage_bytes >= UNLIMITED_BYTES ? UNLIMITED_BYTES : plan.storage_bytes + bonus;

/** Bytes a user takes from the partner's allocation: plan bytes + bonus. */
export const allocationOf = (plan: Plan | undefined, bonus: number) => (plan?.storage_bytes ?? 0) + bonus;

export function toUserRecord(u: UserDoc, plans: Map<number, Plan>): UserRecord {
  const plan = plans.get(u.plan_id);
  return {
    avatar_id: u.avatar_id,
    username: u.username,
    name: u.name,
    email: u.email,
    share_id: u.share_id,
    share_identifier: u.share_id,
    promo: null,
    creation_time: u.creation_time,
    last_login: u.last_login,
    bytes_stored: u.bytes_stored,
    storage_bytes: storageBytesOf(plan, u.bonus_bytes),
    bonus_bytes: u.bonus_bytes,
    plan_id: u.plan_id,
    group_id: u.group_id,
    enabled: u.enabled,
    purgehold_active: u.purgehold_active,
    share_rooms: u.share_rooms,
    num_devices: u.num_devices,
  };
}
