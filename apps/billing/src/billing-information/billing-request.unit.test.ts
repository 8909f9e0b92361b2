import { DomainError } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBillingRequest } from './billing-request.js';

/** "Now" for these tests: 15 March 2026, UTC. */
const NOW = Date.UTC(2026, 2, 15, 12) / 1000;

const common = {
  name: 'Acme Backup Ltd',
  address: ['1 Main Street', 'Suite 200'],
  city: 'Springfield',
  state: 'IL',
  postal_code: '62701',
  country: 'US',
};
const card = { card_number: '4242 4242 4242 4242', security_code: '123', expiration_month: 4, expiration_year: 2029 };

function rejected(body: unknown, mode: 'prepaid' | 'invoice', now = NOW): { fields: string[]; reason: string } {
  const label = JSON.stringify(body);
  try {
    parseBillingRequest(body, mode, now);
  } catch (error) {
    assert.ok(error instanceof DomainError, String(error));
    assert.equal(error.status, 400);
    return { fields: error.body.fields ?? [], reason: error.body.reason };
  }
  assert.fail(`expected a 400 for ${label}`);
}

describe('parseBillingRequest: common fields', () => {
  it('accepts a complete invoice request and trims the text', () => {
    const parsed = parseBillingRequest({ ...common, name: '  Acme Backup Ltd ', country: ' us ' }, 'invoice', NOW);
    assert.deepEqual(parsed, { address: { ...common }, card: null });
  });

  it('names every missing field together, in the spec order', () => {
    assert.deepEqual(rejected({}, 'invoice').fields, ['name', 'address', 'city', 'state', 'postal_code', 'country']);
    assert.deepEqual(rejected({}, 'prepaid').fields, [
      'name',
      'address',
      'city',
      'state',
      'postal_code',
      'country',
      'card_number',
      'security_code',
      'expiration_month',
      'expiration_year',
    ]);
  });

  it('treats a body that is not an object as missing everything', () => {
    for (const body of [undefined, null, 'text', 42, ['a']]) {
      const { fields, reason } = rejected(body, 'invoice');
      assert.deepEqual(fields, ['name', 'address', 'city', 'state', 'postal_code', 'country']);
      assert.match(reason, /JSON object/);
    }
  });

  it('refuses each common field when it is invalid', () => {
    const invalid: Record<string, unknown[]> = {
      name: ['', '   ', 42, null, ['Acme'], 'x'.repeat(256)],
      address: [[], '1 Main Street', [''], ['ok', '  '], ['ok', 7], Array(11).fill('line'), ['x'.repeat(256)], {}],
      city: ['', 12, true],
      state: ['', {}],
      postal_code: ['', 62701, 'x'.repeat(33)],
      country: ['', 'USA', 'XX', 'UK', 'EU', 'XK', 'U', 840, 'Germany'],
    };
    for (const [field, values] of Object.entries(invalid)) {
      for (const value of values) {
        assert.deepEqual(
          rejected({ ...common, [field]: value }, 'invoice').fields,
          [field],
          `${field} = ${JSON.stringify(value)}`,
        );
      }
    }
  });

  it('names every invalid field of one request together', () => {
    const { fields, reason } = rejected(
      { name: '', address: [], city: 5, state: '', postal_code: null, country: 'XX' },
      'invoice',
    );
    assert.deepEqual(fields, ['name', 'address', 'city', 'state', 'postal_code', 'country']);
    for (const f of fields) assert.match(reason, new RegExp(`${f} \\(`));
  });

  it('accepts any officially assigned country code, in any case', () => {
    for (const c of ['DE', 'gb', 'Jp', 'BQ', 'SS', 'AQ', 'ZW']) {
      assert.equal(parseBillingRequest({ ...common, country: c }, 'invoice', NOW).address.country, c.toUpperCase());
    }
  });

  it("ignores unknown keys, accepts the partner's own billing_mode and refuses another one", () => {
    assert.equal(parseBillingRequest({ ...common, extra: 1, billing_mode: 'invoice' }, 'invoice', NOW).card, null);
    assert.deepEqual(rejected({ ...common, billing_mode: 'prepaid' }, 'invoice').fields, ['billing_mode']);
  });
});

