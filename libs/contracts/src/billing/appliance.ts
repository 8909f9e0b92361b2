/**
 * The billing API the management appliance calls at `/apis/billing/v1/` (CLIENT-FACTS "What the
 * management appliance also calls"): what the billing service records, read back in the shape the
 * appliance's billing pages read (`current_plan.status`, payments), and its subscription requests,
 * which Burrow refuses with `{"success": false, "msg"}` because the operator manages billing.
 */
import { z } from 'zod';
import { BillingMode, CardSummary } from './records.js';

export const BILLING_PLAN_STATUSES = ['active', 'pending'] as const;

export const ApplianceBillingInfo = z
  .object({
    current_plan: z
      .object({
        status: z
          .enum(BILLING_PLAN_STATUSES)
          .describe(
            'active: the billing information the mode needs is on file (prepaid: a card; invoice: an address); pending: not yet',
          ),
        billing_mode: BillingMode,
        managed_by: z
          .literal('operator')
          .describe('who sets plans and subscriptions: the operator, never a payment taken here'),
      })
      .describe("the partner's billing standing"),
    billing_mode: BillingMode,
    next_payment: z.null().describe('always null: Burrow schedules and takes no payments (the operator bills)'),
    payment_method: CardSummary.nullable().describe('the card on file (prepaid), or null'),
    updated_at: z
      .int()
      .nullable()
      .describe('unix seconds of the last accepted billing information update; null before it'),
  })
  .meta({
    id: 'ApplianceBillingInfo',
    description: "The partner's billing standing, as the management appliance's billing pages read it.",
  });
export type ApplianceBillingInfo = z.infer<typeof ApplianceBillingInfo>;

export const Payment = z
  .object({
    date: z.int().min(0).describe('unix seconds'),
    amount: z.number().describe("in the currency's main unit"),
    currency: z.string().describe('ISO 4217 code'),
    description: z.string(),
  })
  .meta({
    id: 'Payment',
    description: 'A payment taken from the partner. Burrow records none today: the list is always empty.',
  });
export type Payment = z.infer<typeof Payment>;

export const SubscriptionReply = z
  .object({ success: z.boolean(), msg: z.string() })
  .meta({ id: 'SubscriptionReply', description: 'The answer to a coupon or subscription request.' });
export type SubscriptionReply = z.infer<typeof SubscriptionReply>;

/** What the appliance asks for; Burrow answers both the same way. */
export const SUBSCRIPTION_REQUESTS = ['coupon', 'create_subscription'] as const;
export type SubscriptionRequestKind = (typeof SUBSCRIPTION_REQUESTS)[number];
