import { type HealthReply, Subjects } from '@burrow/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ACCOUNTS_CONTEXT, type AccountsContext } from './context.js';

@Controller()
export class HealthHandlers {
  constructor(@Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext) {}

  @MessagePattern(Subjects.accounts.health)
  async health(): Promise<HealthReply> {
    await this.ctx.store.ping();
    await this.ctx.docs.ping();
    return { service: 'accounts', ok: true, position: this.ctx.runner.currentPosition };
  }

  /** Read-your-writes across services: answers once the read models include `position`. */
  @MessagePattern(Subjects.accounts.sync)
  async sync(@Payload() { position }: { position: number | null }): Promise<{ position: number }> {
    await this.ctx.runner.waitFor(typeof position === 'number' ? position : null);
    return { position: this.ctx.runner.currentPosition };
  }
}
