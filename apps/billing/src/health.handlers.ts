import { type HealthReply, Subjects } from '@burrow/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { BILLING_CONTEXT, type BillingContext } from './context.js';

@Controller()
export class HealthHandlers {
  constructor(@Inject(BILLING_CONTEXT) private readonly ctx: BillingContext) {}

  @MessagePattern(Subjects.billing.health)
  async health(): Promise<HealthReply> {
    await this.ctx.store.ping();
    await this.ctx.docs.ping();
    return { service: 'billing', ok: true, position: this.ctx.runner.currentPosition };
  }
}
