/** The billing decider: given events, when a command, then events (or a refusal). No I/O. */
import { DomainError, fold } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BillingEvent } from '@burrow/contracts';
import { type BillingCommand, billingDecider, type BillingState } from './billing.js';

const given = (...events: BillingEvent[]) => ({
  when: (command: BillingCommand) => ({
    then: (expected: BillingEvent[]) =>
      assert.deepEqual(billingDecider.decide(command, fold(billingDecider, events)), expected),
    thenRefused: (status: number, fields: string[]) =>
      assert.throws(
        () => billingDecider.decide(command, fold(billingDecider, events)),
        (e: unknown) =>
          e instanceof DomainError && e.status === status && assert.deepEqual(e.body.fields, fields) === undefined,
      ),
  }),
});

const address = {
  name: 'Acme',
  address: ['1 Main St'],
  city: 'Springfield',
  state: 'IL',
  postal_code: '62701',
  country: 'US',
};
const visa = { brand: 'visa', last4: '4242', expiration_month: 4, expiration_year: 2029 };
const CARD_FIELDS = ['card_number', 'security_code', 'expiration_month', 'expiration_year'];

const modeSet = (billing_mode: 'prepaid' | 'invoice', at = 1): BillingEvent => ({
  type: 'BillingModeSet',
  data: { billing_mode, at },
});
const updated = (card: typeof visa | null, at = 2): BillingEvent => ({
  type: 'BillingInformationUpdated',
  data: { ...address, card, at },
});

describe('billing decider', () => {
  it('starts in invoice mode with nothing stored', () => {
    assert.deepEqual(billingDecider.initialState, { mode: 'invoice', address: null, card: null });
  });

  describe('SetBillingMode', () => {
    it('records a new mode', () => {
      given()
        .when({ type: 'SetBillingMode', billing_mode: 'prepaid', at: 5 })
        .then([modeSet('prepaid', 5)]);
      given(modeSet('prepaid'))
        .when({ type: 'SetBillingMode', billing_mode: 'invoice', at: 6 })
        .then([modeSet('invoice', 6)]);
    });

    it('records nothing when the mode does not change (invoice is the default)', () => {
      given().when({ type: 'SetBillingMode', billing_mode: 'invoice', at: 5 }).then([]);
      given(modeSet('prepaid')).when({ type: 'SetBillingMode', billing_mode: 'prepaid', at: 5 }).then([]);
    });

    it('refuses an unknown mode', () => {
      given()
        .when({ type: 'SetBillingMode', billing_mode: 'monthly' as 'invoice', at: 5 })
        .thenRefused(400, ['billing_mode']);
    });

    it('drops the card on file when switching to invoice, keeps the address', () => {
      const state = fold(billingDecider, [modeSet('prepaid'), updated(visa), modeSet('invoice', 3)]);
      assert.deepEqual(state, { mode: 'invoice', address, card: null } satisfies BillingState);
    });
  });

  describe('UpdateBillingInformation', () => {
    it('invoice: records the common fields without a card', () => {
      given()
        .when({ type: 'UpdateBillingInformation', address, card: null, at: 7 })
        .then([updated(null, 7)]);
    });

    it('prepaid: records the common fields and the card summary', () => {
      given(modeSet('prepaid'))
        .when({ type: 'UpdateBillingInformation', address, card: visa, at: 7 })
        .then([updated(visa, 7)]);
    });

    it('invoice: refuses a card, naming the card fields', () => {
      given().when({ type: 'UpdateBillingInformation', address, card: visa, at: 7 }).thenRefused(400, CARD_FIELDS);
    });

    it('prepaid: refuses an update without a card (the mode changed after validation)', () => {
      given(modeSet('prepaid'))
        .when({ type: 'UpdateBillingInformation', address, card: null, at: 7 })
        .thenRefused(400, CARD_FIELDS);
    });

    it('puts only the listed fields into the event, whatever else rides on the command', () => {
      const leaky = {
        type: 'UpdateBillingInformation',
        address: { ...address, card_number: '4242424242424242' },
        card: { ...visa, number: '4242424242424242', security_code: '123' },
        at: 7,
      } as BillingCommand;
      const out = billingDecider.decide(leaky, fold(billingDecider, [modeSet('prepaid')]));
      assert.deepEqual(out, [updated(visa, 7)]);
      assert.ok(!JSON.stringify(out).includes('4242424242424242'));
    });

    it('the newest update wins', () => {
      const state = fold(billingDecider, [
        modeSet('prepaid'),
        updated(visa, 2),
        updated({ ...visa, last4: '4444', brand: 'mastercard' }, 3),
      ]);
      assert.equal(state.card?.last4, '4444');
    });
  });

  describe('RecordCardDecline', () => {
    it('records the code, reason, brand and last four digits, and changes nothing stored', () => {
      const decline = {
        code: 'insufficient_funds',
        reason: 'the card has insufficient funds',
        brand: 'visa',
        last4: '9995',
        at: 9,
      };
      given(modeSet('prepaid'), updated(visa))
        .when({ type: 'RecordCardDecline', ...decline })
        .then([{ type: 'CardDeclined', data: decline }]);
      const before = fold(billingDecider, [modeSet('prepaid'), updated(visa)]);
      assert.deepEqual(billingDecider.evolve(before, { type: 'CardDeclined', data: decline }), before);
    });
  });
});
