/**
 * The webhook delivery as the OpenAPI document's `webhooks` section describes it (a request Burrow
 * makes, not a route it serves), and the signature prose the registration route repeats.
 */
import { WEBHOOK_HEADERS } from '@burrow/contracts';
import { ex } from '../openapi/builders.js';
import type { PathItem } from '../http/openapi-types.js';
import { exampleDelivery, exampleEvents, exampleWebhook } from './examples.js';

const FEED_EVENT = { $ref: '#/components/schemas/FeedEvent' };

export const SIGNATURE_PROSE = `
Each delivery is a POST of one event (schema FeedEvent, the same object the feed lists) as JSON,
with these headers: \`${WEBHOOK_HEADERS.webhookId}\` (the endpoint), \`${WEBHOOK_HEADERS.deliveryId}\`
(this delivery; a retry keeps it, a redelivery gets a new one), \`${WEBHOOK_HEADERS.eventId}\` (the
event's \`id\`: drop duplicates by it; delivery is at least once), \`${WEBHOOK_HEADERS.eventType}\`,
\`${WEBHOOK_HEADERS.timestamp}\` (unix seconds) and \`${WEBHOOK_HEADERS.signature}\`:
\`v1=<hex>\`, or \`v1=<hex>,v1=<hex>\` while a rotated-out secret is still valid. Each \`v1\` is the
lowercase hex HMAC-SHA256, keyed with a secret (the whole \`whsec_...\` string), of
\`<timestamp>.<body>\` (the raw body bytes). Accept the delivery when any \`v1\` equals yours,
compared in constant time, and the timestamp is within a few minutes of now. In shell:
\`printf '%s.%s' "$ts" "$body" | openssl dgst -sha256 -hmac "$secret" | sed 's/^.* //'\`.

Answer 2xx within 10 seconds. Anything else (or no answer) is retried with exponential backoff
(from 30 seconds, doubling, at most an hour apart) for 72 hours, then the delivery fails. An endpoint
whose deliveries have failed for 3 days with no success is disabled (\`disabled_reason\` says why)
until the partner enables it again (\`POST /webhooks/{id}?action=enable\`); the feed has everything it
missed. Deliveries are not ordered: use \`position\`. URLs must be https and must not point at a
private, loopback or link-local address (checked at registration and again at every connection);
an operator may allow http and private targets.
`.trim();

/** The delivery, as OpenAPI 3.1 describes requests Burrow makes (the document's `webhooks`). */
export const deliveryWebhooks: Record<string, PathItem> = {
  event: {
    post: {
      operationId: 'receiveEvent',
      tags: ['events'],
      summary: 'An event delivered to a registered endpoint',
      description: SIGNATURE_PROSE,
      security: [],
      parameters: [
        {
          name: WEBHOOK_HEADERS.webhookId,
          in: 'header',
          required: true,
          description: 'the endpoint id',
          schema: { type: 'string' },
          example: exampleWebhook.id,
        },
        {
          name: WEBHOOK_HEADERS.deliveryId,
          in: 'header',
          required: true,
          description: 'the delivery id (the same on every retry)',
          schema: { type: 'string' },
          example: exampleDelivery.id,
        },
        {
          name: WEBHOOK_HEADERS.eventId,
          in: 'header',
          required: true,
          description: "the event's id: drop duplicates by it",
          schema: { type: 'string' },
          example: exampleDelivery.event_id,
        },
        {
          name: WEBHOOK_HEADERS.eventType,
          in: 'header',
          required: true,
          description: "the event's type",
          schema: { type: 'string' },
          example: 'user.created',
        },
        {
          name: WEBHOOK_HEADERS.timestamp,
          in: 'header',
          required: true,
          description: 'unix seconds, signed with the body',
          schema: { type: 'string', pattern: '^[0-9]+$' },
          example: '1700000000',
        },
        {
          name: WEBHOOK_HEADERS.signature,
          in: 'header',
          required: true,
          description: '`v1=<hex HMAC-SHA256 of "<timestamp>.<body>">`, one per live secret, comma-separated',
          schema: { type: 'string' },
          example: 'v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
        },
      ],
      requestBody: {
        description: 'The event.',
        required: true,
        content: {
          'application/json': { schema: FEED_EVENT, examples: { event: ex('user.created', exampleEvents[0]) } },
        },
      },
      responses: {
        '200': {
          description: 'Any 2xx acknowledges the delivery; anything else, or no answer within 10 seconds, is retried.',
        },
      },
    },
  },
};
