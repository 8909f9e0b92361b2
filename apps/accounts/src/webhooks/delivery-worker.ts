/**
 * Delivers pending webhook deliveries: takes due ones from the queue read model (woken at once by
 * the projection when new work appears, else at the next due time), POSTs each, and appends the
 * outcome to the delivery's stream, which the projection turns into the delivery log, the next
 * retry, or the end of it.
 *
 * Which due deliveries start is decided by `DeliverySlots`: capped in all, per partner and per
 * endpoint, round-robin across partners, so one partner's slow receivers hold only its own slots
 * (each attempt for at most the delivery timeout).
 *
 * Several accounts replicas run this over the same deliveries (each projects the same log), so an
 * attempt is claimed with a lease first: a key-value entry `<delivery>.<attempt>` created only if
 * absent, in a bucket every replica shares (NATS JetStream; memory in one process), expiring after
 * the delivery timeout plus a margin so a replica that dies mid-attempt frees it. The outcome is
 * appended with the stream's expected revision, so two attempts can never both be recorded as the
 * same attempt. At-least-once: a process killed between the POST and its append leaves the
 * delivery pending, and it is sent again (same delivery id and event id: receivers drop duplicates).
 */
import {
  DomainError,
  Streams,
  WEBHOOK_HEADERS,
  type WebhookDeliveryAttemptFailed,
  type WebhookDeliveryEvent,
  type WebhookDeliverySucceeded,
} from '@burrow/contracts';
import { WrongExpectedRevisionError } from '@burrow/event-store';
import type { Filter } from '@burrow/documents';
import { appendEvents, handleCommand } from '@burrow/eventsourcing';
import type { KvBucket } from '@burrow/kv';
import type { AccountsContext } from '../context.js';
import { feedEntries, toPublicEvent } from '../feed/feed.projection.js';
import { nextAttemptAt } from './backoff.js';
import { endpointDecider } from './endpoint.js';
import type { DeliveryResult } from './http-delivery.js';
import { signatureHeader, webhookSecret } from './signing.js';
import { DeliverySlots, type DueDelivery } from './delivery-slots.js';
import type { WebhookSettings } from './webhook-settings.js';
import { deliveriesCollection, deliveryQueue, type EndpointDoc, endpointsCollection } from './webhooks.projection.js';

export interface Sender {
  post(url: string, headers: Record<string, string>, body: string): Promise<DeliveryResult>;
}

export interface DeliveryWorkerOptions {
  /** unix milliseconds (injectable: tests move time) */
  nowMs?: () => number;
  /** the longest the worker sleeps without looking at the queue */
  idleMs?: number;
}

/** Lease lifetime: the delivery's timeout plus this margin. */
const LEASE_MARGIN_MS = 5_000;

export const leaseTtlMs = (settings: WebhookSettings) =>
  Math.max(1000, Math.ceil((settings.timeoutMs + LEASE_MARGIN_MS) / 1000) * 1000);

/** The lease bucket (its TTL is fixed at creation, so the name carries it). */
export const leaseBucketName = (settings: WebhookSettings) => `webhook-leases-${leaseTtlMs(settings)}`;

/** Passes over the queue per scan, at most (each after slots filled up since the last query). */
const MAX_PASSES = 4;
/** Due deliveries read per pass beyond those in flight or resting: this many per free slot, at least MIN_WINDOW. */
const WINDOW_PER_SLOT = 4;
const MIN_WINDOW = 32;
/** Endpoints whose partner is remembered (a queue entry from before partnerId was kept needs it), at most. */
const PARTNERS_KNOWN = 10_000;

