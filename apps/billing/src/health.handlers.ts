import { type HealthReply, Subjects } from '@burrow/contracts';
import { serviceHealth } from '@burrow/eventsourcing';
import { replicaId } from '@burrow/runtime';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { BILLING_CONTEXT, type BillingContext } from './context.js';

/** The billing service's health: asked on the queue group (the gateway's /readyz) and sent as this replica's own report. */
export const billingHealth = (ctx: BillingContext): Promise<HealthReply> =>
  serviceHealth('billing', ctx.store, ctx.docs, ctx.runner);

@Controller()
export class HealthHandlers {
  constructor(@Inject(BILLING_CONTEXT) private readonly ctx: BillingContext) {}

  @MessagePattern(Subjects.billing.health)
  async health(): Promise<HealthReply> {
    return { ...(await billingHealth(this.ctx)), replica: replicaId() };
  }
}
