/** Bus handlers for users: create, list, count, read, change, delete, devices, shares. */
import {
  badRequest,
  conflict,
  type CreateUserReply,
  type CreateUserRequest,
  type DeviceRecord,
  type ListUsersRequest,
  notFound,
  type PartnerScoped,
  Streams,
  Subjects,
  type UserChanges,
  type UserRecord,
  type UserShareRoom,
} from '@burrow/contracts';
import type { Filter } from '@burrow/documents';
import { handleCommand } from '@burrow/eventsourcing';
import { hashPassword } from '@burrow/runtime';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { randomBytes, randomUUID } from 'node:crypto';
import { findGroup } from '../groups/groups.projection.js';
import { adoptGroupPlan } from '../groups/member-plan.js';
import { validateNewPassword } from '../partners/partner.js';
import { type PartnerDoc, partnersCollection } from '../partners/partners.projection.js';
import { listPlans, planMap, requirePlan } from '../plans/plans.projection.js';
import { allocate } from '../reservations/allocation-ledger.js';
import { nextId } from '../reservations/counter.js';
import { nameKey, releaseName, reserveName } from '../reservations/reservation.js';
import { ACCOUNTS_CONTEXT, type AccountsContext } from '../shared/context.js';
import { devicesCollection, sharesCollection } from '../storage-usage/storage-usage.projection.js';
import { userDecider } from './user.js';
import { changeUser } from './user-writes.js';
import { allocationOf, toUserRecord, type UserDoc, usersCollection } from './users.projection.js';

/** Page size cap: bulk clients page 1000 at a time; nobody gets an unbounded list. */
export const MAX_PAGE = 10_000;

const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$/;
const SORTABLE = new Set(['avatar_id', 'username', 'name', 'email', 'creation_time', 'last_login', 'bytes_stored', 'bonus_bytes', 'plan_id', 'group_id', 'enabled', 'purgehold_active', 'num_devices']);
const NUMERIC = new Set(['avatar_id', 'creation_time', 'last_login', 'bytes_stored', 'bonus_bytes', 'plan_id', 'group_id', 'num_devices', 'storage_bytes']);
const BOOLEAN = new Set(['enabled', 'purgehold_active']);

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const tempPassword = () => randomBytes(12).toString('base64url');

@Controller()
export class UsersHandlers {
  constructor(@Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext) {}

  private async partner(partnerId: string): Promise<PartnerDoc> {
    const p = await partnersCollection(this.ctx.docs).get(partnerId);
    if (!p) throw notFound('no such partner');
    return p;
  }

  /** A user of this partner by username or email; 404 otherwise (other partners' users included). */
  private async findUser(partnerId: string, user: string): Promise<UserDoc> {
    const users = usersCollection(this.ctx.docs);
    const doc =
      (await users.findOne({ partnerId, username: user })) ??
      (await users.findOne({ partnerId, usernameKey: user.toLowerCase() })) ??
      (user.includes('@') ? await users.findOne({ partnerId, emailKey: user.toLowerCase() }) : null);
    if (!doc) throw notFound(`no user ${user}`);
    return doc;
  }

  private async record(doc: UserDoc): Promise<UserRecord> {
    return toUserRecord(doc, await planMap(this.ctx.docs));
  }

  private async reloadRecord(userId: string): Promise<UserRecord> {
    const doc = await usersCollection(this.ctx.docs).get(userId);
    if (!doc) throw notFound('no such user');
    return this.record(doc);
  }

