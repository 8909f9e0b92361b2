/**
 * OpenAPI for the partner's event feed (`/events/`, JSON pages and Server-Sent Events), the webhook
 * management routes, and the delivery itself (the document's `webhooks` section). Every payload
 * schema is generated from the contracts (`FeedEvent` and one component per event type).
 */
import {
  CreateWebhookBody,
  DELIVERY_PAGE_MAX,
  FEED_PAGE_DEFAULT,
  FeedQuery,
  ListDeliveriesQuery,
  MAX_WEBHOOKS_PER_PARTNER,
  PUBLIC_EVENT_TYPES,
  RedeliverQuery,
  RotateSecretBody,
  UpdateWebhookBody,
  WEBHOOK_HEADERS,
  Webhook,
  WebhookActionQuery,
  WebhookDelivery,
  WebhookWithSecret,
} from '@burrow/contracts';
import { body, empty, err, error, ex, listOf, pathParameter, queryParameters, reply } from '../openapi/builders.js';
import { AUTHENTICATED, notAnObject, WITH_BODY } from '../openapi/common.js';
import type { PathItem, PathsFragment } from '../openapi/types.js';
import {
  exampleDelivery,
  exampleDisabledWebhook,
  exampleEvents,
  exampleFeedPage,
  examplePendingDelivery,
  exampleWebhook,
  exampleWebhookWithSecret,
} from './examples.js';
import { sseFrame } from './sse.js';

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

const sseExample = exampleEvents.slice(0, 2).map(sseFrame).join('');

export const feedPaths: PathsFragment = {
  '/events/': {
    get: {
      operationId: 'readFeed',
      tags: ['events'],
      summary: "The partner's event feed (JSON pages, or Server-Sent Events)",
      description: `
What happened in the partner's brand, oldest first, in a public vocabulary (${PUBLIC_EVENT_TYPES.length} types:
${PUBLIC_EVENT_TYPES.map((t) => `\`${t}\``).join(', ')}; each type's payload is the component named after it, e.g.
UserCreatedEvent). Never internal fields: no password hashes, tokens, card data or internal ids.

Each event has a \`position\`: an increasing integer (with gaps), stable for good; \`after=0\` replays
the feed from the beginning, and a page after a given position never changes once the feed has
gone past it. Page with \`next_after\` until \`has_more\` is false.

With \`Accept: text/event-stream\` the same URL streams the events live as Server-Sent Events, from
\`after\` (or from the \`Last-Event-ID\` header, which wins, as a reconnecting EventSource sends it):
each event is a frame with \`id: <position>\`, \`event: <type>\` and \`data: <the event as JSON>\`.
Comment lines (\`: heartbeat\`) keep an idle stream open through proxies; a stream ends after an hour
(the client reconnects with Last-Event-ID, as EventSource does by itself, and loses nothing).
`.trim(),
      parameters: [
        ...queryParameters(FeedQuery, { after: { example: 1520 }, limit: { example: FEED_PAGE_DEFAULT } }),
        { name: 'Last-Event-ID', in: 'header', description: 'SSE only: resume after this position (wins over `after`)', required: false, schema: { type: 'string', pattern: '^[0-9]+$' }, example: '1730' },
      ],
      responses: {
        '200': {
          description: 'A page of the feed (JSON), or with `Accept: text/event-stream` an endless stream of its events.',
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/FeedPage' }, examples: { page: ex('a page of three events, more to come', exampleFeedPage), empty: ex('nothing after the position', { events: [], next_after: 3200, has_more: false }) } },
            'text/event-stream': { schema: { type: 'string' }, examples: { stream: ex('the first two frames of a stream', sseExample) } },
          },
        },
        '400': error('`after` or `limit` out of range (named in `fields`), or a Last-Event-ID that is no position.', {
          limit: ex('limit too large', err('invalid query parameters: limit', { fields: ['limit'] })),
          lastEventId: ex('bad Last-Event-ID', err('Last-Event-ID must be a feed position', { fields: ['Last-Event-ID'] })),
        }),
        ...AUTHENTICATED,
      },
    },
  },
};

