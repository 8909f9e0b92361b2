/**
 * What Burrow may know about a card number without a processor (its shape is declared in the
 * contracts, `CardNumber`): its Luhn check digit, its brand from the issuer prefix, and its last four digits. The number itself
 * lives only in memory for the length of one request; nothing here logs or keeps it.
 */

export type CardBrand = 'visa' | 'mastercard' | 'amex' | 'discover' | 'diners' | 'jcb' | 'unionpay' | 'unknown';

/** The Luhn (mod 10) check over a string of digits. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

const between = (digits: string, length: number, low: number, high: number) => {
  const prefix = Number(digits.slice(0, length));
  return prefix >= low && prefix <= high;
};

/** Brand by issuer identification number (the leading digits). */
export function cardBrand(digits: string): CardBrand {
  if (/^3[47]/.test(digits)) return 'amex';
  if (/^4/.test(digits)) return 'visa';
  if (between(digits, 2, 51, 55) || between(digits, 4, 2221, 2720)) return 'mastercard';
  if (/^(6011|65)/.test(digits) || between(digits, 3, 644, 649) || between(digits, 6, 622126, 622925))
    return 'discover';
  if (between(digits, 4, 3528, 3589)) return 'jcb';
  if (/^(36|38|39)/.test(digits) || between(digits, 3, 300, 305)) return 'diners';
  if (/^62/.test(digits)) return 'unionpay';
  return 'unknown';
}

export const lastFour = (digits: string): string => digits.slice(-4);
