/**
 * Bus handlers for the management appliance's billing API: billing standing, payments (none are
 * recorded: Burrow takes no payments, so the list is empty, not invented), and the refusal of
 * coupon and subscription requests. Nothing the appliance sends with those (a payment token) is
 * read, kept or logged.
 */
import {
  type ApplianceBillingInfo,
  type PartnerScoped,
  type Payment,
  Subjects,
  type SubscriptionReply,
  type SubscriptionRequestKind,
} from '@burrow/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { billingOf } from '../billing-information/billing.projection.js';
import { BILLING_CONTEXT, type BillingContext } from '../context.js';
import { applianceBillingInfo, subscriptionRefusal } from './appliance-billing.js';

@Controller()
export class ApplianceBillingHandlers {
  constructor(@Inject(BILLING_CONTEXT) private readonly ctx: BillingContext) {}

  @MessagePattern(Subjects.billing.applianceBillingInfo)
  async info(@Payload() { partnerId }: PartnerScoped): Promise<ApplianceBillingInfo> {
    return applianceBillingInfo(await billingOf(this.ctx.docs, partnerId));
  }

  @MessagePattern(Subjects.billing.appliancePayments)
  payments(): Payment[] {
    return [];
  }

  @MessagePattern(Subjects.billing.applianceSubscription)
  async subscription(
    @Payload() { partnerId, kind }: PartnerScoped & { kind: SubscriptionRequestKind },
  ): Promise<SubscriptionReply> {
    this.ctx.log.info(
      { partnerId, kind },
      'appliance subscription request refused: billing is managed by the operator',
    );
    return subscriptionRefusal(kind, await billingOf(this.ctx.docs, partnerId));
  }
}
