/**
 * The routes of the partner's event feed (`/events/`, JSON pages and Server-Sent Events) and of the
 * webhook endpoints: path, method, the schemas the handlers parse with, and their OpenAPI prose and
 * examples. The delivery itself (the document's `webhooks` section) is in delivery.openapi.ts.
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
  UpdateWebhookBody,
  Webhook,
  WebhookActionQuery,
  WebhookDelivery,
  WebhookWithSecret,
} from '@burrow/contracts';
import { route } from '../http/route.js';
import { empty, err, error, ex, listOf, pathParameter, reply } from '../openapi/builders.js';
import { AUTHENTICATED, notAnObject, WITH_BODY } from '../openapi/common.js';
import {
  exampleDelivery,
  exampleDisabledWebhook,
  exampleEvents,
  exampleFeedPage,
  examplePendingDelivery,
  exampleWebhook,
  exampleWebhookWithSecret,
} from './examples.js';
import { SIGNATURE_PROSE } from './delivery.openapi.js';
import { sseFrame } from './sse.js';

const sseExample = exampleEvents.slice(0, 2).map(sseFrame).join('');

const webhookIdParam = pathParameter(
  'id',
  'the webhook endpoint id',
  { type: 'string', format: 'uuid' },
  exampleWebhook.id,
);
const deliveryIdParam = pathParameter('delivery', 'the delivery id', { type: 'string' }, exampleDelivery.id);
const noWebhook = error('No such webhook endpoint for this partner.', {
  noWebhook: ex('unknown endpoint', err(`no webhook ${exampleWebhook.id}`)),
});
const noDelivery = error('No such webhook endpoint or delivery for this partner.', {
  noDelivery: ex('unknown delivery', err(`no delivery ${exampleDelivery.id}`)),
});
const badUrl = error(
  'Invalid fields (named in `fields`): a url that is not https (unless the operator allows http), holds credentials, does not resolve, or points at a private, loopback or link-local address; an unknown event type.',
  {
    private: ex(
      'a loopback address',
      err('url refused: 127.0.0.1 resolves to 127.0.0.1 is a loopback address (not allowed for webhooks)', {
        fields: ['url'],
      }),
    ),
    scheme: ex('http', err('url must use https', { fields: ['url'] })),
    types: ex('unknown event type', err('invalid or missing parameters: event_types', { fields: ['event_types'] })),
    notObject: notAnObject,
  },
);
const webhookBody = {
  url: exampleWebhook.url,
  event_types: exampleWebhook.event_types,
  description: exampleWebhook.description,
};

export const FEED_ROUTES = {
  feed: route({
    method: 'get',
    path: 'events/',
    query: FeedQuery,
    operation: {
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
      queryNotes: { after: { example: 1520 }, limit: { example: FEED_PAGE_DEFAULT } },
      parameters: [
        {
          name: 'Last-Event-ID',
          in: 'header',
          description: 'SSE only: resume after this position (wins over `after`)',
          required: false,
          schema: { type: 'string', pattern: '^[0-9]+$' },
          example: '1730',
        },
      ],
      responses: {
        '200': {
          description:
            'A page of the feed (JSON), or with `Accept: text/event-stream` an endless stream of its events.',
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/FeedPage' },
              examples: {
                page: ex('a page of three events, more to come', exampleFeedPage),
                empty: ex('nothing after the position', { events: [], next_after: 3200, has_more: false }),
              },
            },
            'text/event-stream': {
              schema: { type: 'string' },
              examples: { stream: ex('the first two frames of a stream', sseExample) },
            },
          },
        },
        '400': error('`after` or `limit` out of range (named in `fields`), or a Last-Event-ID that is no position.', {
          limit: ex('limit too large', err('invalid query parameters: limit', { fields: ['limit'] })),
          lastEventId: ex(
            'bad Last-Event-ID',
            err('Last-Event-ID must be a feed position', { fields: ['Last-Event-ID'] }),
          ),
        }),
        ...AUTHENTICATED,
      },
    },
  }),
};

export const WEBHOOK_ROUTES = {
  list: route({
    method: 'get',
    path: 'webhooks/',
    operation: {
      operationId: 'listWebhooks',
      tags: ['events'],
      summary: 'List webhook endpoints',
      responses: {
        '200': reply(
          `The partner's endpoints (at most ${MAX_WEBHOOKS_PER_PARTNER}), oldest first; never their secrets.`,
          listOf(Webhook, 'endpoints'),
          { list: ex('one endpoint', [exampleWebhook]) },
        ),
        ...AUTHENTICATED,
      },
    },
  }),
  create: route({
    method: 'post',
    path: 'webhooks/',
    body: CreateWebhookBody,
    operation: {
      operationId: 'createWebhook',
      tags: ['events'],
      summary: 'Register a webhook endpoint',
      description: `${SIGNATURE_PROSE}\n\nThe reply holds the signing \`secret\`, shown this once (rotate it to get a new one). Deliveries start with the next event of the chosen types.`,
      requestBody: {
        description: 'The endpoint.',
        examples: {
          endpoint: ex('a CRM endpoint', webhookBody),
          everything: ex('every event type', { url: 'https://hooks.example.com/burrow', event_types: ['*'] }),
        },
      },
      responses: {
        '201': reply(
          'Registered; `Location` ends in `/<id>`.',
          WebhookWithSecret,
          { created: ex('the endpoint and its secret', exampleWebhookWithSecret) },
          {
            Location: {
              description: 'path of the new endpoint',
              schema: { type: 'string' },
              example: `/webhooks/${exampleWebhook.id}`,
            },
          },
        ),
        '400': badUrl,
        '409': error(`The partner has ${MAX_WEBHOOKS_PER_PARTNER} endpoints already.`, {
          tooMany: ex('too many', err(`a partner has at most ${MAX_WEBHOOKS_PER_PARTNER} webhooks`, { conflicts: [] })),
        }),
        ...WITH_BODY,
      },
    },
  }),
  get: route({
    method: 'get',
    path: 'webhooks/:id',
    operation: {
      operationId: 'getWebhook',
      tags: ['events'],
      summary: 'A webhook endpoint',
      parameters: [webhookIdParam],
      responses: {
        '200': reply('The endpoint (without its secret).', Webhook, {
          endpoint: ex('enabled', exampleWebhook),
          disabled: ex('disabled after days of failures', exampleDisabledWebhook),
        }),
        '404': noWebhook,
        ...AUTHENTICATED,
      },
    },
  }),
  update: route({
    method: 'post',
    path: 'webhooks/:id',
    query: WebhookActionQuery,
    body: UpdateWebhookBody,
    operation: {
      operationId: 'updateWebhook',
      tags: ['events'],
      summary: 'Change a webhook endpoint, rotate its secret, enable, disable or delete it',
      description:
        'Without `action`: changes the fields given. `rotate_secret`: a new secret (in the reply, shown this once) signs from now on, and the previous one also signs for `previous_secret_expires_in` seconds (default a day), so a receiver can switch without losing a delivery. `enable`: re-enables an endpoint disabled by the partner or after failing deliveries. `disable`: stops deliveries (pending ones fail). `delete`: as DELETE.',
      parameters: [webhookIdParam],
      queryNotes: { action: { example: 'rotate_secret' } },
      requestBody: {
        description: 'The fields to change (no action), `{"previous_secret_expires_in"}` (rotate_secret), or nothing.',
        examples: {
          change: ex('subscribe to other types', { event_types: ['user.created', 'user.deleted'] }),
          rotate: ex('rotate_secret: keep the old secret an hour', { previous_secret_expires_in: 3600 }),
        },
        required: false,
      },
      responses: {
        '200': reply(
          'The endpoint (with the new `secret` after rotate_secret; empty after delete).',
          { anyOf: [{ $ref: '#/components/schemas/Webhook' }, { $ref: '#/components/schemas/WebhookWithSecret' }] },
          {
            changed: ex('changed', { ...exampleWebhook, event_types: ['user.created', 'user.deleted'] }),
            rotated: ex('after rotate_secret', {
              ...exampleWebhookWithSecret,
              previous_secret_expires_at: 1_700_003_600,
            }),
          },
        ),
        '400': badUrl,
        '404': noWebhook,
        ...WITH_BODY,
      },
    },
  }),
  remove: route({
    method: 'delete',
    path: 'webhooks/:id',
    operation: {
      operationId: 'deleteWebhook',
      tags: ['events'],
      summary: 'Delete a webhook endpoint',
      description: 'Pending deliveries stop and its delivery log goes with it.',
      parameters: [webhookIdParam],
      responses: { '200': empty('Deleted.'), '404': noWebhook, ...AUTHENTICATED },
    },
  }),
  deliveries: route({
    method: 'get',
    path: 'webhooks/:id/deliveries/',
    query: ListDeliveriesQuery,
    operation: {
      operationId: 'listWebhookDeliveries',
      tags: ['events'],
      summary: "An endpoint's delivery log",
      description: 'Newest first: status, attempts, the last status code and error, and the last attempts.',
      parameters: [webhookIdParam],
      queryNotes: { status: { example: 'failed' }, limit: { example: DELIVERY_PAGE_MAX }, offset: { example: 0 } },
      responses: {
        '200': reply('Deliveries of the endpoint.', listOf(WebhookDelivery, 'deliveries'), {
          log: ex('one delivery, after two failures', [exampleDelivery]),
        }),
        '404': noWebhook,
        ...AUTHENTICATED,
      },
    },
  }),
  delivery: route({
    method: 'get',
    path: 'webhooks/:id/deliveries/:delivery',
    operation: {
      operationId: 'getWebhookDelivery',
      tags: ['events'],
      summary: 'A delivery',
      parameters: [webhookIdParam, deliveryIdParam],
      responses: {
        '200': reply('The delivery.', WebhookDelivery, {
          delivery: ex('succeeded on the third attempt', exampleDelivery),
        }),
        '404': noDelivery,
        ...AUTHENTICATED,
      },
    },
  }),
  redeliver: route({
    method: 'post',
    path: 'webhooks/:id/deliveries/:delivery',
    query: RedeliverQuery,
    operation: {
      operationId: 'redeliverWebhook',
      tags: ['events'],
      summary: 'Deliver the event again (?action=redeliver)',
      description:
        'A new delivery of the same event (same event id, new delivery id), with retries of its own; the original keeps its log.',
      parameters: [webhookIdParam, deliveryIdParam],
      queryNotes: { action: { example: 'redeliver' } },
      responses: {
        '202': reply('The new delivery, pending.', WebhookDelivery, {
          redelivery: ex('queued', examplePendingDelivery),
        }),
        '400': error('`action` missing or not `redeliver`.', {
          action: ex('no action', err('invalid query parameters: action', { fields: ['action'] })),
        }),
        '404': noDelivery,
        '409': error('The endpoint is disabled: enable it first.', {
          disabled: ex('disabled', err('the webhook is disabled: enable it first', { conflicts: [] })),
        }),
        ...AUTHENTICATED,
      },
    },
  }),
};