  @MessagePattern(Subjects.accounts.createUser)
  async create(@Payload() req: CreateUserRequest): Promise<CreateUserReply> {
    const partner = await this.partner(req.partnerId);
    const email = req.email.trim();
    let username = req.username?.trim();
    if (!username) username = partner.features.email_as_username ? email : email.split('@')[0].replace(/[^A-Za-z0-9._-]/g, '');
    if (!USERNAME.test(username)) throw badRequest('invalid username', ['username']);
    const password = req.password === undefined ? undefined : validateNewPassword(req.password);

    const groupId = req.group_id ?? null;
    const group = groupId === null ? null : await findGroup(this.ctx.docs, partner._id, groupId);
    if (groupId !== null && !group) throw conflict(`group ${groupId} does not exist`, ['group_id']);
    const planId = req.plan_id ?? group?.plan_id ?? (await listPlans(this.ctx.docs))[0]?.plan_id;
    if (planId === undefined) throw conflict('no plans exist', ['plan_id']);
    const plan = await requirePlan(this.ctx.docs, planId);
    const bonus = req.bonus_bytes ?? 0;

    const userId = randomUUID();
    const usernameStream = Streams.reservation('username', nameKey(username));
    const emailStream = Streams.reservation('email', nameKey(email));
    await reserveName(this.ctx.store, usernameStream, userId, 'username');
    let allocated = 0;
    const secret = password ?? tempPassword();
    let position: number | null;
    try {
      await reserveName(this.ctx.store, emailStream, userId, 'email');
      allocated = allocationOf(plan, bonus);
      try {
        await allocate(this.ctx.store, partner._id, allocated, { bytesAvailable: partner.bytes_available, enforce: true, reason: `create ${userId}`, refusal: 'payment required' });
      } catch (error) {
        allocated = 0;
        throw error;
      }
      const result = await handleCommand(this.ctx.store, Streams.user(userId), userDecider, {
        type: 'CreateUser',
        data: {
          userId, partnerId: partner._id, username, name: req.name.trim(), email, plan_id: plan.plan_id,
          group_id: groupId, bonus_bytes: bonus, avatar_id: await nextId(this.ctx.store, Streams.counter('avatar_id')),
          share_id: username, creation_time: this.ctx.clock.now(), passwordHash: await hashPassword(secret),
        },
      });
      position = result.position;
    } catch (error) {
      if (allocated) await allocate(this.ctx.store, partner._id, -allocated, { bytesAvailable: null, enforce: false, reason: `undo ${userId}` });
      await releaseName(this.ctx.store, emailStream, userId);
      await releaseName(this.ctx.store, usernameStream, userId);
      throw error;
    }
    // The group's plan may have changed since it was read above (member-plan.ts).
    if (groupId !== null && req.plan_id === undefined) position = (await adoptGroupPlan(this.ctx, partner, userId, groupId, `create ${userId}`)) ?? position;
    if (req.enabled === false || req.purgehold_active === true) {
      const flags = { enabled: req.enabled, purgehold_active: req.purgehold_active };
      position = (await changeUser(this.ctx, partner, userId, () => flags, { enforceQuota: false, reason: `create ${userId}` })) ?? position;
    }
    await this.ctx.runner.waitFor(position);
    const reply: CreateUserReply = { user: await this.reloadRecord(userId), username };
    if (password === undefined) reply.temp_password = secret;
    return reply;
  }

  private listFilter(req: ListUsersRequest): Filter {
    const filter: Filter = { partnerId: req.partnerId };
    if (req.plan_id !== undefined) filter.plan_id = req.plan_id;
    if (req.group_id !== undefined) filter.group_id = req.group_id;
    if (req.search) {
      const pattern = escapeRegex(req.search);
      filter.$or = [{ name: { $regex: pattern, $options: 'i' } }, { email: { $regex: pattern, $options: 'i' } }];
    }
    if (req.search_by) {
      const { field, op, value } = req.search_by;
      if (!SORTABLE.has(field)) throw badRequest(`cannot search by ${field}`, ['search_by']);
      let v: unknown = value;
      if (NUMERIC.has(field)) {
        if (!/^-?\d+$/.test(value)) throw badRequest(`search_by ${field} needs a number`, ['search_by']);
        v = Number(value);
      } else if (BOOLEAN.has(field)) {
        if (!/^(0|1|true|false)$/i.test(value)) throw badRequest(`search_by ${field} needs a boolean`, ['search_by']);
        v = /^(1|true)$/i.test(value);
      }
      const mongoOp = { '=': '$eq', '>': '$gt', '>=': '$gte', '<': '$lt', '<=': '$lte' }[op];
      filter[field] = { [mongoOp]: v };
    }
    return filter;
  }

  @MessagePattern(Subjects.accounts.listUsers)
  async list(@Payload() req: ListUsersRequest): Promise<UserRecord[]> {
    if (req.limit === 0) return [];
    let sort: Record<string, 1 | -1> = { username: 1 };
    if (req.order_by) {
      const desc = req.order_by.startsWith('-');
      const field = desc ? req.order_by.slice(1) : req.order_by;
      if (!SORTABLE.has(field)) throw badRequest(`cannot order by ${field}`, ['order_by']);
      // username is unique: the tie-break that makes paging stable
      sort = field === 'username' ? { username: desc ? -1 : 1 } : { [field]: desc ? -1 : 1, username: 1 };
    }
    const docs = await usersCollection(this.ctx.docs).find(this.listFilter(req), {
      sort,
      skip: req.offset ?? 0,
      limit: Math.min(req.limit ?? MAX_PAGE, MAX_PAGE),
    });
    const plans = await planMap(this.ctx.docs);
    return docs.map((d) => toUserRecord(d, plans));
  }

  @MessagePattern(Subjects.accounts.countUsers)
  async count(@Payload() req: ListUsersRequest): Promise<{ user_count: number }> {
    return { user_count: await usersCollection(this.ctx.docs).count(this.listFilter(req)) };
  }

  @MessagePattern(Subjects.accounts.getUser)
  async get(@Payload() { partnerId, user }: PartnerScoped & { user: string }): Promise<UserRecord> {
    return this.record(await this.findUser(partnerId, user));
  }

