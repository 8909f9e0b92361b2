/** The partner itself: password, settings, features, quota, info (`/partner/...`). */
import {
  type PartnerFeatures,
  type PartnerInfo,
  type PartnerQuota,
  type PartnerSettings,
  Subjects,
  UpdateSettingsBody,
} from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, HttpCode, Inject, UseGuards } from '@nestjs/common';
import { AuthenticatedInCall, type PartnerIdentity } from '../../partner-access/partner-in-call.js';
import { PartnerGuard, PartnerId } from '../../partner-access/partner.guard.js';
import { Body } from '../../http/request.js';
import { RPC } from '../../http/tokens.js';
import { Route } from '../../http/route.js';
import { ACCOUNTS_API_MOUNTS } from '../mount.js';
import { PARTNER_ROUTES } from './partner.routes.js';

export const PARTNER_MOUNTS = ACCOUNTS_API_MOUNTS.map((m) => (m ? `${m}/partner` : 'partner'));

@Controller(PARTNER_MOUNTS)
@UseGuards(PartnerGuard)
// every route calls accounts only: authenticated with that call (one bus round trip)
@AuthenticatedInCall()
export class PartnerController {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  /** Body: a bare JSON string (the spec); `{"password": "..."}` is accepted too. */
  @Route(PARTNER_ROUTES.password)
  @HttpCode(200)
  async password(
    @PartnerId() partnerId: PartnerIdentity,
    @Body(PARTNER_ROUTES.password.body, { required: true, field: 'password' }) password: string,
  ): Promise<null> {
    await this.rpc.call(Subjects.accounts.changePartnerPassword, { partnerId, password });
    return null;
  }

  @Route(PARTNER_ROUTES.settings)
  settings(@PartnerId() partnerId: PartnerIdentity): Promise<PartnerSettings> {
    return this.rpc.call(Subjects.accounts.getSettings, { partnerId });
  }

  @Route(PARTNER_ROUTES.updateSettings)
  @HttpCode(200)
  updateSettings(
    @PartnerId() partnerId: PartnerIdentity,
    @Body(PARTNER_ROUTES.updateSettings.body) settings: UpdateSettingsBody,
  ): Promise<PartnerSettings> {
    return this.rpc.call(Subjects.accounts.updateSettings, { partnerId, settings });
  }

  @Route(PARTNER_ROUTES.features)
  features(@PartnerId() partnerId: PartnerIdentity): Promise<PartnerFeatures> {
    return this.rpc.call(Subjects.accounts.getFeatures, { partnerId });
  }

  @Route(PARTNER_ROUTES.quota)
  quota(@PartnerId() partnerId: PartnerIdentity): Promise<PartnerQuota> {
    return this.rpc.call(Subjects.accounts.getQuota, { partnerId });
  }

  @Route(PARTNER_ROUTES.info)
  info(@PartnerId() partnerId: PartnerIdentity): Promise<PartnerInfo> {
    return this.rpc.call(Subjects.accounts.partnerInfo, { partnerId });
  }
}
