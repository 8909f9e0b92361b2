/**
 * Validation of a `POST /partner/billing` body for the partner's billing mode. Every invalid or
 * missing field is collected so that one 400 names them all; the reason text says what is wrong
 * with each but never repeats a value (a card number must not travel back in an error either).
 * Numbers may arrive as numeric strings (CLIENT-FACTS).
 */
import { badRequest, coerceInt, INVALID } from '@burrow/contracts';
import { luhnValid, normalizeCardNumber } from '../card-processor/card-number.js';
import { ADDRESS_FIELDS, type BillingAddress, type BillingMode, CARD_FIELDS } from './billing.js';
import { isCountryCode } from './countries.js';

export const TEXT_MAX_LENGTH = 255;
export const POSTAL_CODE_MAX_LENGTH = 32;
export const ADDRESS_MAX_LINES = 10;

/** A card as submitted, normalised. Lives in memory for one request only. */
export interface CardInput {
  /** digits only */
  number: string;
  security_code: string;
  expiration_month: number;
  expiration_year: number;
}

export interface BillingRequest {
  address: BillingAddress;
  card: CardInput | null;
}

type Problems = Map<string, string>;

const isAbsent = (v: unknown) => v === undefined || v === null || v === '';

function text(body: Record<string, unknown>, field: string, max: number, problems: Problems): string {
  const v = body[field];
  if (isAbsent(v)) problems.set(field, 'required');
  else if (typeof v !== 'string' || v.trim() === '') problems.set(field, 'must be a non-empty string');
  else if (v.trim().length > max) problems.set(field, `must be at most ${max} characters`);
  else return v.trim();
  return '';
}

function addressLines(body: Record<string, unknown>, problems: Problems): string[] {
  const v = body.address;
  if (isAbsent(v)) problems.set('address', 'required');
  else if (!Array.isArray(v) || v.length === 0 || v.length > ADDRESS_MAX_LINES) {
    problems.set('address', `must be a list of 1 to ${ADDRESS_MAX_LINES} lines`);
  } else if (!v.every((line) => typeof line === 'string' && line.trim() !== '' && line.trim().length <= TEXT_MAX_LENGTH)) {
    problems.set('address', `every line must be a non-empty string of at most ${TEXT_MAX_LENGTH} characters`);
  } else return v.map((line: string) => line.trim());
  return [];
}

function country(body: Record<string, unknown>, problems: Problems): string {
  const v = body.country;
  if (isAbsent(v)) problems.set('country', 'required');
  else if (typeof v !== 'string' || !isCountryCode(v.trim().toUpperCase())) problems.set('country', 'must be an ISO 3166-1 alpha-2 country code');
  else return v.trim().toUpperCase();
  return '';
}

function card(body: Record<string, unknown>, nowSeconds: number, problems: Problems): CardInput {
  const number = normalizeCardNumber(body.card_number);
  if (isAbsent(body.card_number)) problems.set('card_number', 'required for prepaid billing');
  else if (number === null) problems.set('card_number', 'must be 12 to 19 digits (spaces and dashes allowed)');
  else if (!luhnValid(number)) problems.set('card_number', 'is not a valid card number');

  const rawCode = body.security_code;
  const code = typeof rawCode === 'number' && Number.isSafeInteger(rawCode) ? String(rawCode) : typeof rawCode === 'string' ? rawCode.trim() : null;
  if (isAbsent(rawCode)) problems.set('security_code', 'required for prepaid billing');
  else if (code === null || !/^\d{3,4}$/.test(code)) problems.set('security_code', 'must be 3 or 4 digits');

  const month = isAbsent(body.expiration_month) ? INVALID : coerceInt(body.expiration_month);
  if (isAbsent(body.expiration_month)) problems.set('expiration_month', 'required for prepaid billing');
  else if (month === INVALID || month < 1 || month > 12) problems.set('expiration_month', 'must be a month number from 1 to 12');

  const year = isAbsent(body.expiration_year) ? INVALID : coerceInt(body.expiration_year);
  if (isAbsent(body.expiration_year)) problems.set('expiration_year', 'required for prepaid billing');
  else if (year === INVALID || year < 1000 || year > 9999) problems.set('expiration_year', 'must be a 4-digit year');
  else {
    // A card is good through the last day of its expiration month (counted in UTC).
    const now = new Date(nowSeconds * 1000);
    const thisYear = now.getUTCFullYear();
    const thisMonth = now.getUTCMonth() + 1;
    if (year < thisYear) problems.set('expiration_year', 'is in the past: the card has expired');
    else if (year === thisYear && month !== INVALID && month >= 1 && month < thisMonth) {
      problems.set('expiration_month', 'is in the past: the card has expired');
    }
  }
  return {
    number: number ?? '',
    security_code: code ?? '',
    expiration_month: month === INVALID ? 0 : month,
    expiration_year: year === INVALID ? 0 : year,
  };
}

/** The validated request, or a 400 DomainError naming every invalid or missing field. */
export function parseBillingRequest(body: unknown, mode: BillingMode, nowSeconds: number): BillingRequest {
  const isObject = body !== null && typeof body === 'object' && !Array.isArray(body);
  const fields: Record<string, unknown> = isObject ? (body as Record<string, unknown>) : {};
  const problems: Problems = new Map();

  const address: BillingAddress = {
    name: text(fields, 'name', TEXT_MAX_LENGTH, problems),
    address: addressLines(fields, problems),
    city: text(fields, 'city', TEXT_MAX_LENGTH, problems),
    state: text(fields, 'state', TEXT_MAX_LENGTH, problems),
    postal_code: text(fields, 'postal_code', POSTAL_CODE_MAX_LENGTH, problems),
    country: country(fields, problems),
  };

  let cardInput: CardInput | null = null;
  if (mode === 'prepaid') cardInput = card(fields, nowSeconds, problems);
  else {
    // Invoice billing takes no card. Empty values are what form clients send for "none": allowed.
    for (const field of CARD_FIELDS) if (!isAbsent(fields[field])) problems.set(field, 'not accepted for invoice billing');
  }

  // The partner cannot choose the mode (the operator sets it); saying another one is a mistake.
  if (!isAbsent(fields.billing_mode) && fields.billing_mode !== mode) {
    problems.set('billing_mode', `is set by the operator; this partner is billed by ${mode}`);
  }

  if (problems.size) {
    const order: string[] = [...ADDRESS_FIELDS, ...CARD_FIELDS, 'billing_mode'];
    const named = [...problems.keys()].sort((a, b) => order.indexOf(a) - order.indexOf(b));
    const details = named.map((f) => `${f} (${problems.get(f)})`).join(', ');
    const prefix = isObject ? 'invalid or missing parameters' : 'the body must be a JSON object with the billing information; missing';
    throw badRequest(`${prefix}: ${details}`, named);
  }
  return { address, card: cardInput };
}
