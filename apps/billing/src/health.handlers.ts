import { type HealthReply, Subjects } from '@burrow/contracts';
import { serviceHealth } from '@burrow/eventsourcing';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { BILLING_CONTEXT, type BillingContext } from './context.js';

@Controller()
export class HealthHandlers {
  constructor(@Inject(BILLING_CONTEXT) private readonly ctx: BillingContext) {}

  @MessagePattern(Subjects.billing.health)
  async health(): Promise<HealthReply> {
    return serviceHealth('billing', this.ctx.store, this.ctx.docs, this.ctx.runner);
  }
}
