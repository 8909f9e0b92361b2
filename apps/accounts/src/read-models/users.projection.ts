/**
 * Read model of users (one document per live user) and the user record clients see. It is the
 * only writer of `users`, so it follows the storage catalog's streams too for what a user record
 * carries from there (stored bytes, device count, last login, share rooms, last backup), keeping a
 * device -> user map of its own (`user_devices`, with each device's bytes and last backup, which
 * leave with the device).
 */
import {
  changesUserBytes,
  createdShareRoom,
  type DeviceEvent,
  evolveShareRoom,
  notFound,
  type FileEvent,
  type Plan,
  type ShareEvent,
  StreamPrefixes,
  UNLIMITED_BYTES,
  type UserCreated,
  type UserRecord,
  type UserShareRoom,
} from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import { type Projection, dataOf } from '@burrow/eventsourcing';
import type { RecordedEvent } from '@burrow/event-store';

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
  /**
   * The most recent backup on any live device (a completed backup or a committed file version),
   * or null: what `search_by=recently_stopped_uploading` asks about (indexed with partnerId).
   */
  last_backup: number | null;
  [key: string]: unknown;
}

interface UserDeviceDoc {
  _id: string;
  userId: string;
  bytes: number;
  last_backup: number | null;
  [key: string]: unknown;
}

export const usersCollection = (docs: DocumentStore) => docs.collection<UserDoc>('users');

/**
 * Each store's user ids by partner and exact username, as found by `findPartnerUser`: a hint, read
 * by id and checked on every use, so it can never answer with a stale or another partner's user.
 */
const userIdHints = new WeakMap<DocumentStore, Map<string, string>>();
const USER_ID_HINTS = 100_000;

/**
 * A user of this partner by username (exact, then any case) or email; 404 otherwise (other
 * partners' users included). A name found before is read by the id it had then (a read by id costs
 * half a lookup by the indexed name in SQLite), and that document is the answer only while it
 * still belongs to this partner and has this exact username: usernames are unique (a unique index),
 * so it is the document the first lookup below would find. A user deleted, renamed or re-created
 * since fails the check and is looked up by name again.
 */
export async function findPartnerUser(docs: DocumentStore, partnerId: string, user: string): Promise<UserDoc> {
  const users = usersCollection(docs);
  let hints = userIdHints.get(docs);
  if (!hints) userIdHints.set(docs, (hints = new Map()));
  const key = `${partnerId}\0${user}`;
  const hinted = hints.get(key);
  if (hinted !== undefined) {
    const doc = await users.get(hinted);
    if (doc && doc.partnerId === partnerId && doc.username === user) return doc;
    hints.delete(key);
  }
  const doc =
    (await users.findOne({ partnerId, username: user })) ??
    (await users.findOne({ partnerId, usernameKey: user.toLowerCase() })) ??
    (user.includes('@') ? await users.findOne({ partnerId, emailKey: user.toLowerCase() }) : null);
  if (!doc) throw notFound(`no user ${user}`);
  if (doc.partnerId === partnerId && doc.username === user) {
    if (hints.size >= USER_ID_HINTS) hints.clear();
    hints.set(key, doc._id);
  }
  return doc;
}
const userDevices = (docs: DocumentStore) => docs.collection<UserDeviceDoc>('user_devices');

