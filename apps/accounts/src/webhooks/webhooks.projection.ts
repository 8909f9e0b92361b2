/**
 * Read models of webhooks, all derived from the log, so pending deliveries are as durable as the
 * events themselves (a restart, or a rebuild of in-memory read models, finds every delivery that
 * has no outcome yet and tries it):
 * - `webhook_endpoints`: each live endpoint (its secret references, state, failure streak);
 * - `webhook_deliveries`: each delivery with its status and last attempts (the delivery log). A
 *   delivery exists for each feed entry of the endpoint's types made while the endpoint was enabled
 *   (the feed projection runs first on each event, so this reads the entries it just made), and
 *   for each redelivery request;
 * - `webhook_queue`: the pending deliveries only, by when they are due (what the worker reads).
 * Outcomes come from the delivery streams the worker appends to.
 */
import {
  ALL_EVENT_TYPES,
  DELIVERY_HISTORY_KEPT,
  type DeliveryAttempt,
  type DeliveryStatus,
  type SecretRef,
  StreamPrefixes,
  type WebhookDeliveryEvent,
  type WebhookEndpointEvent,
} from '@burrow/contracts';
import { afterCommit, type DocumentStore } from '@burrow/documents';
import { type Projection, projectionOver, eventOf } from '@burrow/eventsourcing';
import type { RecordedEvent } from '@burrow/event-store';
import type { FeedSignals } from '../feed/feed-signals.js';
import { FEED_PREFIXES, FEED_SLOTS, type FeedEntryDoc, feedEntries } from '../feed/feed.projection.js';

export interface EndpointDoc {
  _id: string;
  partnerId: string;
  url: string;
  event_types: string[];
  description: string;
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: number | null;
  created_at: number;
  secret: SecretRef;
  previous_secret: SecretRef | null;
  /** unix seconds */
  previous_secret_expires_at: number | null;
  failing_since: number | null;
  last_success_at: number | null;
  [key: string]: unknown;
}

export interface DeliveryDoc {
  _id: string;
  endpointId: string;
  partnerId: string;
  position: number;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  /** unix seconds; `created_ms` is the same in milliseconds (the retry window counts from it) */
  created_at: number;
  created_ms: number;
  last_attempt_at: number | null;
  /** unix milliseconds */
  next_attempt_ms: number | null;
  last_status_code: number | null;
  last_error: string | null;
  redelivery_of: string | null;
  history: DeliveryAttempt[];
  /** the last event position applied to this document */
  pos: number;
  [key: string]: unknown;
}

export interface QueueDoc {
  _id: string;
  endpointId: string;
  /** the endpoint's partner (absent in entries made before it was kept: the worker looks it up) */
  partnerId?: string;
  /** unix milliseconds */
  due: number;
  [key: string]: unknown;
}

export const endpointsCollection = (docs: DocumentStore) => docs.collection<EndpointDoc>('webhook_endpoints');
export const deliveriesCollection = (docs: DocumentStore) => docs.collection<DeliveryDoc>('webhook_deliveries');
export const deliveryQueue = (docs: DocumentStore) => docs.collection<QueueDoc>('webhook_queue');

/** The id of the first delivery of the entry at `position` to an endpoint (a redelivery gets a new id). */
export const deliveryIdOf = (endpointId: string, position: number) => `${endpointId}.${position}`;

const wants = (endpoint: EndpointDoc, type: string) =>
  endpoint.event_types.includes(ALL_EVENT_TYPES) || endpoint.event_types.includes(type);

