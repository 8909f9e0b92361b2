/**
 * Bus handlers for a partner's webhooks: register, list, read, change, rotate the secret, disable
 * and re-enable, delete; the delivery log and redelivery. Every lookup is scoped by the partner (an
 * endpoint of another partner is a 404), every write waits for the read models (read-your-writes).
 */
import {
  conflict,
  type CreateWebhookRequest,
  type DeliveryRef,
  DELIVERY_PAGE_MAX,
  type ListDeliveriesRequest,
  MAX_WEBHOOKS_PER_PARTNER,
  notFound,
  type PartnerScoped,
  PREVIOUS_SECRET_TTL_DEFAULT,
  type RotateWebhookSecretRequest,
  Streams,
  Subjects,
  type UpdateWebhookRequest,
  type Webhook,
  type WebhookDelivery,
  type WebhookRef,
  type WebhookWithSecret,
} from '@burrow/contracts';
import { handleCommand } from '@burrow/eventsourcing';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { randomUUID } from 'node:crypto';
import { ACCOUNTS_CONTEXT, type AccountsContext } from '../context.js';
import { systemResolver } from './address-policy.js';
import { type EndpointCommand, endpointDecider } from './endpoint.js';
import { newSecretRef, webhookSecret } from './signing.js';
import { checkWebhookUrl } from './webhook-url.js';
import {
  type DeliveryDoc,
  deliveriesCollection,
  type EndpointDoc,
  endpointsCollection,
} from './webhooks.projection.js';

export const toWebhook = (e: EndpointDoc): Webhook => ({
  id: e._id,
  url: e.url,
  event_types: e.event_types,
  description: e.description,
  enabled: e.enabled,
  disabled_reason: e.disabled_reason,
  disabled_at: e.disabled_at,
  created_at: e.created_at,
  failing_since: e.failing_since,
  last_success_at: e.last_success_at,
  previous_secret_expires_at: e.previous_secret_expires_at,
});

export const toDelivery = (d: DeliveryDoc): WebhookDelivery => ({
  id: d._id,
  event_id: d.event_id,
  event_type: d.event_type,
  position: d.position,
  status: d.status,
  attempts: d.attempts,
  created_at: d.created_at,
  last_attempt_at: d.last_attempt_at,
  next_attempt_at: d.next_attempt_ms === null ? null : Math.ceil(d.next_attempt_ms / 1000),
  last_status_code: d.last_status_code,
  last_error: d.last_error,
  redelivery_of: d.redelivery_of,
  history: d.history,
});

@Controller()
export class WebhooksHandlers {
  constructor(@Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext) {}

  private async requireEndpoint({ partnerId, webhookId }: WebhookRef): Promise<EndpointDoc> {
    const endpoint = await endpointsCollection(this.ctx.docs).get(webhookId);
    if (!endpoint || endpoint.partnerId !== partnerId) throw notFound(`no webhook ${webhookId}`);
    return endpoint;
  }

  private checkUrl(url: string): Promise<string> {
    const { allowHttp, allowPrivate, resolver } = this.ctx.webhooks;
    return checkWebhookUrl(url, { allowHttp, allowPrivate }, resolver ?? systemResolver);
  }

  /** Runs commands on the endpoint's stream and waits until the read models show them. */
  private async command(endpointId: string, commands: EndpointCommand | EndpointCommand[]): Promise<EndpointDoc> {
    const { position } = await handleCommand(this.ctx.store, Streams.webhook(endpointId), endpointDecider, commands);
    await this.ctx.runner.waitFor(position);
    const endpoint = await endpointsCollection(this.ctx.docs).get(endpointId);
    if (!endpoint) throw notFound(`no webhook ${endpointId}`);
    return endpoint;
  }

  private withSecret(endpoint: EndpointDoc): WebhookWithSecret {
    const secret = webhookSecret(this.ctx.secret, endpoint._id, endpoint.secret);
    if (!secret) throw new Error('a secret just made has no key');
    return { ...toWebhook(endpoint), secret };
  }

  @MessagePattern(Subjects.accounts.listWebhooks)
  async list(@Payload() { partnerId }: PartnerScoped): Promise<Webhook[]> {
    const endpoints = await endpointsCollection(this.ctx.docs).find(
      { partnerId },
      { sort: { created_at: 1, _id: 1 }, limit: MAX_WEBHOOKS_PER_PARTNER },
    );
    return endpoints.map(toWebhook);
  }

  @MessagePattern(Subjects.accounts.createWebhook)
  async create(@Payload() req: CreateWebhookRequest): Promise<WebhookWithSecret> {
    if ((await endpointsCollection(this.ctx.docs).count({ partnerId: req.partnerId })) >= MAX_WEBHOOKS_PER_PARTNER) {
      throw conflict(`a partner has at most ${MAX_WEBHOOKS_PER_PARTNER} webhooks`, []);
    }
    const url = await this.checkUrl(req.url);
    const endpointId = randomUUID();
    const data = {
      endpointId,
      partnerId: req.partnerId,
      url,
      event_types: req.event_types as never,
      description: req.description ?? '',
      secret: newSecretRef(this.ctx.secret),
      at: this.ctx.clock.now(),
    };
    return this.withSecret(await this.command(endpointId, { type: 'RegisterEndpoint', data }));
  }

