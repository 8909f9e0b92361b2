/** What the billing service answers: the partner's billing mode and stored information. */
import { z } from 'zod';

export const BILLING_MODES = ['prepaid', 'invoice'] as const;
export const BillingMode = z.enum(BILLING_MODES);
export type BillingMode = z.infer<typeof BillingMode>;

/** All Burrow keeps of a card. */
export const CardSummary = z
  .object({ brand: z.string(), last4: z.string(), expiration_month: z.int().min(1).max(12), expiration_year: z.int() })
  .meta({ id: 'CardSummary', description: 'All Burrow keeps of a card: brand, last four digits and expiry.' });
export type CardSummary = z.infer<typeof CardSummary>;

/** What a partner sees: the mode and the stored information, null before the first update. */
export const BillingView = z
  .object({
    billing_mode: BillingMode,
    name: z.string().nullable(),
    address: z.array(z.string()).nullable(),
    city: z.string().nullable(),
    state: z.string().nullable(),
    postal_code: z.string().nullable(),
    country: z.string().nullable(),
    card: CardSummary.nullable(),
    updated_at: z.int().nullable().describe('unix seconds of the last accepted update; null before it'),
  })
  .meta({
    id: 'BillingView',
    description: 'The billing mode and the stored billing information (never the card number or security code).',
  });
export type BillingView = z.infer<typeof BillingView>;
