/** Partner-wide reports: the brand's share list (`/shares/`) and client revisions. */
import { type BrandShareEntry, type ClientRevisionCount, Subjects, type z } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, Inject, UseGuards } from '@nestjs/common';
import { PartnerGuard, PartnerId } from '../../partner-access/partner.guard.js';
import type { PartnerIdentity } from '../../partner-access/partner-in-call.js';
import { Query } from '../../http/request.js';
import { RPC } from '../../http/tokens.js';
import { Route } from '../../http/route.js';
import { ACCOUNTS_API_MOUNTS } from '../mount.js';
import { REPORT_ROUTES } from './reports.routes.js';

@Controller(ACCOUNTS_API_MOUNTS)
@UseGuards(PartnerGuard)
export class ReportsController {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  @Route(REPORT_ROUTES.shares)
  shares(
    @PartnerId() partnerId: PartnerIdentity,
    @Query(REPORT_ROUTES.shares.query) page: z.output<typeof REPORT_ROUTES.shares.query>,
  ): Promise<BrandShareEntry[]> {
    return this.rpc.call(Subjects.accounts.brandShares, { partnerId, ...page });
  }

  @Route(REPORT_ROUTES.clientRevisions)
  clientRevisions(
    @PartnerId() partnerId: PartnerIdentity,
    @Query(REPORT_ROUTES.clientRevisions.query) query: z.output<typeof REPORT_ROUTES.clientRevisions.query>,
  ): Promise<ClientRevisionCount[]> {
    return this.rpc.call(Subjects.accounts.clientRevisions, {
      partnerId,
      min_revision: query.min_revision ?? 0,
      max_revision: query.max_revision ?? -1,
      max_days_since_login: query.max_days_since_login ?? -1,
    });
  }
}