async function applyUserEvent(docs: DocumentStore, event: RecordedEvent): Promise<void> {
  const users = usersCollection(docs);
  const userId = event.stream.slice(StreamPrefixes.user.length);
  const d = event.data;
  if (event.type === 'UserCreated') {
    const c = dataOf<UserCreated>(event);
    await users.upsert({
      _id: c.userId,
      partnerId: c.partnerId,
      username: c.username,
      usernameKey: c.username.toLowerCase(),
      email: c.email,
      emailKey: c.email.toLowerCase(),
      name: c.name,
      plan_id: c.plan_id,
      group_id: c.group_id,
      bonus_bytes: c.bonus_bytes,
      enabled: true,
      purgehold_active: false,
      avatar_id: c.avatar_id,
      share_id: c.share_id,
      creation_time: c.creation_time,
      last_login: null,
      bytes_stored: 0,
      num_devices: 0,
      share_rooms: [],
      share_count: 0,
      last_backup: null,
    });
    return;
  }
  const user = await users.get(userId);
  if (!user) return;
  switch (event.type) {
    case 'UserRenamed':
      user.name = d.name as string;
      break;
    case 'UserEmailChanged':
      user.email = d.email as string;
      user.emailKey = user.email.toLowerCase();
      break;
    case 'UserPlanChanged':
      user.plan_id = d.plan_id as number;
      break;
    case 'UserGroupChanged':
      user.group_id = d.group_id as number | null;
      break;
    case 'UserBonusChanged':
      user.bonus_bytes = d.bonus_bytes as number;
      break;
    case 'UserEnabled':
      user.enabled = true;
      break;
    case 'UserDisabled':
      user.enabled = false;
      break;
    case 'UserPurgeHoldChanged':
      user.purgehold_active = d.purgehold_active as boolean;
      break;
    case 'UserDeleted':
      await users.delete(userId);
      await userDevices(docs).deleteMany({ userId });
      return;
    default:
      return;
  }
  await users.upsert(user);
}

const later = (a: number | null, b: number) => Math.max(a ?? b, b);

/** A backup on one device: it and its user take the time if it is their latest. */
async function recordBackup(docs: DocumentStore, device: UserDeviceDoc, at: number): Promise<void> {
  device.last_backup = later(device.last_backup, at);
  await userDevices(docs).upsert(device);
  const user = await usersCollection(docs).get(device.userId);
  if (user && user.last_backup !== later(user.last_backup, at)) {
    user.last_backup = later(user.last_backup, at);
    await usersCollection(docs).upsert(user);
  }
}

/** A user's latest backup over the devices they still have (after one left). */
async function latestBackupOf(docs: DocumentStore, userId: string): Promise<number | null> {
  const [latest] = await userDevices(docs).find(
    { userId, last_backup: { $ne: null } },
    { sort: { last_backup: -1 }, limit: 1 },
  );
  return latest?.last_backup ?? null;
}

/**
 * A device write is a device login: the user's last_login follows their most recent one. A
 * completed backup is a backup (so is a committed file, in applyFileEvent).
 */
async function applyDeviceEvent(docs: DocumentStore, event: RecordedEvent): Promise<void> {
  const e = { type: event.type, data: event.data } as DeviceEvent;
  const deviceId = event.stream.slice(StreamPrefixes.device.length);
  const users = usersCollection(docs);
  if (e.type === 'DeviceRegistered') {
    await userDevices(docs).upsert({ _id: deviceId, userId: e.data.userId, bytes: 0, last_backup: null });
    const user = await users.get(e.data.userId);
    if (user) {
      user.num_devices += 1;
      user.last_login = Math.max(user.last_login ?? 0, e.data.at);
      await users.upsert(user);
    }
    return;
  }
  const device = await userDevices(docs).get(deviceId);
  if (!device) return;
  const user = await users.get(device.userId);
  if (!user) return;
  if (e.type === 'DeviceLoggedIn') {
    user.last_login = Math.max(user.last_login ?? 0, e.data.at);
    await users.upsert(user);
  } else if (e.type === 'BackupCompleted') {
    await recordBackup(docs, device, e.data.at);
  } else if (e.type === 'DeviceRemoved') {
    await userDevices(docs).delete(deviceId);
    user.num_devices -= 1;
    user.bytes_stored -= device.bytes;
    // the device's backups leave with it
    user.last_backup = await latestBackupOf(docs, user._id);
    await users.upsert(user);
  }
}

/** Stored bytes: every committed version counts until it is purged or its device removed; a WebDAV move only moves bytes between devices. */
async function applyFileEvent(docs: DocumentStore, event: RecordedEvent): Promise<void> {
  const e = { type: event.type, data: event.data } as FileEvent;
  if (e.type !== 'FileVersionCommitted' && e.type !== 'FileVersionsPurged' && e.type !== 'FileMovedOut') return;
  const device = await userDevices(docs).get(e.data.deviceId);
  if (!device) return;
  const bytes = e.type === 'FileVersionCommitted' ? e.data.size : -e.data.bytes;
  device.bytes += bytes;
  await userDevices(docs).upsert(device);
  const user = changesUserBytes(e) ? await usersCollection(docs).get(device.userId) : null;
  if (user) {
    user.bytes_stored += bytes;
    await usersCollection(docs).upsert(user);
  }
  if (e.type === 'FileVersionCommitted') await recordBackup(docs, device, e.data.at);
}