  @MessagePattern(Subjects.accounts.getWebhook)
  async get(@Payload() ref: WebhookRef): Promise<Webhook> {
    return toWebhook(await this.requireEndpoint(ref));
  }

  @MessagePattern(Subjects.accounts.updateWebhook)
  async update(@Payload() { changes, ...ref }: UpdateWebhookRequest): Promise<Webhook> {
    await this.requireEndpoint(ref);
    const url = changes.url === undefined ? undefined : await this.checkUrl(changes.url);
    return toWebhook(
      await this.command(ref.webhookId, {
        type: 'ChangeEndpoint',
        url,
        event_types: changes.event_types,
        description: changes.description,
        at: this.ctx.clock.now(),
      }),
    );
  }

  @MessagePattern(Subjects.accounts.deleteWebhook)
  async delete(@Payload() ref: WebhookRef): Promise<null> {
    await this.requireEndpoint(ref);
    const { position } = await handleCommand(this.ctx.store, Streams.webhook(ref.webhookId), endpointDecider, {
      type: 'DeleteEndpoint',
      at: this.ctx.clock.now(),
    });
    await this.ctx.runner.waitFor(position);
    return null;
  }

  /** A new secret signs from now on; the previous one too, for `previous_secret_expires_in` seconds. */
  @MessagePattern(Subjects.accounts.rotateWebhookSecret)
  async rotateSecret(
    @Payload() { previous_secret_expires_in, ...ref }: RotateWebhookSecretRequest,
  ): Promise<WebhookWithSecret> {
    await this.requireEndpoint(ref);
    const at = this.ctx.clock.now();
    const previousExpiresAt = at + (previous_secret_expires_in ?? PREVIOUS_SECRET_TTL_DEFAULT);
    return this.withSecret(
      await this.command(ref.webhookId, {
        type: 'RotateSecret',
        secret: newSecretRef(this.ctx.secret),
        previousExpiresAt,
        at,
      }),
    );
  }

  @MessagePattern(Subjects.accounts.disableWebhook)
  async disable(@Payload() ref: WebhookRef): Promise<Webhook> {
    await this.requireEndpoint(ref);
    return toWebhook(
      await this.command(ref.webhookId, {
        type: 'DisableEndpoint',
        reason: 'disabled by the partner',
        by: 'partner',
        at: this.ctx.clock.now(),
      }),
    );
  }

  /** Re-enables an endpoint (after the partner fixed what made it fail); deliveries resume with new events. */
  @MessagePattern(Subjects.accounts.enableWebhook)
  async enable(@Payload() ref: WebhookRef): Promise<Webhook> {
    await this.requireEndpoint(ref);
    return toWebhook(await this.command(ref.webhookId, { type: 'EnableEndpoint', at: this.ctx.clock.now() }));
  }

  @MessagePattern(Subjects.accounts.listWebhookDeliveries)
  async deliveries(@Payload() { status, limit, offset, ...ref }: ListDeliveriesRequest): Promise<WebhookDelivery[]> {
    await this.requireEndpoint(ref);
    const filter: Record<string, unknown> = { endpointId: ref.webhookId };
    if (status) filter.status = status;
    const page = await deliveriesCollection(this.ctx.docs).find(filter, {
      sort: { created_ms: -1, _id: -1 },
      skip: offset ?? 0,
      limit: Math.min(limit ?? DELIVERY_PAGE_MAX, DELIVERY_PAGE_MAX),
    });
    return page.map(toDelivery);
  }

  private async requireDelivery(ref: DeliveryRef): Promise<DeliveryDoc> {
    await this.requireEndpoint(ref);
    const delivery = await deliveriesCollection(this.ctx.docs).get(ref.deliveryId);
    if (!delivery || delivery.endpointId !== ref.webhookId) throw notFound(`no delivery ${ref.deliveryId}`);
    return delivery;
  }

  @MessagePattern(Subjects.accounts.getWebhookDelivery)
  async delivery(@Payload() ref: DeliveryRef): Promise<WebhookDelivery> {
    return toDelivery(await this.requireDelivery(ref));
  }

  /** The same event again, as a new delivery with its own id and retries (the original keeps its log). */
  @MessagePattern(Subjects.accounts.redeliverWebhook)
  async redeliver(@Payload() ref: DeliveryRef): Promise<WebhookDelivery> {
    const original = await this.requireDelivery(ref);
    if (!(await this.requireEndpoint(ref)).enabled) throw conflict('the webhook is disabled: enable it first', []);
    const deliveryId = randomUUID();
    await this.command(ref.webhookId, {
      type: 'RequestRedelivery',
      deliveryId,
      of: original._id,
      position: original.position,
      at: this.ctx.clock.now(),
    });
    const created = await deliveriesCollection(this.ctx.docs).get(deliveryId);
    if (!created) throw notFound(`the event of ${ref.deliveryId} is no longer in the feed`);
    return toDelivery(created);
  }
}
