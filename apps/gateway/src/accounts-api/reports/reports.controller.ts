/** Partner-wide reports: the brand's share list (`/shares/`) and client revisions. */
import { type BrandShareEntry, type ClientRevisionCount, ClientRevisionsQuery, PageQuery, Subjects, type z } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { PartnerGuard, PartnerId } from '../../http/partner.guard.js';
import { Query } from '../../http/request.js';
import { RPC } from '../../http/tokens.js';
import { ACCOUNTS_API_MOUNTS } from '../mount.js';

@Controller(ACCOUNTS_API_MOUNTS)
@UseGuards(PartnerGuard)
export class ReportsController {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  @Get('shares')
  shares(@PartnerId() partnerId: string, @Query(PageQuery) page: z.output<typeof PageQuery>): Promise<BrandShareEntry[]> {
    return this.rpc.call(Subjects.accounts.brandShares, { partnerId, ...page });
  }

  @Get('clientrevisions')
  clientRevisions(@PartnerId() partnerId: string, @Query(ClientRevisionsQuery) query: z.output<typeof ClientRevisionsQuery>): Promise<ClientRevisionCount[]> {
    return this.rpc.call(Subjects.accounts.clientRevisions, {
      partnerId,
      min_revision: query.min_revision ?? 0,
      max_revision: query.max_revision ?? -1,
      max_days_since_login: query.max_days_since_login ?? -1,
    });
  }
}
