/** The partner itself: password, settings, features, quota, info (`/partner/...`). */
import {
  ChangePasswordBody,
  type PartnerFeatures,
  type PartnerInfo,
  type PartnerQuota,
  type PartnerSettings,
  Subjects,
  UpdateSettingsBody,
} from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, Get, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { PartnerGuard, PartnerId } from '../../http/partner.guard.js';
import { Body } from '../../http/request.js';
import { RPC } from '../../http/tokens.js';
import { ACCOUNTS_API_MOUNTS } from '../mount.js';

export const PARTNER_MOUNTS = ACCOUNTS_API_MOUNTS.map((m) => (m ? `${m}/partner` : 'partner'));

@Controller(PARTNER_MOUNTS)
@UseGuards(PartnerGuard)
export class PartnerController {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  /** Body: a bare JSON string (the spec); `{"password": "..."}` is accepted too. */
  @Post('password')
  @HttpCode(200)
  async password(@PartnerId() partnerId: string, @Body(ChangePasswordBody, { required: true, field: 'password' }) password: string): Promise<null> {
    await this.rpc.call(Subjects.accounts.changePartnerPassword, { partnerId, password });
    return null;
  }

  @Get('settings')
  settings(@PartnerId() partnerId: string): Promise<PartnerSettings> {
    return this.rpc.call(Subjects.accounts.getSettings, { partnerId });
  }

  @Post('settings')
  @HttpCode(200)
  updateSettings(@PartnerId() partnerId: string, @Body(UpdateSettingsBody) settings: UpdateSettingsBody): Promise<PartnerSettings> {
    return this.rpc.call(Subjects.accounts.updateSettings, { partnerId, settings });
  }

  @Get('features')
  features(@PartnerId() partnerId: string): Promise<PartnerFeatures> {
    return this.rpc.call(Subjects.accounts.getFeatures, { partnerId });
  }

  @Get('quota')
  quota(@PartnerId() partnerId: string): Promise<PartnerQuota> {
    return this.rpc.call(Subjects.accounts.getQuota, { partnerId });
  }

  @Get('info')
  info(@PartnerId() partnerId: string): Promise<PartnerInfo> {
    return this.rpc.call(Subjects.accounts.partnerInfo, { partnerId });
  }
}
