/**
 * The billing API the management appliance calls at `/apis/billing/v1/` (same HTTP Basic partner
 * credentials as interface A): billing standing and payments from the billing service's records,
 * and coupon / subscription requests, which are answered `{"success": false, "msg"}` because the
 * operator manages subscriptions. Those bodies (a payment token among them) are read to their end
 * and dropped: never forwarded, kept or logged.
 */
import {
  type ApplianceBillingInfo,
  type Payment,
  Subjects,
  type SubscriptionReply,
  type SubscriptionRequestKind,
} from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, HttpCode, Inject, UseGuards } from '@nestjs/common';
import { JsonBody } from '../../http/json-body.js';
import { PartnerGuard, PartnerId } from '../../partner-access/partner.guard.js';
import type { PartnerIdentity } from '../../partner-access/partner-in-call.js';
import { RPC } from '../../http/tokens.js';
import { Route } from '../../http/route.js';
import { BILLING_API_ROUTES } from './billing-api.routes.js';

/** Where the appliance's billing pages point (not an interface-A mount). */
export const BILLING_API_MOUNT = 'apis/billing/v1';

@Controller(BILLING_API_MOUNT)
@UseGuards(PartnerGuard)
export class BillingApiController {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  @Route(BILLING_API_ROUTES.info)
  info(@PartnerId() partnerId: PartnerIdentity): Promise<ApplianceBillingInfo> {
    return this.rpc.call(Subjects.billing.applianceBillingInfo, { partnerId });
  }

  @Route(BILLING_API_ROUTES.payments)
  payments(@PartnerId() partnerId: PartnerIdentity): Promise<Payment[]> {
    return this.rpc.call(Subjects.billing.appliancePayments, { partnerId });
  }

  @Route(BILLING_API_ROUTES.coupon)
  @HttpCode(200)
  coupon(@PartnerId() partnerId: PartnerIdentity, @JsonBody() _body: unknown): Promise<SubscriptionReply> {
    return this.refuse(partnerId, 'coupon');
  }

  @Route(BILLING_API_ROUTES.createSubscription)
  @HttpCode(200)
  createSubscription(@PartnerId() partnerId: PartnerIdentity, @JsonBody() _body: unknown): Promise<SubscriptionReply> {
    return this.refuse(partnerId, 'create_subscription');
  }

  private refuse(partnerId: PartnerIdentity, kind: SubscriptionRequestKind): Promise<SubscriptionReply> {
    return this.rpc.call(Subjects.billing.applianceSubscription, { partnerId, kind });
  }
}
