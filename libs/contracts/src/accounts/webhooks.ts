/**
 * Webhooks: endpoints a partner registers to receive its feed's events by HTTPS POST, signed, with
 * retries and a delivery log. Records and requests of interface A, the bus requests, and the events
 * of the endpoint streams (`webhook-<id>`) and delivery streams (`webhookdelivery-<id>`).
 *
 * The signing secrets never reach an event: an endpoint's stream records a random nonce and the id
 * of the service key it was derived under (the secret is an HMAC of the nonce under that key), and
 * the secret is shown once, in the reply that made it.
 */
import { z } from 'zod';
import type { PartnerScoped } from '../bus.js';
import type { Event } from '../event.js';
import { formInt, text } from '../validation.js';
import { PUBLIC_EVENT_TYPES, type PublicEventType } from './feed.js';

export const MAX_WEBHOOKS_PER_PARTNER = 20;
export const WEBHOOK_URL_MAX_LENGTH = 2048;
export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 500;
export const DELIVERY_PAGE_MAX = 100;
/** After a secret rotation the previous secret still signs for this long unless told otherwise (seconds). */
export const PREVIOUS_SECRET_TTL_DEFAULT = 86_400;
export const PREVIOUS_SECRET_TTL_MAX = 7 * 86_400;
/** Attempts kept in a delivery's history (the count itself is exact). */
export const DELIVERY_HISTORY_KEPT = 10;
/** Every event type (`event_types: ["*"]`). */
export const ALL_EVENT_TYPES = '*';

/** The HTTP headers of a delivery. */
export const WEBHOOK_HEADERS = {
  webhookId: 'Burrow-Webhook-Id',
  deliveryId: 'Burrow-Delivery-Id',
  eventId: 'Burrow-Event-Id',
  eventType: 'Burrow-Event-Type',
  timestamp: 'Burrow-Timestamp',
  signature: 'Burrow-Signature',
} as const;

const EventTypeOrAll = z.enum([ALL_EVENT_TYPES, ...PUBLIC_EVENT_TYPES] as [string, ...string[]]);
const eventTypes = z
  .array(EventTypeOrAll)
  .min(1)
  .max(PUBLIC_EVENT_TYPES.length + 1)
  .transform((types) => (types.includes(ALL_EVENT_TYPES) ? [ALL_EVENT_TYPES] : [...new Set(types)].sort()))
  .describe('the event types to deliver, or `["*"]` for every type');

const webhookFields = {
  url: z
    .string()
    .trim()
    .min(1)
    .max(WEBHOOK_URL_MAX_LENGTH)
    .describe(
      'where deliveries are POSTed: https (http only where the operator allows it), never a private or loopback address',
    ),
  event_types: eventTypes,
  description: text(WEBHOOK_DESCRIPTION_MAX_LENGTH, { allowEmpty: true }),
};

export const CreateWebhookBody = z
  .object({ ...webhookFields, description: webhookFields.description.optional() })
  .meta({ id: 'CreateWebhookBody', description: 'A new webhook endpoint.' });
export type CreateWebhookBody = z.output<typeof CreateWebhookBody>;

export const UpdateWebhookBody = z
  .object(webhookFields)
  .partial()
  .meta({ id: 'UpdateWebhookBody', description: 'The fields to change; each is optional.' });
export type UpdateWebhookBody = z.output<typeof UpdateWebhookBody>;

export const WEBHOOK_ACTIONS = ['delete', 'rotate_secret', 'enable', 'disable'] as const;
export const WebhookActionQuery = z.object({
  action: z
    .enum(WEBHOOK_ACTIONS)
    .optional()
    .describe('`rotate_secret`, `enable`, `disable` or `delete` instead of a change'),
});

export const RotateSecretBody = z
  .object({
    previous_secret_expires_in: formInt({ min: 0, max: PREVIOUS_SECRET_TTL_MAX })
      .optional()
      .describe(
        `seconds the previous secret keeps signing beside the new one (default ${PREVIOUS_SECRET_TTL_DEFAULT}; 0: stop at once)`,
      ),
  })
  .meta({ id: 'RotateSecretBody', description: 'How long the previous secret stays valid; the body may be absent.' });
export type RotateSecretBody = z.output<typeof RotateSecretBody>;

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const ListDeliveriesQuery = z.object({
  status: z.enum(DELIVERY_STATUSES).optional(),
  limit: formInt({ min: 1, max: DELIVERY_PAGE_MAX })
    .optional()
    .describe(`at most this many (default and most ${DELIVERY_PAGE_MAX})`),
  offset: formInt({ min: 0 }).optional(),
});

export const RedeliverQuery = z.object({
  action: z.enum(['redeliver']).describe('`redeliver`: deliver the event again, as a new delivery'),
});

const unixTime = (description = 'unix seconds') => z.int().min(0).describe(description);

