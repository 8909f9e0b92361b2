/**
 * The embedded CardProcessor: deterministic, offline, for standalone mode and tests. Numbers in
 * `CARD_DECLINES` are refused with their code and reason; every other Luhn-valid number is
 * approved (so the well-known test numbers 4242424242424242, 5555555555554444, 378282246310005
 * and 6011111111111117 approve). The table is documented in docs/billing.md; keep the two alike.
 */
import { cardBrand, lastFour, luhnValid } from './card-number.js';
import type { CardAuthorization, CardDetails, CardProcessor } from './card-processor.js';

export interface CardDecline {
  code: string;
  reason: string;
}

/** Test numbers that the local processor declines (the same numbers the big processors use). */
export const CARD_DECLINES: ReadonlyMap<string, CardDecline> = new Map([
  ['4000000000000002', { code: 'card_declined', reason: 'the card was declined' }],
  ['4000000000009995', { code: 'insufficient_funds', reason: 'the card has insufficient funds' }],
  ['4000000000009987', { code: 'lost_card', reason: 'the card was reported lost' }],
  ['4000000000009979', { code: 'stolen_card', reason: 'the card was reported stolen' }],
  ['4000000000000069', { code: 'expired_card', reason: 'the card has expired' }],
  ['4000000000000127', { code: 'incorrect_cvc', reason: "the card's security code is incorrect" }],
  ['4100000000000019', { code: 'fraudulent', reason: 'the card was declined as likely fraud' }],
]);

export class LocalCardProcessor implements CardProcessor {
  async authorize(card: CardDetails): Promise<CardAuthorization> {
    if (!luhnValid(card.number))
      return { approved: false, code: 'incorrect_number', reason: 'the card number is incorrect' };
    const decline = CARD_DECLINES.get(card.number);
    if (decline) return { approved: false, ...decline };
    return { approved: true, brand: cardBrand(card.number), last4: lastFour(card.number) };
  }
}
