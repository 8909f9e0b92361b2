/** Groups of the partner: `/groups/` and `/groups/<id>`. */
import { CreateGroupBody, DeleteGroupQuery, type Group, ListGroupsQuery, MoveToQuery, notFound, Subjects, UpdateGroupBody, type z } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { replyCreated } from '../../http/created.js';
import { JsonBody } from '../../http/json-body.js';
import { PartnerGuard, PartnerId } from '../../http/partner.guard.js';
import { Body, parseBody, Query } from '../../http/request.js';
import { RPC } from '../../http/tokens.js';
import { ACCOUNTS_API_MOUNTS } from '../mount.js';

/** A group id from the path; anything but a positive integer names no group. */
function groupId(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw notFound(`no group ${raw}`);
  return Number(raw);
}

@Controller(ACCOUNTS_API_MOUNTS)
@UseGuards(PartnerGuard)
export class GroupsController {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  @Get('groups')
  list(@PartnerId() partnerId: string, @Query(ListGroupsQuery) { search }: z.output<typeof ListGroupsQuery>): Promise<Group[]> {
    return this.rpc.call(Subjects.accounts.listGroups, { partnerId, search });
  }

  @Post('groups')
  async create(
    @PartnerId() partnerId: string,
    @Body(CreateGroupBody, { required: true }) body: CreateGroupBody,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const group = await this.rpc.call<Group>(Subjects.accounts.createGroup, { partnerId, ...body });
    replyCreated(req, res, group.group_id, group);
  }

  @Get('groups/:id')
  get(@PartnerId() partnerId: string, @Param('id') id: string): Promise<Group> {
    return this.rpc.call(Subjects.accounts.getGroup, { partnerId, group_id: groupId(id) });
  }

  /** Changes the group; `?action=delete` deletes it (with `move_to`), and the body is ignored. */
  @Post('groups/:id')
  @HttpCode(200)
  async update(
    @PartnerId() partnerId: string,
    @Param('id') id: string,
    @Query(DeleteGroupQuery) query: z.output<typeof DeleteGroupQuery>,
    @JsonBody() raw: unknown,
  ): Promise<Group | null> {
    if (query.action === 'delete') return this.delete(partnerId, id, query);
    const changes = parseBody(UpdateGroupBody, raw);
    return this.rpc.call(Subjects.accounts.updateGroup, { partnerId, group_id: groupId(id), changes });
  }

  @Delete('groups/:id')
  remove(@PartnerId() partnerId: string, @Param('id') id: string, @Query(MoveToQuery) query: z.output<typeof MoveToQuery>): Promise<null> {
    return this.delete(partnerId, id, query);
  }

  private async delete(partnerId: string, id: string, { move_to }: z.output<typeof MoveToQuery>): Promise<null> {
    await this.rpc.call(Subjects.accounts.deleteGroup, { partnerId, group_id: groupId(id), move_to });
    return null;
  }
}
