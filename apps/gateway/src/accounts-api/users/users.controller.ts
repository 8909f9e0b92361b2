/** Users of the partner: `/users/`, `/users/<u>`, their devices and share rooms. */
import {
  type ActivationEmailSent,
  badRequest,
  bonusBytesOf,
  CreateUserBody,
  type CreateUserReply,
  type DeviceRecord,
  MAIL_SEND_TIMEOUT_MS,
  SendActivationEmailBody,
  type SetSharePasswordRequest,
  Subjects,
  UpdateUserBody,
  type UserCount,
  type UserRecord,
  type UserShareRoom,
  type z,
} from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, HttpCode, Inject, Param, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AuthenticatedInCall, type InCall, type PartnerIdentity } from '../../partner-access/partner-in-call.js';
import { PartnerGuard, PartnerId } from '../../partner-access/partner.guard.js';
import { JsonBody } from '../../http/json-body.js';
import { Body, parseBody, Query } from '../../http/request.js';
import { relayedJson } from '../../http/relayed-json.js';
import { RPC } from '../../http/tokens.js';
import { Route } from '../../http/route.js';
import { ACCOUNTS_API_MOUNTS } from '../mount.js';
import { USER_ROUTES } from './users.routes.js';

@Controller(ACCOUNTS_API_MOUNTS)
@UseGuards(PartnerGuard)
// the routes that call accounts only are authenticated with that call (one bus round trip)
export class UsersController {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  @Route(USER_ROUTES.list)
  @AuthenticatedInCall()
  async list(
    @PartnerId() partnerId: PartnerIdentity,
    @Query(USER_ROUTES.list.query) query: z.output<typeof USER_ROUTES.list.query>,
    @Res({ passthrough: true }) res: Response,
  ): Promise<string | UserCount> {
    const { action, ...filters } = query;
    if (action === 'user_count')
      return this.rpc.call<UserCount>(Subjects.accounts.countUsers, { partnerId, ...filters });
    // a page is up to 1,000 users: written as the accounts service serialized it
    return relayedJson(res, await this.rpc.relay<UserRecord[]>(Subjects.accounts.listUsers, { partnerId, ...filters }));
  }

  @Route(USER_ROUTES.create)
  @AuthenticatedInCall()
  async create(
    @PartnerId() partnerId: PartnerIdentity,
    @Body(USER_ROUTES.create.body, { required: true }) body: CreateUserBody,
    @Res() res: Response,
  ): Promise<void> {
    const { bonus_gigs: _g, bonus_bytes: _b, ...fields } = body;
    const reply = await this.rpc.call<CreateUserReply>(Subjects.accounts.createUser, {
      partnerId,
      ...fields,
      bonus_bytes: bonusBytesOf(body),
    });
    res.status(201).json(reply);
  }

  @Route(USER_ROUTES.get)
  @AuthenticatedInCall()
  get(@PartnerId() partnerId: PartnerIdentity, @Param('user') user: string): Promise<UserRecord> {
    return this.rpc.call(Subjects.accounts.getUser, { partnerId, user });
  }

  @Route(USER_ROUTES.devices)
  @AuthenticatedInCall()
  devices(@PartnerId() partnerId: PartnerIdentity, @Param('user') user: string): Promise<DeviceRecord[]> {
    return this.rpc.call(Subjects.accounts.userDevices, { partnerId, user });
  }

  /**
   * Changes any of the user's fields; `?action=delete` deletes the user (the body is ignored);
   * `?action=sendactivationemail` mails the user a set-password link (body `{"template_name"}`,
   * optional).
   */
  @Route(USER_ROUTES.update)
  @AuthenticatedInCall()
  @HttpCode(200)
  async update(
    @PartnerId() partnerId: PartnerIdentity,
    @Param('user') user: string,
    @Query(USER_ROUTES.update.query) { action }: z.output<typeof USER_ROUTES.update.query>,
    @JsonBody() raw: unknown,
    @Req() req: Request,
  ): Promise<UserRecord | ActivationEmailSent | null> {
    if (action === 'delete') return this.remove(partnerId, user);
    if (action === 'sendactivationemail') {
      const { template_name } = parseBody(SendActivationEmailBody, raw);
      // the link's base when BURROW_PUBLIC_URL is unset: where this request came to
      const origin = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
      // an SMTP server may take its time: wait past the mailer's own deadline, not the usual RPC timeout
      return this.rpc.call(
        Subjects.accounts.sendActivationEmail,
        { partnerId, user, template_name, origin },
        { timeoutMs: MAIL_SEND_TIMEOUT_MS + 5000 },
      );
    }
    const body = parseBody(UpdateUserBody, raw);
    const { bonus_gigs: _g, bonus_bytes: _b, ...changes } = body;
    return this.rpc.call(Subjects.accounts.updateUser, {
      partnerId,
      user,
      changes: { ...changes, bonus_bytes: bonusBytesOf(body) },
    });
  }

  @Route(USER_ROUTES.remove)
  @AuthenticatedInCall()
  async remove(@PartnerId() partnerId: PartnerIdentity, @Param('user') user: string): Promise<null> {
    await this.rpc.call(Subjects.accounts.deleteUser, { partnerId, user });
    return null;
  }

  @Route(USER_ROUTES.shares)
  @AuthenticatedInCall()
  shares(@PartnerId() partnerId: PartnerIdentity, @Param('user') user: string): Promise<UserShareRoom[]> {
    return this.rpc.call(Subjects.accounts.userShares, { partnerId, user });
  }

  @Route(USER_ROUTES.share)
  @AuthenticatedInCall()
  share(
    @PartnerId() partnerId: PartnerIdentity,
    @Param('user') user: string,
    @Param('room') room_key: string,
  ): Promise<UserShareRoom> {
    return this.rpc.call(Subjects.accounts.userShare, { partnerId, user, room_key });
  }

  /** Enables or disables the room (clients send `{}` as the body, which is then ignored); without an action, sets or removes its password. */
  @Route(USER_ROUTES.setShareEnabled)
  @HttpCode(200)
  changeShare(
    @PartnerId() partnerId: PartnerIdentity,
    @Param('user') user: string,
    @Param('room') room_key: string,
    @Query(USER_ROUTES.setShareEnabled.query) { action }: z.output<typeof USER_ROUTES.setShareEnabled.query>,
    @JsonBody() raw: unknown,
  ): Promise<UserShareRoom> {
    if (action)
      return this.rpc.call(Subjects.storage.setShareEnabled, {
        partnerId,
        user,
        room_key,
        enabled: action === 'enable',
      });
    const { password } = parseBody(USER_ROUTES.setShareEnabled.body, raw, { required: true });
    if (password === undefined)
      throw badRequest('give ?action=enable|disable, or a password (null removes it) in the body', [
        'action',
        'password',
      ]);
    return this.rpc.call(Subjects.storage.setSharePassword, {
      partnerId,
      user,
      room_key,
      password,
    } satisfies InCall<SetSharePasswordRequest>);
  }
}
