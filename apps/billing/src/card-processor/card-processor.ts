/**
 * The CardProcessor port (DESIGN §4): asks a card processor whether a card may be charged. The
 * billing service calls it once per prepaid billing update; an approval gives back only what
 * Burrow may keep (brand, last four digits), a decline the processor's code and reason.
 *
 * Adapters: `LocalCardProcessor` (embedded, deterministic test numbers). A real processor adapter
 * would tokenise on the client side so the number never reaches Burrow; see docs/billing.md.
 */
import type { CardBrand } from './card-number.js';

export interface CardDetails {
  /** digits only */
  number: string;
  security_code: string;
  expiration_month: number;
  expiration_year: number;
  /** for address verification by processors that do it */
  holder: { name: string; postal_code: string; country: string };
}

export type CardAuthorization =
  { approved: true; brand: CardBrand; last4: string } | { approved: false; code: string; reason: string };

export interface CardProcessor {
  /**
   * Resolves with the processor's answer. Rejects only when no answer could be had (unreachable,
   * timed out): the service then replies 503 and stores nothing.
   */
  authorize(card: CardDetails): Promise<CardAuthorization>;
}