/** The webhooks' projection (its code closes over the batch's store: `projectionOver`). */
export const webhooksProjection = (signals?: FeedSignals): Projection =>
  // what the feed reads (its entries are the deliveries' events), and the webhooks' own streams
  projectionOver('webhooks', [...FEED_PREFIXES, StreamPrefixes.webhook, StreamPrefixes.webhookDelivery], (docs) => {
    const endpoints = endpointsCollection(docs);
    const deliveries = deliveriesCollection(docs);
    const queue = deliveryQueue(docs);

    async function createDelivery(
      id: string,
      endpoint: EndpointDoc,
      entry: FeedEntryDoc,
      event: RecordedEvent,
      redeliveryOf: string | null,
    ): Promise<void> {
      if (await deliveries.get(id)) return;
      await deliveries.upsert({
        _id: id,
        endpointId: endpoint._id,
        partnerId: endpoint.partnerId,
        position: entry.position,
        event_id: entry.id,
        event_type: entry.type,
        status: 'pending',
        attempts: 0,
        created_at: Math.floor(event.recordedAt / 1000),
        created_ms: event.recordedAt,
        last_attempt_at: null,
        next_attempt_ms: event.recordedAt,
        last_status_code: null,
        last_error: null,
        redelivery_of: redeliveryOf,
        history: [],
        pos: event.position,
      });
      await queue.upsert({ _id: id, endpointId: endpoint._id, partnerId: endpoint.partnerId, due: event.recordedAt });
      afterCommit(docs, () => signals?.workAdded());
    }

    /**
     * A partner's enabled endpoints, read once per batch: the feed's entries are looked up on every
     * event. Forgotten before any endpoint event or outcome is applied (they change endpoints), so
     * what it holds is what the batch holds, also after a failed event is rolled back.
     */
    const enabledEndpoints = new Map<string, EndpointDoc[]>();
    async function enabledEndpointsOf(partnerId: string): Promise<EndpointDoc[]> {
      let found = enabledEndpoints.get(partnerId);
      if (!found) enabledEndpoints.set(partnerId, (found = await endpoints.find({ partnerId, enabled: true })));
      return found;
    }

    /**
     * The feed entries this event made, to every enabled endpoint of their partner that wants them.
     * The feed writes an event's entries together, at consecutive slots from its first
     * (`position * FEED_SLOTS + 0, 1, ...`): they are read by id, up to the first slot without one.
     */
    async function fanOut(event: RecordedEvent): Promise<void> {
      for (let k = 0; k < FEED_SLOTS; k++) {
        const entry = await feedEntries(docs).get(String(event.position * FEED_SLOTS + k));
        if (!entry) return;
        for (const endpoint of await enabledEndpointsOf(entry.partnerId)) {
          if (wants(endpoint, entry.type))
            await createDelivery(deliveryIdOf(endpoint._id, entry.position), endpoint, entry, event, null);
        }
      }
    }

    /** Deliveries still pending when the endpoint is disabled fail (the partner redelivers them, or reads the feed). */
    async function stopPending(endpointId: string, reason: string): Promise<void> {
      for (const item of await queue.find({ endpointId })) {
        const delivery = await deliveries.get(item._id);
        if (delivery)
          await deliveries.upsert({ ...delivery, status: 'failed', next_attempt_ms: null, last_error: reason });
        await queue.delete(item._id);
      }
    }

    async function applyEndpoint(event: RecordedEvent): Promise<void> {
      const id = event.stream.slice(StreamPrefixes.webhook.length);
      const e = eventOf<WebhookEndpointEvent>(event);
      if (e.type === 'WebhookEndpointRegistered') {
        const d = e.data;
        await endpoints.upsert({
          _id: id,
          partnerId: d.partnerId,
          url: d.url,
          event_types: d.event_types,
          description: d.description,
          enabled: true,
          disabled_reason: null,
          disabled_at: null,
          created_at: d.at,
          secret: d.secret,
          previous_secret: null,
          previous_secret_expires_at: null,
          failing_since: null,
          last_success_at: null,
        });
        return;
      }
      const endpoint = await endpoints.get(id);
      if (!endpoint) return;
      switch (e.type) {
        case 'WebhookEndpointChanged': {
          const { at: _at, ...changes } = e.data;
          await endpoints.upsert({ ...endpoint, ...changes });
          return;
        }
        case 'WebhookSecretRotated':
          await endpoints.upsert({
            ...endpoint,
            secret: e.data.secret,
            previous_secret: endpoint.secret,
            previous_secret_expires_at: e.data.previousExpiresAt,
          });
          return;
        case 'WebhookEndpointDisabled':
          await endpoints.upsert({
            ...endpoint,
            enabled: false,
            disabled_reason: e.data.reason,
            disabled_at: e.data.at,
          });
          await stopPending(id, `endpoint disabled: ${e.data.reason}`);
          return;
        case 'WebhookEndpointEnabled':
          // a fresh start: the failure streak that disabled it is over
          await endpoints.upsert({
            ...endpoint,
            enabled: true,
            disabled_reason: null,
            disabled_at: null,
            failing_since: null,
          });
          return;
        case 'WebhookEndpointDeleted':
          await endpoints.delete(id);
          await queue.deleteMany({ endpointId: id });
          await deliveries.deleteMany({ endpointId: id });
          return;
        case 'WebhookRedeliveryRequested': {
          const entry = await feedEntries(docs).get(String(e.data.position));
          if (entry && entry.partnerId === endpoint.partnerId)
            await createDelivery(e.data.deliveryId, endpoint, entry, event, e.data.of);
          return;
        }
      }
    }

    async function applyOutcome(event: RecordedEvent): Promise<void> {
      const e = eventOf<WebhookDeliveryEvent>(event);
      const delivery = await deliveries.get(e.data.deliveryId);
      if (!delivery || delivery.pos >= event.position) return;
      const endpoint = await endpoints.get(delivery.endpointId);
      const failed = e.type === 'WebhookDeliveryAttemptFailed';
      const attempt: DeliveryAttempt = {
        attempt: e.data.attempt,
        at: e.data.at,
        status_code: e.data.status_code,
        error: failed ? e.data.error : null,
      };
      const next = failed ? e.data.next_attempt_ms : null;
      // an attempt that ended after its endpoint was disabled does not make the delivery pending again
      const status: DeliveryStatus = !failed ? 'succeeded' : next !== null && endpoint?.enabled ? 'pending' : 'failed';
      await deliveries.upsert({
        ...delivery,
        status,
        attempts: Math.max(delivery.attempts, e.data.attempt),
        last_attempt_at: e.data.at,
        next_attempt_ms: status === 'pending' ? next : null,
        last_status_code: e.data.status_code,
        last_error: attempt.error,
        history: [...delivery.history, attempt].slice(-DELIVERY_HISTORY_KEPT),
        pos: event.position,
      });
      if (status === 'pending') {
        await queue.upsert({
          _id: delivery._id,
          endpointId: delivery.endpointId,
          partnerId: delivery.partnerId,
          due: next!,
        });
        afterCommit(docs, () => signals?.workAdded());
      } else {
        await queue.delete(delivery._id);
      }
      if (endpoint) {
        const streak = failed
          ? { failing_since: endpoint.failing_since ?? e.data.at }
          : { failing_since: null, last_success_at: e.data.at };
        await endpoints.upsert({ ...endpoint, ...streak });
      }
    }

    return {
      async init() {
        await endpointsCollection(docs).ensureIndex({ partnerId: 1 });
        await deliveriesCollection(docs).ensureIndex({ endpointId: 1, created_ms: -1 });
        await deliveryQueue(docs).ensureIndex({ due: 1 });
        await deliveryQueue(docs).ensureIndex({ endpointId: 1 });
      },
      async apply(event) {
        const endpointEvent =
          event.stream.startsWith(StreamPrefixes.webhookDelivery) || event.stream.startsWith(StreamPrefixes.webhook);
        if (endpointEvent) enabledEndpoints.clear();
        if (event.stream.startsWith(StreamPrefixes.webhookDelivery)) await applyOutcome(event);
        else if (event.stream.startsWith(StreamPrefixes.webhook)) await applyEndpoint(event);
        else await fanOut(event);
      },
    };
  });
