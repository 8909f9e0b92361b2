/**
 * Is a reservation live, in flight or stuck? And the operator's paged list of reservations with
 * that answer. Joined at read time from the users, partners, groups and pending_processes read
 * models, which one projection runner keeps at the same position: a `NameReserved` visible here
 * means the `ProcessStarted` before it is visible too, and a process no longer pending means what
 * it created is.
 *
 * - live: an existing user, partner or group has the name;
 * - in flight: the owner is an unfinished multi-step write, or the user or partner such a write is
 *   creating, changing or deleting (recovery finishes or undoes it, releasing the name if due);
 * - stuck: neither; nothing will ever release it (e.g. a crash before the write was recorded).
 */
import type { ReservationPage, ReservationRecord, ReservationStatus } from '@burrow/contracts';
import type { Filter } from '@burrow/documents';
import { pendingProcessesCollection, type PendingProcessDoc } from '@burrow/eventsourcing';
import { groupsCollection } from '../read-models/groups.projection.js';
import { partnersCollection } from '../partners/partners.projection.js';
import type { AccountsContext } from '../context.js';
import { type UserDoc, usersCollection } from '../read-models/users.projection.js';
import { type ReservationDoc, reservationsCollection } from './reservations.projection.js';

export type ReservationRef = Pick<ReservationDoc, 'kind' | 'name' | 'partnerId' | 'owner'>;

export interface StatusOf {
  status: ReservationStatus;
  reason: string;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const exactly = (name: string) => ({ $regex: `^${escapeRegex(name)}$`, $options: 'i' });
const since = (p: PendingProcessDoc) => new Date(p.startedAt * 1000).toISOString();

/** Who has the name now, if anyone: the owner first (one lookup by id), then anyone by name. */
async function holderOf(ctx: AccountsContext, r: ReservationRef): Promise<string | null> {
  switch (r.kind) {
    case 'username':
    case 'email': {
      // one login namespace: a username or an email holds both streams of its name (name-reservations.ts)
      const users = usersCollection(ctx.docs);
      const owner = await users.get(r.owner);
      const holds = (u: UserDoc | null) =>
        u && (u.usernameKey === r.name ? 'username' : u.emailKey === r.name ? 'email' : null);
      const user = holds(owner)
        ? owner
        : ((await users.findOne({ usernameKey: r.name })) ?? (await users.findOne({ emailKey: r.name })));
      return user
        ? `user ${user.username} (${user._id}) has this name as ${holds(user) === 'username' ? 'username' : 'email'}`
        : null;
    }
    case 'partnername': {
      const partners = partnersCollection(ctx.docs);
      const owner = await partners.get(r.owner);
      const partner =
        owner?.username.toLowerCase() === r.name ? owner : await partners.findOne({ username: exactly(r.name) });
      return partner ? `partner ${partner.username} (${partner._id}) has this name` : null;
    }
    case 'groupname': {
      // a stream name this version cannot split: never offer it for release as stuck
      if (!r.partnerId) return 'the partner this group name belongs to cannot be read from the stream name';
      const group = await groupsCollection(ctx.docs).findOne({ partnerId: r.partnerId, name: exactly(r.name) });
      return group ? `group ${group.group_id} (${group.name}) of partner ${r.partnerId} has this name` : null;
    }
  }
}

/** The unfinished multi-step write that owns the reservation, or whose subject owns it. */
async function writeInFlight(ctx: AccountsContext, r: ReservationRef): Promise<string | null> {
  const pending = pendingProcessesCollection(ctx.docs);
  const own = await pending.get(r.owner);
  if (own) return `unfinished ${own.kind} write ${own._id}, started ${since(own)}`;
  // Users and partners reserve under their own id, not the write's: CreateUser, ChangeUser (a new
  // email) and DeleteUser carry the user's id, CreatePartner the partner's.
  let about: Filter | null = null;
  if (r.kind === 'username' || r.kind === 'email') about = { 'data.userId': r.owner };
  if (r.kind === 'partnername') about = { kind: 'CreatePartner', 'data.partnerId': r.owner };
  const write = about && (await pending.findOne(about));
  return write ? `unfinished ${write.kind} write ${write._id} for ${r.owner}, started ${since(write)}` : null;
}

export async function reservationStatus(ctx: AccountsContext, r: ReservationRef): Promise<StatusOf> {
  const holder = await holderOf(ctx, r);
  if (holder) return { status: 'live', reason: holder };
  const write = await writeInFlight(ctx, r);
  if (write) return { status: 'in_flight', reason: write };
  return {
    status: 'stuck',
    reason: `no ${r.kind === 'groupname' ? 'group' : r.kind === 'partnername' ? 'partner' : 'user'} has this name and no unfinished write owns ${r.owner}`,
  };
}

async function toRecord(ctx: AccountsContext, doc: ReservationDoc): Promise<ReservationRecord> {
  const { status, reason } = await reservationStatus(ctx, doc);
  const record: ReservationRecord = {
    kind: doc.kind,
    name: doc.name,
    stream: doc._id,
    owner: doc.owner,
    reserved_at: new Date(doc.reservedAt).toISOString(),
    status,
    reason,
  };
  if (doc.partnerId) {
    record.partner_id = doc.partnerId;
    const partner = await partnersCollection(ctx.docs).get(doc.partnerId);
    if (partner) record.partner = partner.username;
  }
  return record;
}

/** Documents read per query, and at most per call (a `--stuck` page may need to look through many). */
const BATCH = 200;
const MAX_SCAN = 5000;

export interface ListReservations {
  kind?: ReservationDoc['kind'];
  stuck: boolean;
  limit: number;
  after?: string;
}

/**
 * One page of reservations in stream-name order. With `stuck`, looks through at most MAX_SCAN
 * reservations per call: `next` then says where to go on, even if the page is not full.
 */
export async function listReservations(ctx: AccountsContext, request: ListReservations): Promise<ReservationPage> {
  const reservations = reservationsCollection(ctx.docs);
  const after = (cursor: string | undefined): Filter => ({
    ...(request.kind ? { kind: request.kind } : {}),
    ...(cursor ? { _id: { $gt: cursor } } : {}),
  });
  const out: ReservationRecord[] = [];
  let cursor = request.after;
  let scanned = 0;
  for (;;) {
    const batch = await reservations.find(after(cursor), { sort: { _id: 1 }, limit: BATCH });
    for (const doc of batch) {
      cursor = doc._id;
      scanned += 1;
      const record = await toRecord(ctx, doc);
      if (!request.stuck || record.status === 'stuck') out.push(record);
      if (out.length === request.limit || scanned === MAX_SCAN) {
        const more = (await reservations.find(after(cursor), { sort: { _id: 1 }, limit: 1 })).length > 0;
        return { reservations: out, next: more ? cursor : null };
      }
    }
    if (batch.length < BATCH) return { reservations: out, next: null };
  }
}
