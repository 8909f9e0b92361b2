/**
 * `/partner/billing` (interface A, both mounts): the partner's billing information, owned by the
 * billing service. The body goes to the billing service as parsed: only it knows the partner's
 * billing mode, which decides the required fields. The gateway neither logs nor keeps it.
 */
import { Subjects } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, Get, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { JsonBody } from '../http/json-body.js';
import { PartnerGuard, PartnerId } from '../http/partner.guard.js';
import { RPC } from '../http/rpc.js';
import { ACCOUNTS_API_MOUNTS } from './mount.js';

/** `billing_mode`, the stored fields, and the card as brand, last4 and expiry (see docs/billing.md). */
export type BillingReply = Record<string, unknown>;

@Controller(ACCOUNTS_API_MOUNTS.map((m) => (m ? `${m}/partner` : 'partner')))
@UseGuards(PartnerGuard)
export class BillingController {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  /** Beyond the spec: what is stored (never the card number or security code). */
  @Get('billing')
  billing(@PartnerId() partnerId: string): Promise<BillingReply> {
    return this.rpc.call(Subjects.billing.getBilling, { partnerId });
  }

  /** 200 with the stored information; 400 naming every bad field; 409 {reason, code} for a refused card. */
  @Post('billing')
  @HttpCode(200)
  update(@PartnerId() partnerId: string, @JsonBody() body: unknown): Promise<BillingReply> {
    return this.rpc.call(Subjects.billing.updateBilling, { partnerId, billing: body ?? null });
  }
}
