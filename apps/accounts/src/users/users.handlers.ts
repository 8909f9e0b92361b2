/** Bus handlers for users: create, list, count, read, change, delete, devices, shares. */
import {
  badRequest,
  conflict,
  type CreateUserReply,
  type CreateUserRequest,
  type DeviceRecord,
  JsonText,
  type ListUsersRequest,
  MAX_PAGE,
  notFound,
  RECENTLY_STOPPED_UPLOADING,
  type ShareRef,
  Subjects,
  type UpdateUserRequest,
  type UserCount,
  USERNAME_PATTERN,
  type UserRecord,
  type UserRef,
  type UserShareRoom,
} from '@burrow/contracts';
import type { Filter } from '@burrow/documents';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { randomUUID } from 'node:crypto';
import { findGroup } from '../read-models/groups.projection.js';
import { adoptGroupPlan } from '../groups/member-plan.js';
import { generateSecret, hashPassword } from '../logins/password-hash.js';
import { requirePartner } from '../partners/partners.projection.js';
import { listPlans, planMap, planMapOf, requirePlan } from '../plans/plans.projection.js';
import { allocationOf, allocationRevision } from '../quota/allocation.js';
import { ACCOUNTS_CONTEXT, type AccountsContext } from '../context.js';
import { devicesCollection, sharesCollection } from '../storage-usage/storage-usage.projection.js';
import { changeUser } from './change-user.js';
import { createUserProcess } from './create-user.process.js';
import { deleteUserProcess } from './delete-user.process.js';
import { findPartnerUser, toUserRecord, type UserDoc, usersCollection } from '../read-models/users.projection.js';

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const MONGO_OPERATORS = { '=': '$eq', '>': '$gt', '>=': '$gte', '<': '$lt', '<=': '$lte' } as const;

@Controller()
export class UsersHandlers {
  constructor(@Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext) {}

  private findUser(partnerId: string, user: string): Promise<UserDoc> {
    return findPartnerUser(this.ctx.docs, partnerId, user);
  }

  private async reloadRecord(userId: string): Promise<UserRecord> {
    const doc = await usersCollection(this.ctx.docs).get(userId);
    if (!doc) throw notFound('no such user');
    return toUserRecord(doc, await planMapOf(this.ctx.docs, doc.plan_id));
  }

  @MessagePattern(Subjects.accounts.createUser)
  async create(@Payload() req: CreateUserRequest): Promise<CreateUserReply> {
    const partner = await requirePartner(this.ctx.docs, req.partnerId);
    const email = req.email;
    const username =
      req.username ??
      (partner.features.email_as_username ? email : email.split('@')[0].replace(/[^A-Za-z0-9._-]/g, ''));
    // a username derived from the email must follow the same rule as one given
    if (!USERNAME_PATTERN.test(username)) throw badRequest('invalid username', ['username']);

    const groupId = req.group_id ?? null;
    const group = groupId === null ? null : await findGroup(this.ctx.docs, partner._id, groupId);
    if (groupId !== null && !group) throw conflict(`group ${groupId} does not exist`, ['group_id']);
    const planId = req.plan_id ?? group?.plan_id ?? (await listPlans(this.ctx.docs))[0]?.plan_id;
    if (planId === undefined) throw conflict('no plans exist', ['plan_id']);
    const plan = await requirePlan(this.ctx.docs, planId);
    const bonus = req.bonus_bytes ?? 0;
    // A chosen password gets scrypt; without one the user gets a generated temporary password,
    // 128 random bits that need no slow hash (password-hash.ts; docs/decisions.md, "Bulk creates").
    const temporary = req.password === undefined ? generateSecret() : null;
    const passwordHash = temporary ? temporary.hash : await hashPassword(req.password!);

    const userId = randomUUID();
    await this.ctx.processes.run(
      createUserProcess(this.ctx),
      {
        userId,
        partnerId: partner._id,
        username,
        email,
        ledgerFrom: await allocationRevision(this.ctx.store, partner._id),
        adoptPlanOf: groupId !== null && req.plan_id === undefined ? groupId : null,
      },
      {
        user: {
          name: req.name,
          plan_id: plan.plan_id,
          group_id: groupId,
          bonus_bytes: bonus,
          creation_time: this.ctx.clock.now(),
          passwordHash,
        },
        enabled: req.enabled ?? true,
        purgehold_active: req.purgehold_active ?? false,
        allocation: allocationOf(plan, bonus),
        limit: partner.bytes_available,
      },
    );
    const reply: CreateUserReply = { user: await this.reloadRecord(userId), username };
    if (temporary) reply.temp_password = temporary.secret;
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
    const by = req.search_by;
    if (by?.field === RECENTLY_STOPPED_UPLOADING) {
      // within the last `within` seconds, not within the last `notWithin` (null never matches)
      const now = this.ctx.clock.now();
      filter.last_backup = { $gte: now - by.within, $lt: now - by.notWithin };
    } else if (by) {
      filter[by.field] = { [MONGO_OPERATORS[by.op]]: by.value };
    }
    return filter;
  }

