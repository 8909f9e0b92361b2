import {
  badRequest,
  type CreateUserReply,
  type DeviceRecord,
  type ListUsersRequest,
  parseFields,
  queryInt,
  Subjects,
  type UserChanges,
  type UserRecord,
  type UserShareRoom,
} from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { JsonBody } from '../http/json-body.js';
import { PartnerGuard, PartnerId } from '../http/partner.guard.js';
import { RPC } from '../http/rpc.js';
import { ACCOUNTS_API_MOUNTS } from './mount.js';

const GIGABYTE = 1_000_000_000;

const USER_WRITE_FIELDS = {
  name: { kind: 'nonEmptyString', maxLength: 255 },
  email: { kind: 'email', maxLength: 254 },
  plan_id: { kind: 'int' },
  group_id: { kind: 'int', nullable: true },
  bonus_bytes: { kind: 'nonNegativeInt' },
  bonus_gigs: { kind: 'nonNegativeInt' },
  enabled: { kind: 'bool' },
  purgehold_active: { kind: 'bool' },
  password: { kind: 'string' },
} as const;

/** The bonus in bytes; 400 when it is no exact integer (clients read it as an int64). */
function bonusBytes(fields: { bonus_bytes?: number; bonus_gigs?: number }): number | undefined {
  if (fields.bonus_bytes !== undefined) {
    if (!Number.isSafeInteger(fields.bonus_bytes)) throw badRequest('bonus_bytes is too large', ['bonus_bytes']);
    return fields.bonus_bytes;
  }
  if (fields.bonus_gigs === undefined) return undefined;
  const bytes = fields.bonus_gigs * GIGABYTE;
  if (!Number.isSafeInteger(bytes)) throw badRequest('bonus_gigs is too large', ['bonus_gigs']);
  return bytes;
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

export function parseListQuery(query: Record<string, unknown>): Omit<ListUsersRequest, 'partnerId'> {
  const req: Omit<ListUsersRequest, 'partnerId'> = {
    plan_id: queryInt(query, 'plan_id'),
    group_id: queryInt(query, 'group_id'),
    limit: queryInt(query, 'limit', 0),
    offset: queryInt(query, 'offset', 0),
    search: str(query.search) || undefined,
    order_by: str(query.order_by) || undefined,
  };
  const searchBy = str(query.search_by);
  if (searchBy) {
    const m = /^([a-z_]+)\s*(>=|<=|=|>|<)\s*(.*)$/.exec(searchBy);
    if (!m) throw badRequest('search_by must look like field<op>value with op one of = > >= < <=', ['search_by']);
    req.search_by = { field: m[1], op: m[2] as '=', value: m[3].trim() };
  }
  return req;
}

@Controller(ACCOUNTS_API_MOUNTS)
@UseGuards(PartnerGuard)
export class UsersController {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  @Get('users')
  list(@PartnerId() partnerId: string, @Query() query: Record<string, unknown>): Promise<UserRecord[] | { user_count: number }> {
    const req = { partnerId, ...parseListQuery(query) };
    if (query.action === 'user_count') return this.rpc.call(Subjects.accounts.countUsers, req);
    return this.rpc.call(Subjects.accounts.listUsers, req);
  }

  @Post('users')
  async create(@PartnerId() partnerId: string, @JsonBody() body: unknown, @Res() res: Response): Promise<void> {
    const fields = parseFields<UserChanges & { username: string; bonus_gigs: number }>(body, {
      ...USER_WRITE_FIELDS,
      username: { kind: 'nonEmptyString', maxLength: 128 },
      name: { ...USER_WRITE_FIELDS.name, required: true },
      email: { ...USER_WRITE_FIELDS.email, required: true },
    });
    const reply = await this.rpc.call<CreateUserReply>(Subjects.accounts.createUser, {
      partnerId,
      username: fields.username,
      name: fields.name,
      email: fields.email,
      plan_id: fields.plan_id,
      group_id: fields.group_id,
      bonus_bytes: bonusBytes(fields),
      password: fields.password,
      enabled: fields.enabled,
      purgehold_active: fields.purgehold_active,
    });
    res.status(201).json(reply);
  }

  @Get('users/:user')
  get(@PartnerId() partnerId: string, @Param('user') user: string): Promise<UserRecord> {
    return this.rpc.call(Subjects.accounts.getUser, { partnerId, user });
  }

  @Get('users/:user/devices')
  devices(@PartnerId() partnerId: string, @Param('user') user: string): Promise<DeviceRecord[]> {
    return this.rpc.call(Subjects.accounts.userDevices, { partnerId, user });
  }

  @Post('users/:user')
  @HttpCode(200)
  async update(
    @PartnerId() partnerId: string,
    @Param('user') user: string,
    @Query('action') action: unknown,
    @JsonBody() body: unknown,
  ): Promise<UserRecord | null> {
    if (action === 'delete') return this.remove(partnerId, user);
    if (action !== undefined) throw badRequest(`unknown action ${String(action)}`, ['action']);
    const fields = parseFields<UserChanges & { bonus_gigs: number }>(body ?? {}, USER_WRITE_FIELDS);
    const { bonus_gigs: _g, ...rest } = fields;
    const changes: UserChanges = { ...rest, bonus_bytes: bonusBytes(fields) };
    return this.rpc.call(Subjects.accounts.updateUser, { partnerId, user, changes });
  }

  @Delete('users/:user')
  async remove(@PartnerId() partnerId: string, @Param('user') user: string): Promise<null> {
    await this.rpc.call(Subjects.accounts.deleteUser, { partnerId, user });
    return null;
  }

  @Get('users/:user/shares')
  shares(@PartnerId() partnerId: string, @Param('user') user: string): Promise<UserShareRoom[]> {
    return this.rpc.call(Subjects.accounts.userShares, { partnerId, user });
  }

  @Get('users/:user/shares/:room')
  async share(@PartnerId() partnerId: string, @Param('user') user: string, @Param('room') room_key: string): Promise<UserShareRoom> {
    const { share } = await this.rpc.call<{ share: UserShareRoom }>(Subjects.accounts.userShare, { partnerId, user, room_key });
    return share;
  }

  @Post('users/:user/shares/:room')
  @HttpCode(200)
  async setShareEnabled(
    @PartnerId() partnerId: string,
    @Param('user') user: string,
    @Param('room') room_key: string,
    @Query('action') action: unknown,
  ): Promise<UserShareRoom> {
    if (action !== 'enable' && action !== 'disable') throw badRequest('action must be enable or disable', ['action']);
    const { userId } = await this.rpc.call<{ userId: string }>(Subjects.accounts.userShare, { partnerId, user, room_key });
    const { position } = await this.rpc.call<{ position: number | null }>(Subjects.storage.setShareEnabled, {
      userId,
      room_key,
      enabled: action === 'enable',
    });
    // Read-your-writes across services: accounts' share list must show the change now.
    await this.rpc.call(Subjects.accounts.sync, { position });
    const { share } = await this.rpc.call<{ share: UserShareRoom }>(Subjects.accounts.userShare, { partnerId, user, room_key });
    return share;
  }
}
