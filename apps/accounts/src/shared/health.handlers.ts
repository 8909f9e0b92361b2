import { type HealthReply, Subjects } from '@burrow/contracts';
import { serviceHealth } from '@burrow/eventsourcing';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ACCOUNTS_CONTEXT, type AccountsContext } from './context.js';

@Controller()
export class HealthHandlers {
  constructor(@Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext) {}

  @MessagePattern(Subjects.accounts.health)
  async health(): Promise<HealthReply> {
    return serviceHealth('accounts', this.ctx.store, this.ctx.docs, this.ctx.runner);
  }

  /** Read-your-writes across services: answers once the read models include `position`. */
  @MessagePattern(Subjects.accounts.sync)
  async sync(@Payload() { position }: { position: number | null }): Promise<{ position: number }> {
    await this.ctx.runner.waitFor(typeof position === 'number' ? position : null);
    return { position: this.ctx.runner.currentPosition };
  }
}