const webhookIdParam = pathParameter('id', 'the webhook endpoint id', { type: 'string', format: 'uuid' }, exampleWebhook.id);
const deliveryIdParam = pathParameter('delivery', 'the delivery id', { type: 'string' }, exampleDelivery.id);
const noWebhook = error('No such webhook endpoint for this partner.', { noWebhook: ex('unknown endpoint', err(`no webhook ${exampleWebhook.id}`)) });
const noDelivery = error('No such webhook endpoint or delivery for this partner.', { noDelivery: ex('unknown delivery', err(`no delivery ${exampleDelivery.id}`)) });
const badUrl = error('Invalid fields (named in `fields`): a url that is not https (unless the operator allows http), holds credentials, does not resolve, or points at a private, loopback or link-local address; an unknown event type.', {
  private: ex('a loopback address', err('url refused: 127.0.0.1 resolves to 127.0.0.1 is a loopback address (not allowed for webhooks)', { fields: ['url'] })),
  scheme: ex('http', err('url must use https', { fields: ['url'] })),
  types: ex('unknown event type', err('invalid or missing parameters: event_types', { fields: ['event_types'] })),
  notObject: notAnObject,
});
const webhookBody = {
  url: exampleWebhook.url,
  event_types: exampleWebhook.event_types,
  description: exampleWebhook.description,
};