describe('parseBillingRequest: invoice billing', () => {
  it('does not accept card fields and names each one given', () => {
    assert.deepEqual(rejected({ ...common, ...card }, 'invoice').fields, [
      'card_number',
      'security_code',
      'expiration_month',
      'expiration_year',
    ]);
    assert.deepEqual(rejected({ ...common, security_code: '123' }, 'invoice').fields, ['security_code']);
  });

  it('treats empty card fields (what form clients send for none) as omitted', () => {
    const parsed = parseBillingRequest(
      { ...common, card_number: '', security_code: null, expiration_month: '' },
      'invoice',
      NOW,
    );
    assert.equal(parsed.card, null);
  });

  it('names card fields and invalid common fields together', () => {
    assert.deepEqual(rejected({ ...common, city: '', card_number: '4242424242424242' }, 'invoice').fields, [
      'city',
      'card_number',
    ]);
  });
});

describe('parseBillingRequest: prepaid billing', () => {
  it('accepts a valid card and keeps only digits of the number', () => {
    const parsed = parseBillingRequest({ ...common, ...card }, 'prepaid', NOW);
    assert.deepEqual(parsed.card, {
      number: '4242424242424242',
      security_code: '123',
      expiration_month: 4,
      expiration_year: 2029,
    });
    assert.deepEqual(parsed.address, common);
  });

  it('accepts numbers sent as numeric strings and a 4-digit security code', () => {
    const parsed = parseBillingRequest(
      {
        ...common,
        card_number: '3782-822463-10005',
        security_code: '1234',
        expiration_month: ' 07',
        expiration_year: '2030',
      },
      'prepaid',
      NOW,
    );
    assert.deepEqual(parsed.card, {
      number: '378282246310005',
      security_code: '1234',
      expiration_month: 7,
      expiration_year: 2030,
    });
  });

  it('requires every card field', () => {
    for (const field of ['card_number', 'security_code', 'expiration_month', 'expiration_year']) {
      const body: Record<string, unknown> = { ...common, ...card };
      delete body[field];
      assert.deepEqual(rejected(body, 'prepaid').fields, [field], field);
      assert.deepEqual(rejected({ ...body, [field]: null }, 'prepaid').fields, [field], `${field} null`);
    }
  });

  it('refuses each card field when it is invalid', () => {
    const invalid: Record<string, unknown[]> = {
      card_number: [
        '4242424242424241',
        '4242 4242 4242 4243',
        '4242.4242.4242.4242',
        'abcd',
        '1234567890',
        '4'.repeat(20),
        {},
        true,
      ],
      security_code: ['12', '12345', '12a', 'abc', 12, 12345, {}, 1.5],
      expiration_month: [0, 13, '13', '-1', 'May', 4.5, true, []],
      expiration_year: [29, '29', 12029, '2029.5', 'next', {}],
    };
    for (const [field, values] of Object.entries(invalid)) {
      for (const value of values) {
        assert.deepEqual(
          rejected({ ...common, ...card, [field]: value }, 'prepaid').fields,
          [field],
          `${field} = ${JSON.stringify(value)}`,
        );
      }
    }
  });

  it('refuses an expiry in the past, counting the month', () => {
    assert.deepEqual(rejected({ ...common, ...card, expiration_month: 12, expiration_year: 2025 }, 'prepaid').fields, [
      'expiration_year',
    ]);
    assert.deepEqual(rejected({ ...common, ...card, expiration_month: 2, expiration_year: 2026 }, 'prepaid').fields, [
      'expiration_month',
    ]);
    // the card is good through the end of its month
    assert.equal(
      parseBillingRequest({ ...common, ...card, expiration_month: 3, expiration_year: 2026 }, 'prepaid', NOW).card
        ?.expiration_month,
      3,
    );
    // one second into April, a March card has expired
    const april = Date.UTC(2026, 3, 1) / 1000;
    assert.deepEqual(
      rejected({ ...common, ...card, expiration_month: 3, expiration_year: 2026 }, 'prepaid', april).fields,
      ['expiration_month'],
    );
  });

  it('names every invalid field of one request together, common and card', () => {
    const { fields } = rejected(
      {
        name: 'Acme',
        address: ['x'],
        city: '',
        state: 'IL',
        postal_code: '1',
        country: 'ZZ',
        card_number: '4242424242424241',
        security_code: '1',
        expiration_month: 13,
        expiration_year: 2020,
      },
      'prepaid',
    );
    assert.deepEqual(fields, [
      'city',
      'country',
      'card_number',
      'security_code',
      'expiration_month',
      'expiration_year',
    ]);
  });

  it('never repeats the card number or security code in the error', () => {
    const { reason } = rejected({ ...common, card_number: '4242424242424241', security_code: '98765' }, 'prepaid');
    assert.ok(!reason.includes('4242424242424241'));
    assert.ok(!reason.includes('98765'));
  });
});
