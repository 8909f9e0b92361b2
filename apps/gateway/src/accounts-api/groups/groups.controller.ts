import { badRequest, type Group, type GroupChanges, notFound, parseFields, queryInt, Subjects } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { JsonBody } from '../http/json-body.js';
import { PartnerGuard, PartnerId } from '../http/partner.guard.js';
import { RPC } from '../http/rpc.js';
import { ACCOUNTS_API_MOUNTS } from './mount.js';

const GROUP_FIELDS = {
  name: { kind: 'nonEmptyString', maxLength: 255 },
  plan_id: { kind: 'int' },
  webapi_enable: { kind: 'bool' },
  check_domain: { kind: 'bool' },
  force: { kind: 'bool' },
} as const;

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
  list(@PartnerId() partnerId: string, @Query('search') search?: string): Promise<Group[]> {
    return this.rpc.call(Subjects.accounts.listGroups, { partnerId, search: typeof search === 'string' ? search : undefined });
  }

  @Post('groups')
  async create(@PartnerId() partnerId: string, @JsonBody() body: unknown, @Req() req: Request, @Res() res: Response): Promise<void> {
    const fields = parseFields<GroupChanges>(body, {
      ...GROUP_FIELDS,
      name: { ...GROUP_FIELDS.name, required: true },
      plan_id: { kind: 'int', required: true },
    });
    const group = await this.rpc.call<Group>(Subjects.accounts.createGroup, { partnerId, ...fields });
    const base = req.baseUrl + req.path.replace(/\/+$/, '');
    res.status(201).location(`${base}/${group.group_id}`).json(group);
  }

  @Get('groups/:id')
  get(@PartnerId() partnerId: string, @Param('id') id: string): Promise<Group> {
    return this.rpc.call(Subjects.accounts.getGroup, { partnerId, group_id: groupId(id) });
  }

  @Post('groups/:id')
  @HttpCode(200)
  async update(
    @PartnerId() partnerId: string,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @JsonBody() body: unknown,
  ): Promise<Group | null> {
    if (query.action === 'delete') return this.remove(partnerId, id, query);
    if (query.action !== undefined) throw badRequest(`unknown action ${String(query.action)}`, ['action']);
    const changes = parseFields<GroupChanges>(body ?? {}, GROUP_FIELDS);
    return this.rpc.call(Subjects.accounts.updateGroup, { partnerId, group_id: groupId(id), changes });
  }

  @Delete('groups/:id')
  async remove(@PartnerId() partnerId: string, @Param('id') id: string, @Query() query: Record<string, unknown>): Promise<null> {
    const move_to = queryInt(query, 'move_to', 1);
    await this.rpc.call(Subjects.accounts.deleteGroup, { partnerId, group_id: groupId(id), move_to });
    return null;
  }
}
