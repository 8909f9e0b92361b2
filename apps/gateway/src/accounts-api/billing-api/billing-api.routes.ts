/**
 * The routes of the management appliance's billing API at /apis/billing/v1/: path, method, and
 * their OpenAPI prose and examples. The bodies are read to their end and ignored: their schemas
 * only document what the appliance sends.
 */
import { ApplianceBillingInfo, Payment, SubscriptionReply, z } from '@burrow/contracts';
import { route } from '../../http/route.js';
import { ex, listOf, reply } from '../../openapi/builders.js';
import { AUTHENTICATED, WITH_BODY } from '../../openapi/common.js';
import type { PathItem } from '../../http/openapi-types.js';

/** These paths are absolute: served at the root only, not under the interface-A mounts. */
const ROOT_ONLY: Pick<PathItem, 'servers'> = {
  servers: [{ url: '/', description: "the appliance's billing API is served at /apis/billing/v1/ only" }],
};

const CouponBody = z.object({ coupon: z.string().optional() }).describe('Read to its end and ignored.');
const SubscriptionBody = z
  .object({ coupon: z.string().optional(), frequency: z.string().optional(), stripe_token: z.string().optional() })
  .describe('Read to its end and ignored (the token is never forwarded, kept or logged).');

const refusal = (kind: string) =>
  reply('Always `success: false`: plans and subscriptions are managed by the operator.', SubscriptionReply, {
    refused: ex('refused', {
      success: false,
      msg: `${kind}: plans and subscriptions are managed by your service operator, who bills you (billing mode: invoice). Keep your billing information up to date with POST /partner/billing, and ask the operator to change your plan.`,
    }),
  });

/** Paths relative to BILLING_API_MOUNT. */
export const BILLING_API_ROUTES = {
  info: route({
    method: 'get',
    path: 'billing_info',
    pathItem: ROOT_ONLY,
    operation: {
      operationId: 'applianceBillingInfo',
      tags: ['billing'],
      summary: 'Billing standing (management appliance)',
      description:
        "From the billing service's records: `current_plan.status` is `active` once the information the billing mode needs is on file (prepaid: a card; invoice: an address) and `pending` before; `next_payment` is always null (Burrow takes no payments).",
      responses: {
        '200': reply('The standing.', ApplianceBillingInfo, {
          pending: ex('no billing information yet', {
            current_plan: { status: 'pending', billing_mode: 'invoice', managed_by: 'operator' },
            billing_mode: 'invoice',
            next_payment: null,
            payment_method: null,
            updated_at: null,
          }),
          prepaid: ex('a card on file', {
            current_plan: { status: 'active', billing_mode: 'prepaid', managed_by: 'operator' },
            billing_mode: 'prepaid',
            next_payment: null,
            payment_method: { brand: 'visa', last4: '4242', expiration_month: 7, expiration_year: 2029 },
            updated_at: 1763740000,
          }),
        }),
        ...AUTHENTICATED,
      },
    },
  }),
  payments: route({
    method: 'get',
    path: 'payments',
    pathItem: ROOT_ONLY,
    operation: {
      operationId: 'appliancePayments',
      tags: ['billing'],
      summary: 'Payments (management appliance)',
      description:
        'The payments taken from the partner. Burrow takes and records none (the operator bills), so the list is empty.',
      responses: {
        '200': reply('The payments: always empty today.', listOf(Payment, 'payments'), {
          none: ex('nothing recorded', []),
        }),
        ...AUTHENTICATED,
      },
    },
  }),
  coupon: route({
    method: 'post',
    path: 'coupon',
    pathItem: ROOT_ONLY,
    body: CouponBody,
    operation: {
      operationId: 'applianceCoupon',
      tags: ['billing'],
      summary: 'Redeem a coupon (refused: the operator manages plans)',
      requestBody: {
        description: '`{"coupon"}`.',
        examples: { coupon: ex('a coupon', { coupon: 'SPRING25' }) },
        required: false,
      },
      responses: { '200': refusal('Coupons are not redeemed here'), ...WITH_BODY },
    },
  }),
  createSubscription: route({
    method: 'post',
    path: 'create_subscription',
    pathItem: ROOT_ONLY,
    body: SubscriptionBody,
    operation: {
      operationId: 'applianceCreateSubscription',
      tags: ['billing'],
      summary: 'Start a subscription (refused: the operator manages subscriptions)',
      requestBody: {
        description: '`{"coupon", "frequency", "stripe_token"}`.',
        examples: { subscription: ex('a monthly subscription', { frequency: 'monthly', stripe_token: 'tok_visa' }) },
        required: false,
      },
      responses: { '200': refusal('Subscriptions cannot be started here'), ...WITH_BODY },
    },
  }),
};
