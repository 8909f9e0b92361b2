import { type HealthReply, Subjects } from '@burrow/contracts';
import type { EventStore } from '@burrow/event-store';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';

export const BILLING_CONTEXT = Symbol('BILLING_CONTEXT');

@Controller()
export class HealthHandlers {
  constructor(@Inject(BILLING_CONTEXT) private readonly ctx: { store: EventStore }) {}

  @MessagePattern(Subjects.billing.health)
  async health(): Promise<HealthReply> {
    await this.ctx.store.ping();
    return { service: 'billing', ok: true, position: await this.ctx.store.headPosition() };
  }
}
