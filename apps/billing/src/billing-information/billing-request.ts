/**
 * `POST /partner/billing`, for the partner's billing mode: the body is parsed with the declared
 * shape (`BillingInformationBody` in the contracts, which the OpenAPI document shows), and the
 * mode's rules are added to the same 400: the six address fields are required, the four card fields
 * are required for prepaid billing (Luhn-valid number, expiry not past) and refused for invoice
 * billing. One 400 names every invalid or missing field, in the spec's order; the reason says what
 * is wrong with each but never repeats a value (a card number must not travel back in an error).
 */
import {
  ADDRESS_FIELDS,
  ADDRESS_MAX_LINES,
  badRequest,
  type BillingAddress,
  BILLING_TEXT_MAX_LENGTH,
  BillingInformationBody,
  type BillingMode,
  CARD_FIELDS,
  CARD_NUMBER_MAX_DIGITS,
  CARD_NUMBER_MIN_DIGITS,
  POSTAL_CODE_MAX_LENGTH,
  type z,
} from '@burrow/contracts';
import { luhnValid } from '../card-processor/card-number.js';

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

type Field = (typeof ADDRESS_FIELDS)[number] | (typeof CARD_FIELDS)[number] | 'billing_mode';
const ORDER: Field[] = [...ADDRESS_FIELDS, ...CARD_FIELDS, 'billing_mode'];

/** What to say about a field whose shape is wrong (the declared limits, in words). */
const SHAPE_PROBLEM: Record<Field, (tooLong: boolean, nested: boolean) => string> = {
  name: (long) => (long ? `must be at most ${BILLING_TEXT_MAX_LENGTH} characters` : 'must be a non-empty string'),
  address: (_long, nested) =>
    nested
      ? `every line must be a non-empty string of at most ${BILLING_TEXT_MAX_LENGTH} characters`
      : `must be a list of 1 to ${ADDRESS_MAX_LINES} lines`,
  city: (long) => (long ? `must be at most ${BILLING_TEXT_MAX_LENGTH} characters` : 'must be a non-empty string'),
  state: (long) => (long ? `must be at most ${BILLING_TEXT_MAX_LENGTH} characters` : 'must be a non-empty string'),
  postal_code: (long) => (long ? `must be at most ${POSTAL_CODE_MAX_LENGTH} characters` : 'must be a non-empty string'),
  country: () => 'must be an ISO 3166-1 alpha-2 country code',
  card_number: () =>
    `must be ${CARD_NUMBER_MIN_DIGITS} to ${CARD_NUMBER_MAX_DIGITS} digits (spaces and dashes allowed)`,
  security_code: () => 'must be 3 or 4 digits',
  expiration_month: () => 'must be a month number from 1 to 12',
  expiration_year: () => 'must be a 4-digit year',
  billing_mode: () => 'must be "prepaid" or "invoice"',
};

/** Form clients send "" or null for "none". */
const isAbsent = (v: unknown) => v === undefined || v === null || v === '';

/** The validated request, or a 400 DomainError naming every invalid or missing field. */
export function parseBillingRequest(body: unknown, mode: BillingMode, nowSeconds: number): BillingRequest {
  const isObject = body !== null && typeof body === 'object' && !Array.isArray(body);
  const given: Record<string, unknown> = {};
  if (isObject) for (const [k, v] of Object.entries(body)) if (!isAbsent(v)) given[k] = v;
  const problems = new Map<Field, string>();

  // Field by field, so the mode's rules can still look at every field whose shape is right.
  const value: Partial<BillingInformationBody> = {};
  for (const [field, schema] of Object.entries(BillingInformationBody.shape) as [Field, z.ZodType][]) {
    if (!(field in given)) continue;
    const parsed = schema.safeParse(given[field]);
    if (parsed.success) (value as Record<string, unknown>)[field] = parsed.data;
    else {
      const issue = parsed.error.issues[0];
      problems.set(
        field,
        SHAPE_PROBLEM[field](issue.code === 'too_big' && issue.path.length === 0, issue.path.length > 0),
      );
    }
  }

  for (const field of ADDRESS_FIELDS) if (!(field in given)) problems.set(field, 'required');
  if (mode === 'prepaid') {
    for (const field of CARD_FIELDS) if (!(field in given)) problems.set(field, 'required for prepaid billing');
    if (value.card_number !== undefined && !luhnValid(value.card_number))
      problems.set('card_number', 'is not a valid card number');
    if (value.expiration_year !== undefined) {
      // A card is good through the last day of its expiration month (counted in UTC).
      const now = new Date(nowSeconds * 1000);
      const thisYear = now.getUTCFullYear();
      if (value.expiration_year < thisYear) problems.set('expiration_year', 'is in the past: the card has expired');
      else if (
        value.expiration_year === thisYear &&
        value.expiration_month !== undefined &&
        value.expiration_month < now.getUTCMonth() + 1
      ) {
        problems.set('expiration_month', 'is in the past: the card has expired');
      }
    }
  } else {
    for (const field of CARD_FIELDS) if (field in given) problems.set(field, 'not accepted for invoice billing');
  }
  // The partner cannot choose the mode (the operator sets it); saying another one is a mistake.
  if (given.billing_mode !== undefined && given.billing_mode !== mode) {
    problems.set('billing_mode', `is set by the operator; this partner is billed by ${mode}`);
  }

  if (problems.size) {
    const named = [...problems.keys()].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b));
    const details = named.map((f) => `${f} (${problems.get(f)})`).join(', ');
    const prefix = isObject
      ? 'invalid or missing parameters'
      : 'the body must be a JSON object with the billing information; missing';
    throw badRequest(`${prefix}: ${details}`, named);
  }
  const v = value as Required<typeof value>;
  return {
    address: {
      name: v.name,
      address: v.address,
      city: v.city,
      state: v.state,
      postal_code: v.postal_code,
      country: v.country,
    },
    card:
      mode === 'prepaid'
        ? {
            number: v.card_number,
            security_code: v.security_code,
            expiration_month: v.expiration_month,
            expiration_year: v.expiration_year,
          }
        : null,
  };
}