  /** Serialized here, once: the gateway relays the page to the client as it is. */
  @MessagePattern(Subjects.accounts.listUsers)
  async list(@Payload() req: ListUsersRequest): Promise<JsonText<UserRecord[]>> {
    if (req.limit === 0) return JsonText.of([]);
    let sort: Record<string, 1 | -1> = { username: 1 };
    if (req.order_by) {
      const desc = req.order_by.startsWith('-');
      const field = desc ? req.order_by.slice(1) : req.order_by;
      // username is unique: the tie-break that makes paging stable
      sort = field === 'username' ? { username: desc ? -1 : 1 } : { [field]: desc ? -1 : 1, username: 1 };
    }
    const docs = await usersCollection(this.ctx.docs).find(this.listFilter(req), {
      sort,
      skip: req.offset ?? 0,
      limit: Math.min(req.limit ?? MAX_PAGE, MAX_PAGE),
    });
    const plans = await planMap(this.ctx.docs);
    return JsonText.of(docs.map((d) => toUserRecord(d, plans)));
  }

  @MessagePattern(Subjects.accounts.countUsers)
  async count(@Payload() req: ListUsersRequest): Promise<UserCount> {
    return { user_count: await usersCollection(this.ctx.docs).count(this.listFilter(req)) };
  }

  @MessagePattern(Subjects.accounts.getUser)
  async get(@Payload() { partnerId, user }: UserRef): Promise<UserRecord> {
    const doc = await this.findUser(partnerId, user);
    return toUserRecord(doc, await planMapOf(this.ctx.docs, doc.plan_id));
  }

  @MessagePattern(Subjects.accounts.updateUser)
  async update(@Payload() { partnerId, user, changes }: UpdateUserRequest): Promise<UserRecord> {
    const partner = await requirePartner(this.ctx.docs, partnerId);
    const doc = await this.findUser(partnerId, user);
    if (changes.plan_id !== undefined) await requirePlan(this.ctx.docs, changes.plan_id);
    let groupPlan: number | undefined;
    if (changes.group_id !== undefined && changes.group_id !== null) {
      const group = await findGroup(this.ctx.docs, partnerId, changes.group_id);
      if (!group) throw conflict(`group ${changes.group_id} does not exist`, ['group_id']);
      groupPlan = group.plan_id;
    }
    const passwordHash = changes.password === undefined ? undefined : await hashPassword(changes.password);
    let position = await changeUser(
      this.ctx,
      partnerId,
      doc._id,
      (state) => ({
        name: changes.name,
        email: changes.email,
        group_id: changes.group_id,
        // joining a group adopts its plan unless the same request names one
        plan_id:
          changes.plan_id ??
          (changes.group_id !== undefined && changes.group_id !== state.group_id ? groupPlan : undefined),
        bonus_bytes: changes.bonus_bytes,
        enabled: changes.enabled,
        purgehold_active: changes.purgehold_active,
        passwordHash,
      }),
      { limit: partner.bytes_available, reason: `update ${doc._id}`, refusal: 'quota exceeded' },
    );
    // Joining a group: its plan may have changed since it was read above (member-plan.ts).
    if (
      changes.group_id !== undefined &&
      changes.group_id !== null &&
      changes.group_id !== doc.group_id &&
      changes.plan_id === undefined
    ) {
      position =
        (await adoptGroupPlan(this.ctx, partnerId, doc._id, changes.group_id, `update ${doc._id}`)) ?? position;
    }
    await this.ctx.runner.waitFor(position);
    return this.reloadRecord(doc._id);
  }

  @MessagePattern(Subjects.accounts.deleteUser)
  async delete(@Payload() { partnerId, user }: UserRef): Promise<null> {
    const doc = await this.findUser(partnerId, user);
    await this.ctx.processes.run(deleteUserProcess(this.ctx), {
      userId: doc._id,
      partnerId,
      ledgerFrom: await allocationRevision(this.ctx.store, partnerId),
    });
    return null;
  }

  @MessagePattern(Subjects.accounts.userDevices)
  async devices(@Payload() { partnerId, user }: UserRef): Promise<DeviceRecord[]> {
    const doc = await this.findUser(partnerId, user);
    const devices = await devicesCollection(this.ctx.docs).find(
      { userId: doc._id },
      { sort: { creation_time: 1, name: 1 }, limit: MAX_PAGE },
    );
    return devices.map((d) => ({
      name: d.name,
      creation_time: d.creation_time,
      last_backup_complete: d.last_backup_complete,
      lastlogin: d.lastlogin,
      last_login: d.lastlogin,
      lastcommit: d.lastcommit,
      client_revision: d.client_revision,
      sysplatform: d.sysplatform,
    }));
  }

  @MessagePattern(Subjects.accounts.userShares)
  async shares(@Payload() { partnerId, user }: UserRef): Promise<UserShareRoom[]> {
    return (await this.findUser(partnerId, user)).share_rooms;
  }

  @MessagePattern(Subjects.accounts.userShare)
  async share(@Payload() { partnerId, user, room_key }: ShareRef): Promise<UserShareRoom> {
    const doc = await this.findUser(partnerId, user);
    const share = await sharesCollection(this.ctx.docs).get(`${doc._id}:${room_key}`);
    if (!share) throw notFound(`no share ${room_key}`);
    const { _id, userId: _u, partnerId: _p, ...room } = share;
    return room;
  }
}
