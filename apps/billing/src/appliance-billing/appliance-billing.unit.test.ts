import type { BillingView } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applianceBillingInfo, subscriptionRefusal } from './appliance-billing.js';

const empty: BillingView = {
  billing_mode: 'invoice',
  name: null,
  address: null,
  city: null,
  state: null,
  postal_code: null,
  country: null,
  card: null,
  updated_at: null,
};
const address = {
  name: 'Acme',
  address: ['1 Main St'],
  city: 'Springfield',
  state: 'IL',
  postal_code: '62701',
  country: 'US',
  updated_at: 1_700_000_000,
};
const card = { brand: 'visa', last4: '4242', expiration_month: 7, expiration_year: 2030 };

describe('appliance billing view', () => {
  it('is pending until the information the mode needs is on file', () => {
    assert.equal(applianceBillingInfo(empty).current_plan.status, 'pending');
    assert.equal(applianceBillingInfo({ ...empty, ...address }).current_plan.status, 'active');
    // prepaid needs a card: an address alone (left from invoice billing) is not enough
    assert.equal(
      applianceBillingInfo({ ...empty, ...address, billing_mode: 'prepaid' }).current_plan.status,
      'pending',
    );
    const prepaid = applianceBillingInfo({ ...empty, ...address, billing_mode: 'prepaid', card });
    assert.deepEqual(prepaid, {
      current_plan: { status: 'active', billing_mode: 'prepaid', managed_by: 'operator' },
      billing_mode: 'prepaid',
      next_payment: null,
      payment_method: card,
      updated_at: address.updated_at,
    });
  });

  it('refuses coupons and subscriptions, saying the operator manages them', () => {
    for (const kind of ['coupon', 'create_subscription'] as const) {
      const reply = subscriptionRefusal(kind, empty);
      assert.equal(reply.success, false);
      assert.match(reply.msg, /operator/);
      assert.match(reply.msg, /invoice/);
    }
  });
});
