/**
 * `POST /partner/billing`: the shape of every field, declared once. Which fields are required
 * depends on the partner's billing mode, which only the billing service knows, so the billing
 * service parses the body with this schema and adds its mode rules (required fields, no card for
 * invoice billing, Luhn check, expiry) to the same 400 (apps/billing billing-request.ts).
 * Form clients send "" or null for "none": both count as absent.
 */
import { z } from 'zod';
import type { PartnerScoped } from '../bus.js';
import { formInt } from '../validation.js';
import { ISO_3166_1_ALPHA_2 } from './countries.js';

const COUNTRY_CODES = [...ISO_3166_1_ALPHA_2.keys()] as [string, ...string[]];
import type { BillingMode } from './records.js';

export const BILLING_TEXT_MAX_LENGTH = 255;
export const POSTAL_CODE_MAX_LENGTH = 32;
export const ADDRESS_MAX_LINES = 10;
export const CARD_NUMBER_MIN_DIGITS = 12;
export const CARD_NUMBER_MAX_DIGITS = 19;

/** The common fields, in the spec's order. */
export const ADDRESS_FIELDS = ['name', 'address', 'city', 'state', 'postal_code', 'country'] as const;
/** Prepaid billing only, in the spec's order. */
export const CARD_FIELDS = ['card_number', 'security_code', 'expiration_month', 'expiration_year'] as const;

const line = (max: number) =>
  z.string().trim().min(1, 'must be a non-empty string').max(max, `must be at most ${max} characters`);
const CARD_DIGITS = new RegExp(`^\\d{${CARD_NUMBER_MIN_DIGITS},${CARD_NUMBER_MAX_DIGITS}}$`);
/** 12 to 19 digits, with the spaces and dashes people type between groups anywhere. */
const CARD_AS_TYPED = new RegExp(`^[\\s-]*(?:\\d[\\s-]*){${CARD_NUMBER_MIN_DIGITS},${CARD_NUMBER_MAX_DIGITS}}$`);
const digitsOnly = (v: string) => v.replace(/[\s-]/g, '');

/** Digits only; spaces and dashes people type between groups removed; a JSON number is accepted. */
export const CardNumber = z.union([
  z.string().regex(CARD_AS_TYPED).overwrite(digitsOnly),
  z.int().positive().transform(String).pipe(z.string().regex(CARD_DIGITS)),
]);

export const BillingInformationBody = z
  .object({
    name: line(BILLING_TEXT_MAX_LENGTH),
    address: z
      .array(line(BILLING_TEXT_MAX_LENGTH))
      .min(1)
      .max(ADDRESS_MAX_LINES, `must be a list of 1 to ${ADDRESS_MAX_LINES} lines`),
    city: line(BILLING_TEXT_MAX_LENGTH),
    state: line(BILLING_TEXT_MAX_LENGTH),
    postal_code: line(POSTAL_CODE_MAX_LENGTH),
    country: z
      .string()
      .transform((v) => v.trim().toUpperCase())
      .pipe(z.enum(COUNTRY_CODES).describe('ISO 3166-1 alpha-2, any case')),
    card_number: CardNumber.describe('prepaid billing only'),
    security_code: z
      .union([z.string(), z.int().min(0).transform(String)])
      .transform((v) => v.trim())
      .pipe(z.string().regex(/^\d{3,4}$/, 'must be 3 or 4 digits'))
      .describe('prepaid billing only'),
    expiration_month: formInt({ min: 1, max: 12 }).describe('prepaid billing only'),
    expiration_year: formInt({ min: 1000, max: 9999 }).describe('prepaid billing only; 4 digits'),
    billing_mode: z
      .enum(['prepaid', 'invoice'])
      .describe('optional; set by the operator, so only the current mode is accepted'),
  })
  .partial()
  .meta({
    id: 'BillingInformationBody',
    description:
      'Billing information. The six address fields are always required; the four card fields are required for prepaid billing and refused for invoice billing.',
  });
export type BillingInformationBody = z.output<typeof BillingInformationBody>;

export interface UpdateBillingRequest extends PartnerScoped {
  /** the JSON body as received: only the billing service knows the mode that decides its rules */
  billing: unknown;
}

export interface SetBillingModeRequest extends PartnerScoped {
  billing_mode: BillingMode;
}