export const Webhook = z
  .object({
    id: z.string(),
    url: z.string(),
    event_types: z.array(z.string()),
    description: z.string(),
    enabled: z.boolean(),
    disabled_reason: z
      .string()
      .nullable()
      .describe('why it is disabled: by the partner, or failing deliveries for too long'),
    disabled_at: unixTime().nullable(),
    created_at: unixTime(),
    failing_since: unixTime('unix seconds of the first failed attempt since the last success').nullable(),
    last_success_at: unixTime().nullable(),
    previous_secret_expires_at: unixTime(
      'while set, deliveries carry a signature with the previous secret too',
    ).nullable(),
  })
  .meta({ id: 'Webhook', description: 'A webhook endpoint (its secret is shown only when it is made).' });
export type Webhook = z.infer<typeof Webhook>;

export const WebhookWithSecret = Webhook.extend({
  secret: z.string().describe('the signing secret: shown this once (rotate it to get a new one)'),
}).meta({ id: 'WebhookWithSecret', description: 'A webhook endpoint with its new signing secret.' });
export type WebhookWithSecret = z.infer<typeof WebhookWithSecret>;

export const DeliveryAttempt = z
  .object({
    attempt: z.int().min(1),
    at: unixTime(),
    status_code: z.int().nullable().describe("the receiver's HTTP status (null: no response)"),
    error: z.string().nullable().describe('why it failed (null: it succeeded)'),
  })
  .meta({ id: 'DeliveryAttempt', description: 'One attempt at a delivery.' });
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;

export const WebhookDelivery = z
  .object({
    id: z.string().describe('the delivery id (header Burrow-Delivery-Id)'),
    event_id: z.string(),
    event_type: z.string(),
    position: z.int().min(1).describe("the event's feed position"),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.int().min(0),
    created_at: unixTime(),
    last_attempt_at: unixTime().nullable(),
    next_attempt_at: unixTime().nullable(),
    last_status_code: z.int().nullable(),
    last_error: z.string().nullable(),
    redelivery_of: z.string().nullable().describe('the delivery this one redelivers'),
    history: z.array(DeliveryAttempt).describe(`the last ${DELIVERY_HISTORY_KEPT} attempts, oldest first`),
  })
  .meta({ id: 'WebhookDelivery', description: 'One delivery of one event to one endpoint.' });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

// ---- bus -------------------------------------------------------------------------------------------

export interface WebhookRef extends PartnerScoped {
  webhookId: string;
}
export type CreateWebhookRequest = PartnerScoped & CreateWebhookBody;
export interface UpdateWebhookRequest extends WebhookRef {
  changes: UpdateWebhookBody;
}
export interface RotateWebhookSecretRequest extends WebhookRef {
  previous_secret_expires_in?: number;
}
export interface ListDeliveriesRequest extends WebhookRef {
  status?: DeliveryStatus;
  limit?: number;
  offset?: number;
}
export interface DeliveryRef extends WebhookRef {
  deliveryId: string;
}

// ---- events ------------------------------------------------------------------------------------------

/** Where a signing secret comes from: HMAC(service key `keyId`, endpoint id + nonce). */
export interface SecretRef {
  nonce: string;
  keyId: string;
}

export type WebhookEndpointRegistered = Event<
  'WebhookEndpointRegistered',
  {
    endpointId: string;
    partnerId: string;
    url: string;
    event_types: (PublicEventType | typeof ALL_EVENT_TYPES)[];
    description: string;
    secret: SecretRef;
    at: number;
  }
>;
export type WebhookEndpointChanged = Event<
  'WebhookEndpointChanged',
  { url?: string; event_types?: string[]; description?: string; at: number }
>;
/** The new secret signs from now on; the previous one too until `previousExpiresAt` (unix seconds). */
export type WebhookSecretRotated = Event<
  'WebhookSecretRotated',
  { secret: SecretRef; previousExpiresAt: number; at: number }
>;
export type WebhookEndpointDisabled = Event<
  'WebhookEndpointDisabled',
  { reason: string; by: 'partner' | 'system'; at: number }
>;
export type WebhookEndpointEnabled = Event<'WebhookEndpointEnabled', { at: number }>;
export type WebhookEndpointDeleted = Event<'WebhookEndpointDeleted', { at: number }>;
/** The partner asked for the event at `position` to be delivered again, as delivery `deliveryId`. */
export type WebhookRedeliveryRequested = Event<
  'WebhookRedeliveryRequested',
  { deliveryId: string; of: string; position: number; at: number }
>;
export type WebhookEndpointEvent =
  | WebhookEndpointRegistered
  | WebhookEndpointChanged
  | WebhookSecretRotated
  | WebhookEndpointDisabled
  | WebhookEndpointEnabled
  | WebhookEndpointDeleted
  | WebhookRedeliveryRequested;

interface AttemptData {
  deliveryId: string;
  endpointId: string;
  partnerId: string;
  attempt: number;
  status_code: number | null;
  /** unix seconds */
  at: number;
}
export type WebhookDeliverySucceeded = Event<'WebhookDeliverySucceeded', AttemptData>;
/** `next_attempt_ms` (unix milliseconds) null: the retry window is over, the delivery failed for good. */
export type WebhookDeliveryAttemptFailed = Event<
  'WebhookDeliveryAttemptFailed',
  AttemptData & { error: string; next_attempt_ms: number | null }
>;
export type WebhookDeliveryEvent = WebhookDeliverySucceeded | WebhookDeliveryAttemptFailed;