export const webhooksPaths: PathsFragment = {
  '/webhooks/': {
    get: {
      operationId: 'listWebhooks',
      tags: ['events'],
      summary: 'List webhook endpoints',
      responses: { '200': reply(`The partner's endpoints (at most ${MAX_WEBHOOKS_PER_PARTNER}), oldest first; never their secrets.`, listOf(Webhook, 'endpoints'), { list: ex('one endpoint', [exampleWebhook]) }), ...AUTHENTICATED },
    },
    post: {
      operationId: 'createWebhook',
      tags: ['events'],
      summary: 'Register a webhook endpoint',
      description: `${SIGNATURE_PROSE}\n\nThe reply holds the signing \`secret\`, shown this once (rotate it to get a new one). Deliveries start with the next event of the chosen types.`,
      requestBody: body('The endpoint.', CreateWebhookBody, { endpoint: ex('a CRM endpoint', webhookBody), everything: ex('every event type', { url: 'https://hooks.example.com/burrow', event_types: ['*'] }) }),
      responses: {
        '201': reply('Registered; `Location` ends in `/<id>`.', WebhookWithSecret, { created: ex('the endpoint and its secret', exampleWebhookWithSecret) }, {
          Location: { description: 'path of the new endpoint', schema: { type: 'string' }, example: `/webhooks/${exampleWebhook.id}` },
        }),
        '400': badUrl,
        '409': error(`The partner has ${MAX_WEBHOOKS_PER_PARTNER} endpoints already.`, { tooMany: ex('too many', err(`a partner has at most ${MAX_WEBHOOKS_PER_PARTNER} webhooks`, { conflicts: [] })) }),
        ...WITH_BODY,
      },
    },
  },
  '/webhooks/{id}': {
    get: {
      operationId: 'getWebhook',
      tags: ['events'],
      summary: 'A webhook endpoint',
      parameters: [webhookIdParam],
      responses: { '200': reply('The endpoint (without its secret).', Webhook, { endpoint: ex('enabled', exampleWebhook), disabled: ex('disabled after days of failures', exampleDisabledWebhook) }), '404': noWebhook, ...AUTHENTICATED },
    },
    post: {
      operationId: 'updateWebhook',
      tags: ['events'],
      summary: 'Change a webhook endpoint, rotate its secret, enable, disable or delete it',
      description:
        'Without `action`: changes the fields given. `rotate_secret`: a new secret (in the reply, shown this once) signs from now on, and the previous one also signs for `previous_secret_expires_in` seconds (default a day), so a receiver can switch without losing a delivery. `enable`: re-enables an endpoint disabled by the partner or after failing deliveries. `disable`: stops deliveries (pending ones fail). `delete`: as DELETE.',
      parameters: [webhookIdParam, ...queryParameters(WebhookActionQuery, { action: { example: 'rotate_secret' } })],
      requestBody: body('The fields to change (no action), `{"previous_secret_expires_in"}` (rotate_secret), or nothing.', UpdateWebhookBody, {
        change: ex('subscribe to other types', { event_types: ['user.created', 'user.deleted'] }),
        rotate: ex('rotate_secret: keep the old secret an hour', { previous_secret_expires_in: 3600 }),
      }, false),
      responses: {
        '200': reply('The endpoint (with the new `secret` after rotate_secret; empty after delete).', { anyOf: [{ $ref: '#/components/schemas/Webhook' }, { $ref: '#/components/schemas/WebhookWithSecret' }] }, {
          changed: ex('changed', { ...exampleWebhook, event_types: ['user.created', 'user.deleted'] }),
          rotated: ex('after rotate_secret', { ...exampleWebhookWithSecret, previous_secret_expires_at: 1_700_003_600 }),
        }),
        '400': badUrl,
        '404': noWebhook,
        ...WITH_BODY,
      },
    },
    delete: {
      operationId: 'deleteWebhook',
      tags: ['events'],
      summary: 'Delete a webhook endpoint',
      description: 'Pending deliveries stop and its delivery log goes with it.',
      parameters: [webhookIdParam],
      responses: { '200': empty('Deleted.'), '404': noWebhook, ...AUTHENTICATED },
    },
  },
  '/webhooks/{id}/deliveries/': {
    get: {
      operationId: 'listWebhookDeliveries',
      tags: ['events'],
      summary: "An endpoint's delivery log",
      description: 'Newest first: status, attempts, the last status code and error, and the last attempts.',
      parameters: [webhookIdParam, ...queryParameters(ListDeliveriesQuery, { status: { example: 'failed' }, limit: { example: DELIVERY_PAGE_MAX }, offset: { example: 0 } })],
      responses: { '200': reply('Deliveries of the endpoint.', listOf(WebhookDelivery, 'deliveries'), { log: ex('one delivery, after two failures', [exampleDelivery]) }), '404': noWebhook, ...AUTHENTICATED },
    },
  },
  '/webhooks/{id}/deliveries/{delivery}': {
    get: {
      operationId: 'getWebhookDelivery',
      tags: ['events'],
      summary: 'A delivery',
      parameters: [webhookIdParam, deliveryIdParam],
      responses: { '200': reply('The delivery.', WebhookDelivery, { delivery: ex('succeeded on the third attempt', exampleDelivery) }), '404': noDelivery, ...AUTHENTICATED },
    },
    post: {
      operationId: 'redeliverWebhook',
      tags: ['events'],
      summary: 'Deliver the event again (?action=redeliver)',
      description: 'A new delivery of the same event (same event id, new delivery id), with retries of its own; the original keeps its log.',
      parameters: [webhookIdParam, deliveryIdParam, ...queryParameters(RedeliverQuery, { action: { example: 'redeliver' } })],
      responses: {
        '202': reply('The new delivery, pending.', WebhookDelivery, { redelivery: ex('queued', examplePendingDelivery) }),
        '400': error('`action` missing or not `redeliver`.', { action: ex('no action', err('invalid query parameters: action', { fields: ['action'] })) }),
        '404': noDelivery,
        '409': error('The endpoint is disabled: enable it first.', { disabled: ex('disabled', err('the webhook is disabled: enable it first', { conflicts: [] })) }),
        ...AUTHENTICATED,
      },
    },
  },
};

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
        { name: WEBHOOK_HEADERS.webhookId, in: 'header', required: true, description: 'the endpoint id', schema: { type: 'string' }, example: exampleWebhook.id },
        { name: WEBHOOK_HEADERS.deliveryId, in: 'header', required: true, description: 'the delivery id (the same on every retry)', schema: { type: 'string' }, example: exampleDelivery.id },
        { name: WEBHOOK_HEADERS.eventId, in: 'header', required: true, description: "the event's id: drop duplicates by it", schema: { type: 'string' }, example: exampleDelivery.event_id },
        { name: WEBHOOK_HEADERS.eventType, in: 'header', required: true, description: "the event's type", schema: { type: 'string' }, example: 'user.created' },
        { name: WEBHOOK_HEADERS.timestamp, in: 'header', required: true, description: 'unix seconds, signed with the body', schema: { type: 'string', pattern: '^[0-9]+$' }, example: '1700000000' },
        { name: WEBHOOK_HEADERS.signature, in: 'header', required: true, description: '`v1=<hex HMAC-SHA256 of "<timestamp>.<body>">`, one per live secret, comma-separated', schema: { type: 'string' }, example: 'v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd' },
      ],
      requestBody: { description: 'The event.', required: true, content: { 'application/json': { schema: FEED_EVENT, examples: { event: ex('user.created', exampleEvents[0]) } } } },
      responses: { '200': { description: 'Any 2xx acknowledges the delivery; anything else, or no answer within 10 seconds, is retried.' } },
    },
  },
};