  @MessagePattern(Subjects.accounts.updateUser)
  async update(@Payload() { partnerId, user, changes }: PartnerScoped & { user: string; changes: UserChanges }): Promise<UserRecord> {
    const partner = await this.partner(partnerId);
    const doc = await this.findUser(partnerId, user);
    if (changes.plan_id !== undefined) await requirePlan(this.ctx.docs, changes.plan_id);
    let groupPlan: number | undefined;
    if (changes.group_id !== undefined && changes.group_id !== null) {
      const group = await findGroup(this.ctx.docs, partnerId, changes.group_id);
      if (!group) throw conflict(`group ${changes.group_id} does not exist`, ['group_id']);
      groupPlan = group.plan_id;
    }
    const passwordHash = changes.password === undefined ? undefined : await hashPassword(validateNewPassword(changes.password));

    const newEmail = changes.email !== undefined && changes.email.toLowerCase() !== doc.emailKey ? changes.email : undefined;
    const emailStream = newEmail ? Streams.reservation('email', nameKey(newEmail)) : '';
    if (newEmail) await reserveName(this.ctx.store, emailStream, doc._id, 'email');
    let position: number | null;
    try {
      position = await changeUser(
        this.ctx,
        partner,
        doc._id,
        (state) => ({
          name: changes.name,
          email: changes.email,
          group_id: changes.group_id,
          // joining a group adopts its plan unless the same request names one
          plan_id: changes.plan_id ?? (changes.group_id !== undefined && changes.group_id !== state.group_id ? groupPlan : undefined),
          bonus_bytes: changes.bonus_bytes,
          enabled: changes.enabled,
          purgehold_active: changes.purgehold_active,
          passwordHash,
        }),
        { enforceQuota: true, reason: `update ${doc._id}`, refusal: 'quota exceeded' },
      );
    } catch (error) {
      if (newEmail) await releaseName(this.ctx.store, emailStream, doc._id);
      throw error;
    }
    if (newEmail) await releaseName(this.ctx.store, Streams.reservation('email', nameKey(doc.email)), doc._id);
    // Joining a group: its plan may have changed since it was read above (member-plan.ts).
    if (changes.group_id !== undefined && changes.group_id !== null && changes.group_id !== doc.group_id && changes.plan_id === undefined) {
      position = (await adoptGroupPlan(this.ctx, partner, doc._id, changes.group_id, `update ${doc._id}`)) ?? position;
    }
    await this.ctx.runner.waitFor(position);
    return this.reloadRecord(doc._id);
  }

  @MessagePattern(Subjects.accounts.deleteUser)
  async delete(@Payload() { partnerId, user }: PartnerScoped & { user: string }): Promise<null> {
    const doc = await this.findUser(partnerId, user);
    const result = await handleCommand(this.ctx.store, Streams.user(doc._id), userDecider, { type: 'DeleteUser', at: this.ctx.clock.now() });
    const plans = await planMap(this.ctx.docs);
    // what the user held when deleted (the stream's state), not the read model's possibly older view
    const held = result.state;
    await allocate(this.ctx.store, partnerId, -allocationOf(plans.get(held.plan_id), held.bonus_bytes), { bytesAvailable: null, enforce: false, reason: `delete ${doc._id}` });
    await releaseName(this.ctx.store, Streams.reservation('username', nameKey(doc.username)), doc._id);
    await releaseName(this.ctx.store, Streams.reservation('email', nameKey(doc.email)), doc._id);
    await this.ctx.runner.waitFor(result.position);
    return null;
  }

  @MessagePattern(Subjects.accounts.userDevices)
  async devices(@Payload() { partnerId, user }: PartnerScoped & { user: string }): Promise<DeviceRecord[]> {
    const doc = await this.findUser(partnerId, user);
    const devices = await devicesCollection(this.ctx.docs).find({ userId: doc._id }, { sort: { creation_time: 1, name: 1 }, limit: MAX_PAGE });
    return devices.map((d) => ({
      name: d.name, creation_time: d.creation_time, last_backup_complete: d.last_backup_complete, lastlogin: d.lastlogin,
      lastcommit: d.lastcommit, client_revision: d.client_revision, sysplatform: d.sysplatform,
    }));
  }

  @MessagePattern(Subjects.accounts.userShares)
  async shares(@Payload() { partnerId, user }: PartnerScoped & { user: string }): Promise<UserShareRoom[]> {
    return (await this.findUser(partnerId, user)).share_rooms;
  }

  /** One share of a user; also tells the gateway the internal user id for enable/disable. */
  @MessagePattern(Subjects.accounts.userShare)
  async share(@Payload() { partnerId, user, room_key }: PartnerScoped & { user: string; room_key: string }): Promise<{ share: UserShareRoom; userId: string }> {
    const doc = await this.findUser(partnerId, user);
    const share = await sharesCollection(this.ctx.docs).get(`${doc._id}:${room_key}`);
    if (!share) throw notFound(`no share ${room_key}`);
    const { _id, userId, partnerId: _p, ...room } = share;
    return { share: room, userId };
  }
}
