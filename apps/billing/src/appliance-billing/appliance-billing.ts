/**
 * The management appliance's view of billing, derived from what the billing service records (the
 * mode and the billing information; no payments are taken or recorded), and the answer to its
 * subscription requests. Pure.
 */
import type { ApplianceBillingInfo, BillingView, SubscriptionReply, SubscriptionRequestKind } from '@burrow/contracts';

/** Active once the information the mode needs is on file: a card for prepaid, an address for invoice. */
export function applianceBillingInfo(view: BillingView): ApplianceBillingInfo {
  const onFile = view.billing_mode === 'prepaid' ? view.card !== null : view.name !== null;
  return {
    current_plan: { status: onFile ? 'active' : 'pending', billing_mode: view.billing_mode, managed_by: 'operator' },
    billing_mode: view.billing_mode,
    next_payment: null,
    payment_method: view.card,
    updated_at: view.updated_at,
  };
}

/** Burrow's card processor port checks cards; it takes no recurring payments, so nothing can be subscribed here. */
export function subscriptionRefusal(kind: SubscriptionRequestKind, view: BillingView): SubscriptionReply {
  const what = kind === 'coupon' ? 'Coupons are not redeemed here' : 'Subscriptions cannot be started here';
  return {
    success: false,
    msg:
      `${what}: plans and subscriptions are managed by your service operator, who bills you (billing mode: ${view.billing_mode}). ` +
      'Keep your billing information up to date with POST /partner/billing, and ask the operator to change your plan.',
  };
}
