/** Bus handlers for the plan catalogue. */
import { AddPlanRequest, type Plan, parseRequest, Streams, Subjects } from '@burrow/contracts';
import { handleCommand } from '@burrow/eventsourcing';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ACCOUNTS_CONTEXT, type AccountsContext } from '../context.js';
import { planCatalogue } from './plan-catalogue.js';
import { listPlans } from './plans.projection.js';

@Controller()
export class PlansHandlers {
  constructor(@Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext) {}

  @MessagePattern(Subjects.accounts.listPlans)
  list(): Promise<Plan[]> {
    return listPlans(this.ctx.docs);
  }

  /** Operator only (admin CLI): the request is parsed here, where it enters Burrow. */
  @MessagePattern(Subjects.accounts.addPlan)
  async add(@Payload() body: unknown): Promise<Plan> {
    const plan = parseRequest(AddPlanRequest, body, { what: 'plan' });
    const result = await handleCommand(this.ctx.store, Streams.planCatalogue, planCatalogue, { type: 'AddPlan', plan });
    await this.ctx.runner.waitFor(result.position);
    const added = result.events[0].data;
    return { plan_id: added.plan_id, storage_bytes: added.storage_bytes, name: added.name, promo: added.promo };
  }
}
