/** The plan catalogue aggregate (stream `plan-catalogue`): plan ids are allocated in order here. */
import { badRequest, type Command, type Decider, type PlanCatalogueEvent } from '@burrow/contracts';

export interface PlanDefinition {
  name: string;
  storage_bytes: number;
  promo: boolean;
}

export type AddPlan = Command<'AddPlan', { plan: PlanDefinition }>;
export type SeedCatalogue = Command<'SeedCatalogue', { plans: PlanDefinition[] }>;
export type PlanCatalogueCommand = AddPlan | SeedCatalogue;

export interface PlanCatalogueState {
  plans: (PlanDefinition & { plan_id: number })[];
}

export const planCatalogue: Decider<PlanCatalogueState, PlanCatalogueCommand, PlanCatalogueEvent> = {
  initialState: { plans: [] },
  decide(command, state) {
    const added = (plan: PlanDefinition, i: number): PlanCatalogueEvent => ({
      type: 'PlanAdded',
      data: {
        plan_id: state.plans.length + 1 + i,
        name: plan.name,
        storage_bytes: plan.storage_bytes,
        promo: plan.promo,
      },
    });
    switch (command.type) {
      case 'SeedCatalogue':
        // Only the first start seeds; a second replica racing it gets a concurrency conflict,
        // re-reads, and finds the catalogue already filled.
        return state.plans.length ? [] : command.plans.map(added);
      case 'AddPlan':
        if (state.plans.some((p) => p.name.toLowerCase() === command.plan.name.toLowerCase())) {
          throw badRequest(`a plan named ${command.plan.name} exists`, ['name']);
        }
        return [added(command.plan, 0)];
    }
  },
  evolve(state, event) {
    return { plans: [...state.plans, event.data] };
  },
};
