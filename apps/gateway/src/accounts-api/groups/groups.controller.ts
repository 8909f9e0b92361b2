/** Groups of the partner: `/groups/` and `/groups/<id>`. */
import { type CreateGroupBody, type Group, notFound, Subjects, type z } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, HttpCode, Inject, Param, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { replyCreated } from '../../http/created.js';
import { JsonBody } from '../../http/json-body.js';
import { AuthenticatedInCall, type PartnerIdentity } from '../../partner-access/partner-in-call.js';
import { PartnerGuard, PartnerId } from '../../partner-access/partner.guard.js';
import { Body, parseBody, Query } from '../../http/request.js';
import { Route } from '../../http/route.js';
import { RPC } from '../../http/tokens.js';
import { ACCOUNTS_API_MOUNTS } from '../mount.js';
import { GROUP_ROUTES } from './groups.routes.js';

/** A group id from the path; anything but a positive integer names no group. */
function groupId(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw notFound(`no group ${raw}`);
  return Number(raw);
}

@Controller(ACCOUNTS_API_MOUNTS)
@UseGuards(PartnerGuard)
// every route calls accounts only: authenticated with that call (one bus round trip)
@AuthenticatedInCall()
export class GroupsController {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  @Route(GROUP_ROUTES.list)
  list(
    @PartnerId() partnerId: PartnerIdentity,
    @Query(GROUP_ROUTES.list.query) { search }: z.output<typeof GROUP_ROUTES.list.query>,
  ): Promise<Group[]> {
    return this.rpc.call(Subjects.accounts.listGroups, { partnerId, search });
  }

  @Route(GROUP_ROUTES.create)
  async create(
    @PartnerId() partnerId: PartnerIdentity,
    @Body(GROUP_ROUTES.create.body, { required: true }) body: CreateGroupBody,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const group = await this.rpc.call<Group>(Subjects.accounts.createGroup, { partnerId, ...body });
    replyCreated(req, res, group.group_id, group);
  }

  @Route(GROUP_ROUTES.get)
  get(@PartnerId() partnerId: PartnerIdentity, @Param('id') id: string): Promise<Group> {
    return this.rpc.call(Subjects.accounts.getGroup, { partnerId, group_id: groupId(id) });
  }

  /** Changes the group; `?action=delete` deletes it (with `move_to`), and the body is ignored. */
  @Route(GROUP_ROUTES.update)
  @HttpCode(200)
  async update(
    @PartnerId() partnerId: PartnerIdentity,
    @Param('id') id: string,
    @Query(GROUP_ROUTES.update.query) query: z.output<typeof GROUP_ROUTES.update.query>,
    @JsonBody() raw: unknown,
  ): Promise<Group | null> {
    if (query.action === 'delete') return this.delete(partnerId, id, query);
    const changes = parseBody(GROUP_ROUTES.update.body, raw);
    return this.rpc.call(Subjects.accounts.updateGroup, { partnerId, group_id: groupId(id), changes });
  }

  @Route(GROUP_ROUTES.remove)
  remove(
    @PartnerId() partnerId: PartnerIdentity,
    @Param('id') id: string,
    @Query(GROUP_ROUTES.remove.query) query: z.output<typeof GROUP_ROUTES.remove.query>,
  ): Promise<null> {
    return this.delete(partnerId, id, query);
  }

  private async delete(
    partnerId: PartnerIdentity,
    id: string,
    { move_to }: z.output<typeof GROUP_ROUTES.remove.query>,
  ): Promise<null> {
    await this.rpc.call(Subjects.accounts.deleteGroup, { partnerId, group_id: groupId(id), move_to });
    return null;
  }
}
