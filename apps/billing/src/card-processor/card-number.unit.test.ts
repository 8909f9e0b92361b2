import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CardNumber } from '@burrow/contracts';
import { cardBrand, lastFour, luhnValid } from './card-number.js';

/** The declared card number shape (contracts), as the billing parser applies it. */
const normalizeCardNumber = (value: unknown): string | null => {
  const parsed = CardNumber.safeParse(value);
  return parsed.success ? parsed.data : null;
};

describe('luhnValid', () => {
  it('accepts the well-known test numbers', () => {
    for (const n of [
      '4242424242424242',
      '5555555555554444',
      '378282246310005',
      '6011111111111117',
      '4000000000000002',
      '79927398713',
    ]) {
      assert.equal(luhnValid(n), true, n);
    }
  });

  it('refuses a number whose check digit is wrong', () => {
    for (const n of ['4242424242424241', '5555555555554440', '378282246310006', '79927398710', '1234567812345678']) {
      assert.equal(luhnValid(n), false, n);
    }
  });

  it('catches a single mistyped digit and most swaps of neighbours', () => {
    const good = '4242424242424242';
    for (let i = 0; i < good.length; i++) {
      const d = Number(good[i]);
      const typo = good.slice(0, i) + String((d + 1) % 10) + good.slice(i + 1);
      assert.equal(luhnValid(typo), false, typo);
    }
    assert.equal(luhnValid('4000000000000020'), false);
  });

  it('refuses anything that is not all digits', () => {
    for (const n of ['', '4242 4242 4242 4242', '42424242424242a2', '-4242424242424242'])
      assert.equal(luhnValid(n), false, n);
  });
});

describe('the CardNumber shape', () => {
  it('strips the spaces and dashes people type and keeps the digits', () => {
    assert.equal(normalizeCardNumber('4242 4242 4242 4242'), '4242424242424242');
    assert.equal(normalizeCardNumber('4242-4242-4242-4242'), '4242424242424242');
    assert.equal(normalizeCardNumber(' 3782 822463 10005 '), '378282246310005');
  });

  it('accepts a JSON number (form clients)', () => {
    assert.equal(normalizeCardNumber(4242424242424242), '4242424242424242');
  });

  it('refuses other characters, wrong lengths and non-strings', () => {
    for (const v of [
      '4242.4242.4242.4242',
      '4242424242424242x',
      '12345678901',
      '12345678901234567890',
      '',
      null,
      undefined,
      {},
      [],
      1.5,
      -4242424242424242,
    ]) {
      assert.equal(normalizeCardNumber(v), null, String(v));
    }
  });

  it('takes 12 to 19 digits', () => {
    assert.equal(normalizeCardNumber('1'.repeat(12)), '1'.repeat(12));
    assert.equal(normalizeCardNumber('1'.repeat(19)), '1'.repeat(19));
  });
});

describe('cardBrand and lastFour', () => {
  it('names the brand from the issuer prefix', () => {
    const cases: [string, string][] = [
      ['4242424242424242', 'visa'],
      ['5555555555554444', 'mastercard'],
      ['2223003122003222', 'mastercard'],
      ['378282246310005', 'amex'],
      ['371449635398431', 'amex'],
      ['6011111111111117', 'discover'],
      ['6500000000000002', 'discover'],
      ['3056930009020004', 'diners'],
      ['36227206271667', 'diners'],
      ['3566002020360505', 'jcb'],
      ['6200000000000005', 'unionpay'],
      ['9999999999999995', 'unknown'],
    ];
    for (const [n, brand] of cases) assert.equal(cardBrand(n), brand, n);
  });

  it('keeps the last four digits', () => {
    assert.equal(lastFour('378282246310005'), '0005');
  });
});
