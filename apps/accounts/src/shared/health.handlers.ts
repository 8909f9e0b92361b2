import { type HealthReply, Subjects } from '@burrow/contracts';
import { serviceHealth } from '@burrow/eventsourcing';
import { replicaId } from '@burrow/runtime';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ACCOUNTS_CONTEXT, type AccountsContext } from '../context.js';

/**
 * The accounts service's health: its stores, and the login throttle's buckets (every login passes
 * the throttle: a store every request needs). Asked on the queue group (the gateway's /readyz) and
 * sent as this replica's own report (`Infrastructure.reportHealth`).
 */
export const accountsHealth = (ctx: AccountsContext): Promise<HealthReply> =>
  serviceHealth('accounts', ctx.store, ctx.docs, ctx.runner, { 'login throttle store': () => ctx.logins.ping() });

@Controller()
export class HealthHandlers {
  constructor(@Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext) {}

  @MessagePattern(Subjects.accounts.health)
  async health(): Promise<HealthReply> {
    return { ...(await accountsHealth(this.ctx)), replica: replicaId() };
  }

  /** Read-your-writes across services: answers once the read models include `position`. */
  @MessagePattern(Subjects.accounts.sync)
  async sync(@Payload() { position }: { position: number | null }): Promise<{ position: number }> {
    await this.ctx.runner.waitFor(typeof position === 'number' ? position : null);
    return { position: this.ctx.runner.currentPosition };
  }
}