/** A user's `share_rooms` list (every list item carries it), kept in step with the share stream. */
async function applyShareEvent(docs: DocumentStore, event: RecordedEvent): Promise<void> {
  const e = { type: event.type, data: event.data } as ShareEvent;
  const users = usersCollection(docs);
  const user = await users.get(event.stream.slice(StreamPrefixes.share.length));
  if (!user) return;
  const rooms = user.share_rooms;
  const index = rooms.findIndex((r) => r.room_key === e.data.room_key);
  if (e.type === 'ShareRoomCreated') {
    if (index >= 0) return;
    rooms.push(createdShareRoom(e.data));
  } else {
    if (index < 0) return;
    const next = evolveShareRoom(rooms[index], e);
    if (next === rooms[index]) return;
    if (next) rooms[index] = next;
    else rooms.splice(index, 1);
  }
  rooms.sort((a, b) => a.creation_time - b.creation_time || a.room_key.localeCompare(b.room_key));
  user.share_count = rooms.length;
  await users.upsert(user);
}

export const usersProjection = (): Projection => ({
  name: 'users',
  prefixes: [StreamPrefixes.user, StreamPrefixes.device, StreamPrefixes.file, StreamPrefixes.share],
  async init(docs) {
    const users = usersCollection(docs);
    await users.ensureIndex({ username: 1 }, { unique: true });
    await users.ensureIndex({ partnerId: 1, username: 1 });
    // a group's members in name order (member pages, plan changes): with only (partnerId, group_id)
    // the embedded store's planner took (partnerId, username) for the order and read every user of
    // the partner to find a group's twenty (a 20-member plan change 8 -> 23 ms at p50 beside a
    // 10,000-member group); a lone (partnerId) index was a prefix of the others, so it is gone
    await users.ensureIndex({ partnerId: 1, group_id: 1, username: 1 });
    // search_by=recently_stopped_uploading: a range on the latest backup within one partner
    await users.ensureIndex({ partnerId: 1, last_backup: 1 });
    // names are unique across partners: the operator's reservation status and the login look them
    // up so; a partner's user by name or email (`findPartnerUser`) too: a name's key is one user, an
    // email's one per partner at most, so the partner is checked on the few rows found (the
    // embedded store's planner takes these for { partnerId, usernameKey } once the composite
    // indexes are gone: explained in users.indexes.int.test.ts)
    await users.ensureIndex({ usernameKey: 1 });
    await users.ensureIndex({ emailKey: 1 });
    // a user's devices (deleteMany by user) and its latest backup: one index
    await userDevices(docs).ensureIndex({ userId: 1, last_backup: -1 });
    // Indexes stores made by older builds keep and write on every upsert (issue 37: the user
    // document is rewritten for the bytes of about every other upload): (partnerId, usernameKey)
    // and (partnerId, emailKey) beside the keys' own indexes, a lone userId beside (userId, last_backup).
    await users.dropIndex({ partnerId: 1, emailKey: 1 });
    await users.dropIndex({ partnerId: 1, usernameKey: 1 });
    await userDevices(docs).dropIndex({ userId: 1 });
  },
  async apply(event, docs) {
    if (event.stream.startsWith(StreamPrefixes.user)) await applyUserEvent(docs, event);
    else if (event.stream.startsWith(StreamPrefixes.device)) await applyDeviceEvent(docs, event);
    else if (event.stream.startsWith(StreamPrefixes.file)) await applyFileEvent(docs, event);
    else await applyShareEvent(docs, event);
  },
});

export const storageBytesOf = (plan: Plan | undefined, bonus: number) =>
  !plan ? bonus : plan.storage_bytes >= UNLIMITED_BYTES ? UNLIMITED_BYTES : plan.storage_bytes + bonus;

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
