/**
 * The partner's webhook endpoints: `/webhooks/` (list, register), `/webhooks/<id>` (read, change,
 * `?action=rotate_secret|enable|disable|delete`, DELETE), and each endpoint's delivery log with its
 * redeliver action (`/webhooks/<id>/deliveries/[<delivery>]`). One bus call per request.
 */
import {
  type CreateWebhookBody,
  notFound,
  RotateSecretBody,
  Subjects,
  type Webhook,
  type WebhookDelivery,
  type WebhookWithSecret,
  type z,
} from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, HttpCode, Inject, Param, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { replyCreated } from '../http/created.js';
import { INTERFACE_A_MOUNTS } from '../partner-access/interface-a.js';
import { JsonBody } from '../http/json-body.js';
import { PartnerGuard, PartnerId } from '../partner-access/partner.guard.js';
import type { PartnerIdentity } from '../partner-access/partner-in-call.js';
import { Body, parseBody, Query } from '../http/request.js';
import { RPC } from '../http/tokens.js';
import { Route } from '../http/route.js';
import { WEBHOOK_ROUTES } from './events.routes.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DELIVERY_ID = /^[0-9a-f-]{36}(\.\d{1,17})?$/;

/** An endpoint id from the path; anything else names no endpoint. */
function webhookId(raw: string): string {
  if (!UUID.test(raw)) throw notFound(`no webhook ${raw.slice(0, 64)}`);
  return raw;
}

function deliveryId(raw: string): string {
  if (!DELIVERY_ID.test(raw)) throw notFound(`no delivery ${raw.slice(0, 64)}`);
  return raw;
}

@Controller(INTERFACE_A_MOUNTS)
@UseGuards(PartnerGuard)
export class WebhooksController {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  @Route(WEBHOOK_ROUTES.list)
  list(@PartnerId() partnerId: PartnerIdentity): Promise<Webhook[]> {
    return this.rpc.call(Subjects.accounts.listWebhooks, { partnerId });
  }

  /** 201 with the endpoint and its secret, shown this once. */
  @Route(WEBHOOK_ROUTES.create)
  async create(
    @PartnerId() partnerId: PartnerIdentity,
    @Body(WEBHOOK_ROUTES.create.body, { required: true }) body: CreateWebhookBody,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const created = await this.rpc.call<WebhookWithSecret>(Subjects.accounts.createWebhook, { partnerId, ...body });
    res.setHeader('Cache-Control', 'no-store');
    replyCreated(req, res, created.id, created);
  }

  @Route(WEBHOOK_ROUTES.get)
  get(@PartnerId() partnerId: PartnerIdentity, @Param('id') id: string): Promise<Webhook> {
    return this.rpc.call(Subjects.accounts.getWebhook, { partnerId, webhookId: webhookId(id) });
  }

  /** Changes the endpoint, or with `?action=` rotates its secret (the new one in the reply), enables, disables or deletes it. */
  @Route(WEBHOOK_ROUTES.update)
  @HttpCode(200)
  async update(
    @PartnerId() partnerId: PartnerIdentity,
    @Param('id') id: string,
    @Query(WEBHOOK_ROUTES.update.query) { action }: z.output<typeof WEBHOOK_ROUTES.update.query>,
    @JsonBody() raw: unknown,
    @Res({ passthrough: true }) res: Response,
  ): Promise<Webhook | WebhookWithSecret | null> {
    const ref = { partnerId, webhookId: webhookId(id) };
    switch (action) {
      case 'rotate_secret':
        res.setHeader('Cache-Control', 'no-store');
        return this.rpc.call(Subjects.accounts.rotateWebhookSecret, { ...ref, ...parseBody(RotateSecretBody, raw) });
      case 'enable':
        return this.rpc.call(Subjects.accounts.enableWebhook, ref);
      case 'disable':
        return this.rpc.call(Subjects.accounts.disableWebhook, ref);
      case 'delete':
        return this.rpc.call(Subjects.accounts.deleteWebhook, ref);
      default:
        return this.rpc.call(Subjects.accounts.updateWebhook, {
          ...ref,
          changes: parseBody(WEBHOOK_ROUTES.update.body, raw),
        });
    }
  }

  @Route(WEBHOOK_ROUTES.remove)
  remove(@PartnerId() partnerId: PartnerIdentity, @Param('id') id: string): Promise<null> {
    return this.rpc.call(Subjects.accounts.deleteWebhook, { partnerId, webhookId: webhookId(id) });
  }

  @Route(WEBHOOK_ROUTES.deliveries)
  deliveries(
    @PartnerId() partnerId: PartnerIdentity,
    @Param('id') id: string,
    @Query(WEBHOOK_ROUTES.deliveries.query) query: z.output<typeof WEBHOOK_ROUTES.deliveries.query>,
  ): Promise<WebhookDelivery[]> {
    return this.rpc.call(Subjects.accounts.listWebhookDeliveries, { partnerId, webhookId: webhookId(id), ...query });
  }

  @Route(WEBHOOK_ROUTES.delivery)
  delivery(
    @PartnerId() partnerId: PartnerIdentity,
    @Param('id') id: string,
    @Param('delivery') delivery: string,
  ): Promise<WebhookDelivery> {
    return this.rpc.call(Subjects.accounts.getWebhookDelivery, {
      partnerId,
      webhookId: webhookId(id),
      deliveryId: deliveryId(delivery),
    });
  }

  /** `?action=redeliver`: the event again, as a new delivery (202, the new delivery). */
  @Route(WEBHOOK_ROUTES.redeliver)
  @HttpCode(202)
  redeliver(
    @PartnerId() partnerId: PartnerIdentity,
    @Param('id') id: string,
    @Param('delivery') delivery: string,
    @Query(WEBHOOK_ROUTES.redeliver.query) _query: z.output<typeof WEBHOOK_ROUTES.redeliver.query>,
  ): Promise<WebhookDelivery> {
    return this.rpc.call(Subjects.accounts.redeliverWebhook, {
      partnerId,
      webhookId: webhookId(id),
      deliveryId: deliveryId(delivery),
    });
  }
}