export class DeliveryWorker {
  private readonly inFlight = new Set<string>();
  private readonly slots: DeliverySlots;
  /** the partner of each endpoint seen: endpoints never change partner */
  private readonly partnerOfEndpoint = new Map<string, string>();
  /** deliveries left alone until then (ms): another replica holds them, or there was nothing to do */
  private readonly resting = new Map<string, number>();
  private scanning = false;
  /** the time the last pass over the queue read due deliveries up to */
  private filledAt = 0;
  private rescan = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: () => void = () => undefined;
  private readonly nowMs: () => number;
  private readonly idleMs: number;
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly ctx: AccountsContext,
    private readonly settings: WebhookSettings,
    private readonly leases: KvBucket<string>,
    private readonly sender: Sender,
    options: DeliveryWorkerOptions = {},
  ) {
    this.nowMs = options.nowMs ?? Date.now;
    this.idleMs = options.idleMs ?? 5_000;
    this.slots = new DeliverySlots({
      total: settings.concurrency,
      perPartner: settings.perPartner,
      perEndpoint: settings.perEndpoint,
    });
  }

  start(): void {
    this.unsubscribe = this.ctx.signals.onWork(() => this.poke());
    this.poke();
  }

  /** Stops taking work and waits for the attempts in flight to be recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe();
    clearTimeout(this.timer);
    await Promise.allSettled([...this.running]);
  }

  /** Look at the queue now (new work, a finished attempt, or time passing in a test). */
  poke(): void {
    if (this.stopped) return;
    void this.scan().catch((error: Error) =>
      this.ctx.log.error({ err: { message: error.message } }, 'webhook delivery scan failed'),
    );
  }

  /** Resolves once nothing is in flight (tests). */
  async idle(): Promise<void> {
    while (this.running.size || this.scanning)
      await Promise.allSettled([...this.running, new Promise((r) => setTimeout(r, 5))]);
  }

  private async scan(): Promise<void> {
    if (this.scanning) {
      this.rescan = true;
      return;
    }
    this.scanning = true;
    try {
      let more = false;
      do {
        this.rescan = false;
        more = await this.fill();
      } while (this.rescan && !this.stopped);
      await this.sleepUntilDue(more);
    } catch (error) {
      // the read models could not be read (an outage): look again later by ourselves, since no new
      // work may come to wake us and deliveries already due would wait for ever
      clearTimeout(this.timer);
      if (!this.stopped) {
        this.timer = setTimeout(() => this.poke(), this.idleMs);
        this.timer.unref();
      }
      throw error;
    } finally {
      this.scanning = false;
    }
  }

  /**
   * Starts what the free slots allow of the due deliveries (delivery-slots.ts). The queue is read
   * in due order without the partners and endpoints whose slots are all taken, so that one
   * partner's pile of deliveries cannot hide another's behind it; a pass that filled more slots
   * up reads again. True when it stopped with slots free and due deliveries possibly unread.
   */
  private async fill(): Promise<boolean> {
    const now = (this.filledAt = this.nowMs());
    for (const [id, until] of this.resting) if (until <= now) this.resting.delete(id);
    let window = Math.max(this.slots.free * WINDOW_PER_SLOT, MIN_WINDOW);
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      if (this.stopped || this.slots.free === 0) return false;
      const full = this.slots.full();
      const filter: Filter = { due: { $lte: now } };
      if (full.endpoints.length) filter.endpointId = { $nin: full.endpoints };
      if (full.partners.length) filter.partnerId = { $nin: full.partners };
      const limit = window + this.inFlight.size + this.resting.size;
      const queued = await deliveryQueue(this.ctx.docs).find(filter, { sort: { due: 1 }, limit });
      const due: DueDelivery[] = [];
      for (const item of queued) {
        if (this.inFlight.has(item._id) || this.resting.has(item._id)) continue;
        due.push({
          id: item._id,
          endpointId: item.endpointId,
          partnerId: item.partnerId ?? (await this.partnerOf(item.endpointId)),
          due: item.due,
        });
      }
      if (this.stopped) return false;
      const started = this.slots.take(due);
      for (const delivery of started) this.launch(delivery);
      // everything due (and not waiting for a full partner or endpoint) was read
      if (queued.length < limit) return false;
      // nothing startable in a full window: look further next time
      if (started.length === 0) window *= 2;
    }
    return this.slots.free > 0;
  }

  private launch(delivery: DueDelivery): void {
    this.inFlight.add(delivery.id);
    const run = this.attempt(delivery.id)
      // nothing done (held elsewhere, or the read model behind): not again at once
      .then((done) => void (done || this.resting.set(delivery.id, this.nowMs() + 1000)))
      .catch((error: Error) =>
        this.ctx.log.error(
          { err: { message: error.message }, delivery: delivery.id },
          'webhook delivery attempt failed to run',
        ),
      )
      .finally(() => {
        this.inFlight.delete(delivery.id);
        this.slots.release(delivery);
        this.running.delete(run);
        this.poke();
      });
    this.running.add(run);
  }

  /** The partner of an endpoint ('' when it is gone: its deliveries are dropped by `attempt`). */
  private async partnerOf(endpointId: string): Promise<string> {
    let partnerId = this.partnerOfEndpoint.get(endpointId);
    if (partnerId === undefined) {
      partnerId = (await endpointsCollection(this.ctx.docs).get(endpointId))?.partnerId ?? '';
      if (this.partnerOfEndpoint.size >= PARTNERS_KNOWN) this.partnerOfEndpoint.clear();
      this.partnerOfEndpoint.set(endpointId, partnerId);
    }
    return partnerId;
  }

  /**
   * Sleeps until the next delivery falls due, a resting one may be tried again, or `idleMs`. A due
   * delivery waiting for a slot needs no timer: the attempt that frees the slot pokes the worker.
   */
  private async sleepUntilDue(more: boolean): Promise<void> {
    clearTimeout(this.timer);
    if (this.stopped) return;
    let wake = this.nowMs() + this.idleMs;
    if (!more) {
      // due after what the last pass read (one that fell due since is found too, and is due now)
      const [next] = await deliveryQueue(this.ctx.docs).find(
        { due: { $gt: this.filledAt } },
        { sort: { due: 1 }, limit: 1 },
      );
      if (next) wake = Math.min(wake, next.due);
      for (const until of this.resting.values()) wake = Math.min(wake, until);
    }
    this.timer = setTimeout(() => this.poke(), more ? 0 : Math.max(wake - this.nowMs(), 10));
    this.timer.unref();
  }

  /** One attempt; false when there was nothing to do. */
  private async attempt(deliveryId: string): Promise<boolean> {
    const { docs, store } = this.ctx;
    const delivery = await deliveriesCollection(docs).get(deliveryId);
    const endpoint = delivery && (await endpointsCollection(docs).get(delivery.endpointId));
    if (!delivery || delivery.status !== 'pending' || !endpoint?.enabled) return false;
    const attempt = delivery.attempts + 1;
    const leaseKey = `${deliveryId}.${attempt}`;
    if ((await this.leases.create(leaseKey, 'held')) === null) {
      this.resting.set(deliveryId, this.nowMs() + leaseTtlMs(this.settings) / 2);
      return true;
    }
    try {
      // the stream is the truth: this replica's read model may not have seen another's outcome yet
      const recorded = await store.readStream(Streams.webhookDelivery(deliveryId));
      if (recorded.length !== delivery.attempts || recorded.some((e) => e.type === 'WebhookDeliverySucceeded'))
        return false;
      const entry = await feedEntries(docs).get(String(delivery.position));
      if (!entry) return false;
      const body = JSON.stringify(toPublicEvent(entry));
      const nowMs = this.nowMs();
      const timestamp = Math.floor(nowMs / 1000);
      const secrets = this.liveSecrets(endpoint, timestamp);
      const result: DeliveryResult = secrets.length
        ? await this.sender.post(
            endpoint.url,
            {
              [WEBHOOK_HEADERS.webhookId]: endpoint._id,
              [WEBHOOK_HEADERS.deliveryId]: deliveryId,
              [WEBHOOK_HEADERS.eventId]: entry.id,
              [WEBHOOK_HEADERS.eventType]: entry.type,
              [WEBHOOK_HEADERS.timestamp]: String(timestamp),
              [WEBHOOK_HEADERS.signature]: signatureHeader(secrets, timestamp, body),
            },
            body,
          )
        : {
            ok: false,
            status_code: null,
            error: 'the key this secret was made with is no longer configured (BURROW_SECRET); rotate the secret',
          };
      const at = Math.floor(this.nowMs() / 1000);
      const base = {
        deliveryId,
        endpointId: endpoint._id,
        partnerId: endpoint.partnerId,
        attempt,
        status_code: result.status_code,
        at,
      };
      const outcome: WebhookDeliveryEvent = result.ok
        ? ({ type: 'WebhookDeliverySucceeded', data: base } satisfies WebhookDeliverySucceeded)
        : ({
            type: 'WebhookDeliveryAttemptFailed',
            data: {
              ...base,
              error: result.error ?? 'failed',
              next_attempt_ms: nextAttemptAt(this.settings.retry, delivery.created_ms, attempt, this.nowMs()),
            },
          } satisfies WebhookDeliveryAttemptFailed);
      let position: number;
      try {
        ({ position } = await appendEvents(
          store,
          Streams.webhookDelivery(deliveryId),
          [outcome],
          recorded.length ? recorded.length - 1 : 'no_stream',
        ));
      } catch (error) {
        // another replica recorded this attempt (its lease expired under us): theirs stands
        if (error instanceof WrongExpectedRevisionError) return true;
        throw error;
      }
      // the queue shows the outcome before this delivery is looked at again
      await this.ctx.runner.waitFor(position);
      if (!result.ok) await this.disableIfFailingTooLong(endpoint, at);
      return true;
    } finally {
      await this.leases.delete(leaseKey).catch(() => undefined);
    }
  }

  /** The current secret, and the previous one until it expires. */
  private liveSecrets(endpoint: EndpointDoc, timestamp: number): string[] {
    const refs = [endpoint.secret];
    if (endpoint.previous_secret && (endpoint.previous_secret_expires_at ?? 0) > timestamp)
      refs.push(endpoint.previous_secret);
    return refs.map((ref) => webhookSecret(this.ctx.secret, endpoint._id, ref)).filter((s): s is string => s !== null);
  }

  private async disableIfFailingTooLong(endpoint: EndpointDoc, at: number): Promise<void> {
    const since = endpoint.failing_since ?? at;
    if ((at - since) * 1000 < this.settings.disableAfterMs) return;
    const reason = `deliveries failing since ${new Date(since * 1000).toISOString()}`;
    try {
      const { position } = await handleCommand(this.ctx.store, Streams.webhook(endpoint._id), endpointDecider, {
        type: 'DisableEndpoint',
        reason,
        by: 'system',
        at,
      });
      await this.ctx.runner.waitFor(position);
      this.ctx.log.warn({ webhook: endpoint._id, partnerId: endpoint.partnerId, reason }, 'webhook endpoint disabled');
    } catch (error) {
      // deleted meanwhile
      if (!(error instanceof DomainError && error.status === 404)) throw error;
    }
  }
}
