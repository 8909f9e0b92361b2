/**
 * The billing API the management appliance calls at /apis/billing/v1/ (CLIENT-FACTS "What the
 * management appliance also calls"): billing standing from what the billing service records, an
 * empty payment list (none are taken), coupon and subscription requests refused with
 * `{"success": false, "msg"}`, partner credentials, and tenant isolation.
 */
import { Subjects } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import supertest from 'supertest';
import { createPartner } from '../harness/client.js';
import type { ScenarioContext } from './scenarios.js';

const BASE = '/apis/billing/v1';
const ADDRESS = {
  name: 'Acme Backup Ltd',
  address: ['1 Main Street'],
  city: 'Springfield',
  state: 'IL',
  postal_code: '62701',
  country: 'US',
};
const CARD = {
  card_number: '4242424242424242',
  security_code: '7391',
  expiration_month: 7,
  expiration_year: new Date().getUTCFullYear() + 3,
};

export function applianceBillingScenarios({ target }: ScenarioContext) {
  const freshPartner = async (mode?: 'prepaid' | 'invoice') => {
    const { info, api } = await createPartner(target());
    if (mode)
      await target().operator.call(Subjects.billing.setBillingMode, { partnerId: info.partner_id, billing_mode: mode });
    return api;
  };

  it("billing_info: pending with no billing information, active once the mode's information is on file (invoice: an address)", async () => {
    const api = await freshPartner();
    const before = await api.get(`${BASE}/billing_info`).expect(200);
    assert.deepEqual(before.body, {
      current_plan: { status: 'pending', billing_mode: 'invoice', managed_by: 'operator' },
      billing_mode: 'invoice',
      next_payment: null,
      payment_method: null,
      updated_at: null,
    });
    await api.post('/partner/billing', ADDRESS).expect(200);
    const after = await api.get(`${BASE}/billing_info/`).expect(200);
    assert.equal(after.body.current_plan.status, 'active');
    assert.ok(Number.isInteger(after.body.updated_at));
  });

  it('billing_info for prepaid billing: pending until a card is on file, then active with the card summary (never the number)', async () => {
    const api = await freshPartner('prepaid');
    assert.equal((await api.get(`${BASE}/billing_info`).expect(200)).body.current_plan.status, 'pending');
    await api.post('/partner/billing', { ...ADDRESS, ...CARD }).expect(200);
    const res = await api.get(`${BASE}/billing_info`).expect(200);
    assert.deepEqual(res.body.current_plan, { status: 'active', billing_mode: 'prepaid', managed_by: 'operator' });
    assert.equal(res.body.payment_method.last4, '4242');
    assert.equal(res.body.next_payment, null);
    assert.ok(!res.text.includes(CARD.card_number) && !res.text.includes(CARD.security_code));
  });

  it('payments: an empty list (Burrow takes and records no payments)', async () => {
    const api = await freshPartner('prepaid');
    await api.post('/partner/billing', { ...ADDRESS, ...CARD }).expect(200);
    const res = await api.get(`${BASE}/payments`).expect(200);
    assert.match(res.headers['content-type'] ?? '', /application\/json/);
    assert.deepEqual(res.body, []);
  });

  it('coupon and create_subscription answer {"success": false, "msg"} saying the operator manages subscriptions, and store nothing', async () => {
    const api = await freshPartner();
    for (const [path, body] of [
      ['coupon', { coupon: 'SPRING25' }],
      ['create_subscription', { coupon: '', frequency: 'monthly', stripe_token: 'tok_secret_value_123' }],
      ['create_subscription', undefined],
    ] as const) {
      const res = await api.post(`${BASE}/${path}`, body, 'application/json');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.body).sort(), ['msg', 'success']);
      assert.equal(res.body.success, false);
      assert.match(res.body.msg, /operator/);
      assert.ok(!res.text.includes('tok_secret_value_123'));
    }
    assert.equal(
      (await api.get(`${BASE}/billing_info`).expect(200)).body.current_plan.status,
      'pending',
      'nothing changed',
    );
  });

  it('needs partner credentials; each partner sees its own standing; it is not served under the interface-A mounts', async () => {
    const anonymous = supertest(target().url);
    for (const res of [
      await anonymous.get(`${BASE}/billing_info`),
      await anonymous.get(`${BASE}/payments`),
      await anonymous.post(`${BASE}/coupon`).send('{}'),
    ]) {
      assert.equal(res.status, 401);
      assert.match(res.headers['www-authenticate'] ?? '', /^Basic/);
    }
    const active = await freshPartner();
    await active.post('/partner/billing', ADDRESS).expect(200);
    const other = await freshPartner('prepaid');
    assert.equal((await active.get(`${BASE}/billing_info`).expect(200)).body.current_plan.status, 'active');
    assert.deepEqual((await other.get(`${BASE}/billing_info`).expect(200)).body.current_plan, {
      status: 'pending',
      billing_mode: 'prepaid',
      managed_by: 'operator',
    });
    await other.get('/billing_info').expect(404);
    await other.get('/apis/accounts/v1/billing_info').expect(404);
  });
}
