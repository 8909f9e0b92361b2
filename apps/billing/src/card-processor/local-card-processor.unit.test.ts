import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { luhnValid } from './card-number.js';
import type { CardDetails } from './card-processor.js';
import { CARD_DECLINES, LocalCardProcessor } from './local-card-processor.js';

const card = (number: string): CardDetails => ({
  number,
  security_code: '123',
  expiration_month: 12,
  expiration_year: 2040,
  holder: { name: 'Acme', postal_code: '12345', country: 'US' },
});

describe('LocalCardProcessor', () => {
  const processor = new LocalCardProcessor();

  it('approves the well-known test numbers with their brand and last four digits', async () => {
    const approved: [string, string, string][] = [
      ['4242424242424242', 'visa', '4242'],
      ['5555555555554444', 'mastercard', '4444'],
      ['378282246310005', 'amex', '0005'],
      ['6011111111111117', 'discover', '1117'],
    ];
    for (const [number, brand, last4] of approved) {
      assert.deepEqual(await processor.authorize(card(number)), { approved: true, brand, last4 }, number);
    }
  });

  it('approves any other Luhn-valid number', async () => {
    assert.deepEqual(await processor.authorize(card('4111111111111111')), {
      approved: true,
      brand: 'visa',
      last4: '1111',
    });
    assert.deepEqual(await processor.authorize(card('9999999999999995')), {
      approved: true,
      brand: 'unknown',
      last4: '9995',
    });
  });

  it('declines every number of the decline table with its code and reason', async () => {
    const expected: Record<string, string> = {
      '4000000000000002': 'card_declined',
      '4000000000009995': 'insufficient_funds',
      '4000000000009987': 'lost_card',
      '4000000000009979': 'stolen_card',
      '4000000000000069': 'expired_card',
      '4000000000000127': 'incorrect_cvc',
      '4100000000000019': 'fraudulent',
    };
    assert.deepEqual([...CARD_DECLINES.keys()].sort(), Object.keys(expected).sort());
    for (const [number, code] of Object.entries(expected)) {
      const answer = await processor.authorize(card(number));
      assert.equal(answer.approved, false, number);
      assert.ok(!answer.approved);
      assert.equal(answer.code, code);
      assert.equal(answer.reason, CARD_DECLINES.get(number)!.reason);
      assert.ok(answer.reason.length > 0);
      assert.ok(!JSON.stringify(answer).includes(number), 'a decline must not quote the number');
    }
  });

  it('has only Luhn-valid numbers in its decline table (so they pass validation and reach it)', () => {
    for (const number of CARD_DECLINES.keys()) assert.equal(luhnValid(number), true, number);
  });

  it('declines a number that fails the Luhn check', async () => {
    assert.deepEqual(await processor.authorize(card('4242424242424241')), {
      approved: false,
      code: 'incorrect_number',
      reason: 'the card number is incorrect',
    });
  });
});
