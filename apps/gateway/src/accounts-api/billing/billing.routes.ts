/**
 * The routes of `/partner/billing`: path, method, and their OpenAPI prose and examples. The body
 * schema is the one the billing service parses the forwarded body with.
 */
import { BillingInformationBody, BillingView } from '@burrow/contracts';
import { route } from '../../http/route.js';
import { err, error, ex, reply } from '../../openapi/builders.js';
import { AUTHENTICATED, WITH_BODY } from '../../openapi/common.js';
import { billingAddress, exampleBillingInvoice, exampleBillingNothing, exampleBillingPrepaid } from '../examples.js';

/** Paths relative to the partner mounts. */
export const BILLING_ROUTES = {
  get: route({
    method: 'get',
    path: 'billing',
    operation: {
      operationId: 'getPartnerBilling',
      tags: ['billing'],
      summary: 'Stored billing information (beyond the spec)',
      description: 'The billing mode and what is stored; of a card only brand, last four digits and expiry.',
      responses: {
        '200': reply('The stored information.', BillingView, {
          prepaid: ex('prepaid, card on file', exampleBillingPrepaid),
          nothingYet: ex('before the first update', exampleBillingNothing),
        }),
        ...AUTHENTICATED,
      },
    },
  }),
  update: route({
    method: 'post',
    path: 'billing',
    body: BillingInformationBody,
    operation: {
      operationId: 'updatePartnerBilling',
      tags: ['billing'],
      summary: 'Set billing information',
      description:
        'Prepaid billing: the card is checked with the card processor first; nothing is stored when it is refused. Returns what is stored.',
      requestBody: {
        description: 'The billing information.',
        examples: {
          invoice: ex('invoice billing', billingAddress),
          prepaid: ex('prepaid billing', {
            ...billingAddress,
            card_number: '4242 4242 4242 4242',
            security_code: '123',
            expiration_month: 12,
            expiration_year: 2030,
          }),
        },
      },
      responses: {
        '200': reply('Updated; the stored information.', BillingView, {
          invoice: ex('invoice billing', exampleBillingInvoice),
          prepaid: ex('prepaid billing', exampleBillingPrepaid),
        }),
        '400': error('Invalid or missing fields (all named in `fields`; values are never echoed).', {
          missing: ex(
            'prepaid, card fields missing',
            err(
              'invalid or missing parameters: card_number (required for prepaid billing), security_code (required for prepaid billing)',
              { fields: ['card_number', 'security_code'] },
            ),
          ),
          invoiceCard: ex(
            'a card sent for invoice billing',
            err('invalid or missing parameters: card_number (not accepted for invoice billing)', {
              fields: ['card_number'],
            }),
          ),
        }),
        '409': error('Prepaid only: the card processor refused the card (`code` is its response code).', {
          declined: ex('card declined', err('the card was declined', { code: 'card_declined', conflicts: [] })),
          funds: ex(
            'insufficient funds',
            err('the card has insufficient funds', { code: 'insufficient_funds', conflicts: [] }),
          ),
        }),
        ...WITH_BODY,
        '503': error(
          'The card processor did not answer (nothing was stored), or the billing service did not answer in time (read back before retrying).',
          {
            processor: ex('card processor down', err('the card processor did not answer; nothing was stored, retry')),
            timeout: ex('billing service timed out', err('billing service did not answer in time')),
          },
        ),
      },
    },
  }),
};
