/**
 * The partner's webhook endpoints: `/webhooks/` (list, register), `/webhooks/<id>` (read, change,
 * `?action=rotate_secret|enable|disable|delete`, DELETE), and each endpoint's delivery log with its
 * redeliver action (`/webhooks/<id>/deliveries/[<delivery>]`). One bus call per request.
 */
import {
  CreateWebhookBody,
  ListDeliveriesQuery,
  notFound,
  RedeliverQuery,
  RotateSecretBody,
  Subjects,
  UpdateWebhookBody,
  type Webhook,
  WebhookActionQuery,
  type WebhookDelivery,
  type WebhookWithSecret,
  type z,
} from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { replyCreated } from '../http/created.js';
import { INTERFACE_A_MOUNTS } from '../http/interface-a.js';
import { JsonBody } from '../http/json-body.js';
import { PartnerGuard, PartnerId } from '../http/partner.guard.js';
import { Body, parseBody, Query } from '../http/request.js';
import { RPC } from '../http/tokens.js';

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

  @Get('webhooks')
  list(@PartnerId() partnerId: string): Promise<Webhook[]> {
    return this.rpc.call(Subjects.accounts.listWebhooks, { partnerId });
  }

  /** 201 with the endpoint and its secret, shown this once. */
  @Post('webhooks')
  async create(@PartnerId() partnerId: string, @Body(CreateWebhookBody, { required: true }) body: CreateWebhookBody, @Req() req: Request, @Res() res: Response): Promise<void> {
    const created = await this.rpc.call<WebhookWithSecret>(Subjects.accounts.createWebhook, { partnerId, ...body });
    res.setHeader('Cache-Control', 'no-store');
    replyCreated(req, res, created.id, created);
  }

  @Get('webhooks/:id')
  get(@PartnerId() partnerId: string, @Param('id') id: string): Promise<Webhook> {
    return this.rpc.call(Subjects.accounts.getWebhook, { partnerId, webhookId: webhookId(id) });
  }

  /** Changes the endpoint, or with `?action=` rotates its secret (the new one in the reply), enables, disables or deletes it. */
  @Post('webhooks/:id')
  @HttpCode(200)
  async update(
    @PartnerId() partnerId: string,
    @Param('id') id: string,
    @Query(WebhookActionQuery) { action }: z.output<typeof WebhookActionQuery>,
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
        return this.rpc.call(Subjects.accounts.updateWebhook, { ...ref, changes: parseBody(UpdateWebhookBody, raw) });
    }
  }

  @Delete('webhooks/:id')
  remove(@PartnerId() partnerId: string, @Param('id') id: string): Promise<null> {
    return this.rpc.call(Subjects.accounts.deleteWebhook, { partnerId, webhookId: webhookId(id) });
  }

  @Get('webhooks/:id/deliveries')
  deliveries(@PartnerId() partnerId: string, @Param('id') id: string, @Query(ListDeliveriesQuery) query: z.output<typeof ListDeliveriesQuery>): Promise<WebhookDelivery[]> {
    return this.rpc.call(Subjects.accounts.listWebhookDeliveries, { partnerId, webhookId: webhookId(id), ...query });
  }

  @Get('webhooks/:id/deliveries/:delivery')
  delivery(@PartnerId() partnerId: string, @Param('id') id: string, @Param('delivery') delivery: string): Promise<WebhookDelivery> {
    return this.rpc.call(Subjects.accounts.getWebhookDelivery, { partnerId, webhookId: webhookId(id), deliveryId: deliveryId(delivery) });
  }

  /** `?action=redeliver`: the event again, as a new delivery (202, the new delivery). */
  @Post('webhooks/:id/deliveries/:delivery')
  @HttpCode(202)
  redeliver(@PartnerId() partnerId: string, @Param('id') id: string, @Param('delivery') delivery: string, @Query(RedeliverQuery) _query: z.output<typeof RedeliverQuery>): Promise<WebhookDelivery> {
    return this.rpc.call(Subjects.accounts.redeliverWebhook, { partnerId, webhookId: webhookId(id), deliveryId: deliveryId(delivery) });
  }
}
