/** Users of the partner: `/users/`, `/users/<u>`, their devices and share rooms. */
import {
  type ActivationEmailSent,
  bonusBytesOf,
  CreateUserBody,
  type CreateUserReply,
  type DeviceRecord,
  ListUsersQuery,
  MAIL_SEND_TIMEOUT_MS,
  SendActivationEmailBody,
  ShareActionQuery,
  Subjects,
  UpdateUserBody,
  UserActionQuery,
  type UserCount,
  type UserRecord,
  type UserShareRoom,
  type z,
} from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { PartnerGuard, PartnerId } from '../../http/partner.guard.js';
import { JsonBody } from '../../http/json-body.js';
import { Body, parseBody, Query } from '../../http/request.js';
import { RPC } from '../../http/tokens.js';
import { ACCOUNTS_API_MOUNTS } from '../mount.js';

@Controller(ACCOUNTS_API_MOUNTS)
@UseGuards(PartnerGuard)
export class UsersController {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  @Get('users')
  list(@PartnerId() partnerId: string, @Query(ListUsersQuery) query: z.output<typeof ListUsersQuery>): Promise<UserRecord[] | UserCount> {
    const { action, ...filters } = query;
    return this.rpc.call(action === 'user_count' ? Subjects.accounts.countUsers : Subjects.accounts.listUsers, { partnerId, ...filters });
  }

  @Post('users')
  async create(@PartnerId() partnerId: string, @Body(CreateUserBody, { required: true }) body: CreateUserBody, @Res() res: Response): Promise<void> {
    const { bonus_gigs: _g, bonus_bytes: _b, ...fields } = body;
    const reply = await this.rpc.call<CreateUserReply>(Subjects.accounts.createUser, { partnerId, ...fields, bonus_bytes: bonusBytesOf(body) });
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

  /**
   * Changes any of the user's fields; `?action=delete` deletes the user (the body is ignored);
   * `?action=sendactivationemail` mails the user a set-password link (body `{"template_name"}`,
   * optional).
   */
  @Post('users/:user')
  @HttpCode(200)
  async update(
    @PartnerId() partnerId: string,
    @Param('user') user: string,
    @Query(UserActionQuery) { action }: z.output<typeof UserActionQuery>,
    @JsonBody() raw: unknown,
    @Req() req: Request,
  ): Promise<UserRecord | ActivationEmailSent | null> {
    if (action === 'delete') return this.remove(partnerId, user);
    if (action === 'sendactivationemail') {
      const { template_name } = parseBody(SendActivationEmailBody, raw);
      // the link's base when BURROW_PUBLIC_URL is unset: where this request came to
      const origin = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
      // an SMTP server may take its time: wait past the mailer's own deadline, not the usual RPC timeout
      return this.rpc.call(Subjects.accounts.sendActivationEmail, { partnerId, user, template_name, origin }, { timeoutMs: MAIL_SEND_TIMEOUT_MS + 5000 });
    }
    const body = parseBody(UpdateUserBody, raw);
    const { bonus_gigs: _g, bonus_bytes: _b, ...changes } = body;
    return this.rpc.call(Subjects.accounts.updateUser, { partnerId, user, changes: { ...changes, bonus_bytes: bonusBytesOf(body) } });
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
  share(@PartnerId() partnerId: string, @Param('user') user: string, @Param('room') room_key: string): Promise<UserShareRoom> {
    return this.rpc.call(Subjects.accounts.userShare, { partnerId, user, room_key });
  }

  /** Enables or disables the room; clients send `{}` as the body, which is ignored. */
  @Post('users/:user/shares/:room')
  @HttpCode(200)
  setShareEnabled(
    @PartnerId() partnerId: string,
    @Param('user') user: string,
    @Param('room') room_key: string,
    @Query(ShareActionQuery) { action }: z.output<typeof ShareActionQuery>,
  ): Promise<UserShareRoom> {
    return this.rpc.call(Subjects.storage.setShareEnabled, { partnerId, user, room_key, enabled: action === 'enable' });
  }
}
