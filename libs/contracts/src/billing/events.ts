/**
 * The billing service's events (stream `billing-<partnerId>`). They carry a card's brand, last four
 * digits and expiry only: the number and security code never reach an event.
 */
import type { Event } from '../event.js';
import type { BillingMode, CardSummary } from './records.js';

export interface BillingAddress {
  name: string;
  address: string[];
  city: string;
  state: string;
  postal_code: string;
  country: string;
}

export type BillingModeSet = Event<'BillingModeSet', { billing_mode: BillingMode; at: number }>;
export type BillingInformationUpdated = Event<
  'BillingInformationUpdated',
  BillingAddress & { card: CardSummary | null; at: number }
>;
export type CardDeclined = Event<
  'CardDeclined',
  { code: string; reason: string; brand: string; last4: string; at: number }
>;
export type BillingEvent = BillingModeSet | BillingInformationUpdated | CardDeclined;
