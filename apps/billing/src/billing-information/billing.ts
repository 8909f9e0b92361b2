/**
 * The billing aggregate of one partner (stream `billing-<partnerId>`): the billing mode the operator
 * chose and the billing information the partner gave. Events carry the card's brand, last four
 * digits and expiry only: the number and security code never reach an event (spec §4A rule 5,
 * DESIGN §1 billing).
 */
import {
  ADDRESS_FIELDS,
  badRequest,
  type BillingAddress,
  type BillingEvent,
  type BillingMode,
  BILLING_MODES,
  CARD_FIELDS,
  type CardSummary,
  type Command,
  type Decider,
} from '@burrow/contracts';

export { ADDRESS_FIELDS, CARD_FIELDS };

/** A partner whose mode the operator never set is billed by invoice. */
export const DEFAULT_BILLING_MODE: BillingMode = 'invoice';

export const isBillingMode = (value: unknown): value is BillingMode => BILLING_MODES.includes(value as BillingMode);

export type SetBillingMode = Command<'SetBillingMode', { billing_mode: BillingMode; at: number }>;
export type UpdateBillingInformation = Command<
  'UpdateBillingInformation',
  { address: BillingAddress; card: CardSummary | null; at: number }
>;
export type RecordCardDecline = Command<
  'RecordCardDecline',
  { code: string; reason: string; brand: string; last4: string; at: number }
>;
export type BillingCommand = SetBillingMode | UpdateBillingInformation | RecordCardDecline;

export interface BillingState {
  mode: BillingMode;
  address: BillingAddress | null;
  card: CardSummary | null;
}

/** Event payloads are built field by field, so nothing a caller attaches to a command rides along. */
const addressData = (a: BillingAddress): BillingAddress => ({
  name: a.name,
  address: [...a.address],
  city: a.city,
  state: a.state,
  postal_code: a.postal_code,
  country: a.country,
});

const cardData = (c: CardSummary): CardSummary => ({
  brand: c.brand,
  last4: c.last4,
  expiration_month: c.expiration_month,
  expiration_year: c.expiration_year,
});

export const billingDecider: Decider<BillingState, BillingCommand, BillingEvent> = {
  initialState: { mode: DEFAULT_BILLING_MODE, address: null, card: null },

  decide(command, state) {
    switch (command.type) {
      case 'SetBillingMode':
        if (!isBillingMode(command.billing_mode))
          throw badRequest('billing_mode must be "prepaid" or "invoice"', ['billing_mode']);
        return command.billing_mode === state.mode
          ? []
          : [{ type: 'BillingModeSet', data: { billing_mode: command.billing_mode, at: command.at } }];
      case 'UpdateBillingInformation':
        // Checked again here, against the stream: the operator may have switched the mode since the
        // request was validated.
        if (state.mode === 'prepaid' && !command.card) {
          throw badRequest(`prepaid billing requires ${CARD_FIELDS.join(', ')}`, [...CARD_FIELDS]);
        }
        if (state.mode === 'invoice' && command.card) {
          throw badRequest(`invoice billing takes no card: ${CARD_FIELDS.join(', ')} are not accepted`, [
            ...CARD_FIELDS,
          ]);
        }
        return [
          {
            type: 'BillingInformationUpdated',
            data: {
              ...addressData(command.address),
              card: command.card ? cardData(command.card) : null,
              at: command.at,
            },
          },
        ];
      case 'RecordCardDecline':
        return [
          {
            type: 'CardDeclined',
            data: {
              code: command.code,
              reason: command.reason,
              brand: command.brand,
              last4: command.last4,
              at: command.at,
            },
          },
        ];
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'BillingModeSet':
        // A card on file means nothing for invoice billing: it is dropped, not kept for later.
        return {
          ...state,
          mode: event.data.billing_mode,
          card: event.data.billing_mode === 'invoice' ? null : state.card,
        };
      case 'BillingInformationUpdated': {
        const { card, at: _at, ...address } = event.data;
        return { ...state, address, card };
      }
      case 'CardDeclined':
        return state;
      default:
        return state;
    }
  },
};
