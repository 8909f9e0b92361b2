import { badRequest, type PartnerFeatures, type PartnerInfo, type PartnerQuota, type PartnerSettings, Subjects } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, Get, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { JsonBody } from '../http/json-body.js';
import { PartnerGuard, PartnerId } from '../http/partner.guard.js';
import { RPC } from '../http/rpc.js';
import { ACCOUNTS_API_MOUNTS } from './mount.js';

@Controller(ACCOUNTS_API_MOUNTS.map((m) => (m ? `${m}/partner` : 'partner')))
@UseGuards(PartnerGuard)
export class PartnerController {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  /** Body: a bare JSON string (the spec); `{"password": "..."}` is accepted too. */
  @Post('password')
  @HttpCode(200)
  async password(@PartnerId() partnerId: string, @JsonBody() body: unknown): Promise<null> {
    const password = typeof body === 'string' ? body : (body as { password?: unknown } | undefined)?.password;
    if (typeof password !== 'string') throw badRequest('body must be a JSON string holding the new password', ['password']);
    await this.rpc.call(Subjects.accounts.changePartnerPassword, { partnerId, password });
    return null;
  }

  @Get('settings')
  settings(@PartnerId() partnerId: string): Promise<PartnerSettings> {
    return this.rpc.call(Subjects.accounts.getSettings, { partnerId });
  }

  @Post('settings')
  @HttpCode(200)
  updateSettings(@PartnerId() partnerId: string, @JsonBody() body: unknown): Promise<PartnerSettings> {
    return this.rpc.call(Subjects.accounts.updateSettings, { partnerId, settings: body ?? {} });
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
