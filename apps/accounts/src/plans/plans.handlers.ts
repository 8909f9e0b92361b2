/** Bus handlers for the plan catalogue. */
import { badRequest, type Plan, Streams, Subjects } from '@burrow/contracts';
import { handleCommand } from '@burrow/eventsourcing';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ACCOUNTS_CONTEXT, type AccountsContext } from '../shared/context.js';
import { planCatalogue } from './plan-catalogue.js';
import { listPlans } from './plans.projection.js';

@Controller()
export class PlansHandlers {
  constructor(@Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext) {}

  @MessagePattern(Subjects.accounts.listPlans)
  list(): Promise<Plan[]> {
    return listPlans(this.ctx.docs);
  }

  @MessagePattern(Subjects.accounts.addPlan)
  async add(@Payload() body: { name?: unknown; storage_bytes?: unknown; promo?: unknown }): Promise<Plan> {
    const invalid: string[] = [];
    if (typeof body.name !== 'string' || !body.name.trim()) invalid.push('name');
    if (typeof body.storage_bytes !== 'number' || body.storage_bytes < 0 || !Number.isInteger(body.storage_bytes)) invalid.push('storage_bytes');
    if (invalid.length) throw badRequest('invalid plan', invalid);
    const plan = { name: (body.name as string).trim(), storage_bytes: body.storage_bytes as number, promo: body.promo === true };
    const result = await handleCommand(this.ctx.store, Streams.planCatalogue, planCatalogue, { type: 'AddPlan', plan });
    await this.ctx.runner.waitFor(result.position);
    const added = result.events[0].data;
    return { plan_id: added.plan_id, storage_bytes: added.storage_bytes, name: added.name, promo: added.promo };
  }
}
