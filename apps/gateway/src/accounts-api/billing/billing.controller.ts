/**
 * `/partner/billing` (interface A, both mounts): the partner's billing information, owned by the
 * billing service. The body goes to the billing service as received: only it knows the partner's
 * billing mode, which decides the required fields (its shape is declared in the contracts,
 * `BillingInformationBody`). The gateway neither logs nor keeps it.
 */
import { type BillingView, Subjects } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, HttpCode, Inject, UseGuards } from '@nestjs/common';
import { JsonBody } from '../../http/json-body.js';
import { PartnerGuard, PartnerId } from '../../partner-access/partner.guard.js';
import type { PartnerIdentity } from '../../partner-access/partner-in-call.js';
import { RPC } from '../../http/tokens.js';
import { Route } from '../../http/route.js';
import { PARTNER_MOUNTS } from '../partner/partner.controller.js';
import { BILLING_ROUTES } from './billing.routes.js';

@Controller(PARTNER_MOUNTS)
@UseGuards(PartnerGuard)
export class BillingController {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  /** Beyond the spec: what is stored (never the card number or security code). */
  @Route(BILLING_ROUTES.get)
  billing(@PartnerId() partnerId: PartnerIdentity): Promise<BillingView> {
    return this.rpc.call(Subjects.billing.getBilling, { partnerId });
  }

  /** 200 with the stored information; 400 naming every bad field; 409 {reason, code} for a refused card. */
  @Route(BILLING_ROUTES.update)
  @HttpCode(200)
  update(@PartnerId() partnerId: PartnerIdentity, @JsonBody() body: unknown): Promise<BillingView> {
    return this.rpc.call(Subjects.billing.updateBilling, { partnerId, billing: body ?? null });
  }
}
