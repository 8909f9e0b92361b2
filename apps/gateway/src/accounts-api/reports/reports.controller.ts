import { type BrandShareEntry, type ClientRevisionCount, queryInt, Subjects } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { PartnerGuard, PartnerId } from '../http/partner.guard.js';
import { RPC } from '../http/rpc.js';
import { ACCOUNTS_API_MOUNTS } from './mount.js';

@Controller(ACCOUNTS_API_MOUNTS)
@UseGuards(PartnerGuard)
export class ReportsController {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  @Get('shares')
  shares(@PartnerId() partnerId: string, @Query() query: Record<string, unknown>): Promise<BrandShareEntry[]> {
    return this.rpc.call(Subjects.accounts.brandShares, {
      partnerId,
      limit: queryInt(query, 'limit', 0),
      offset: queryInt(query, 'offset', 0),
    });
  }

  @Get('clientrevisions')
  clientRevisions(@PartnerId() partnerId: string, @Query() query: Record<string, unknown>): Promise<ClientRevisionCount[]> {
    return this.rpc.call(Subjects.accounts.clientRevisions, {
      partnerId,
      min_revision: queryInt(query, 'min_revision', 0) ?? 0,
      max_revision: queryInt(query, 'max_revision', -1) ?? -1,
      max_days_since_login: queryInt(query, 'max_days_since_login', -1) ?? -1,
    });
  }
}
