/** Read model of the plan catalogue, and the queries over it. */
import { conflict, type Plan, StreamPrefixes, type PlanAdded } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import { type Projection, dataOf } from '@burrow/eventsourcing';

type PlanDoc = Plan & { _id: string; [key: string]: unknown };

export const plansProjection = (): Projection => ({
  name: 'plans',
  prefixes: [StreamPrefixes.planCatalogue],
  async apply(event, docs) {
    if (event.type !== 'PlanAdded') return;
    const d = dataOf<PlanAdded>(event);
    await docs.collection<PlanDoc>('plans').upsert({
      _id: String(d.plan_id),
      plan_id: d.plan_id,
      storage_bytes: d.storage_bytes,
      name: d.name,
      promo: d.promo,
    });
  },
});

/**
 * The catalogue in plan_id order. Every user record names its plan, so this runs on every user
 * read: the catalogue is a handful of documents, sorted here rather than by the store (a sorted
 * find costs the SQLite store a read transaction to check its sort keys, ~20% of a GET /users/<u>).
 */
export async function listPlans(docs: DocumentStore): Promise<Plan[]> {
  const plans = await docs.collection<PlanDoc>('plans').find({});
  return plans.sort((a, b) => a.plan_id - b.plan_id).map(({ _id, ...plan }) => plan);
}

export async function getPlan(docs: DocumentStore, planId: number): Promise<Plan | null> {
  const doc = await docs.collection<PlanDoc>('plans').get(String(planId));
  if (!doc) return null;
  const { _id, ...plan } = doc;
  return plan;
}

/** The plan, or 409 naming plan_id (the spec's status for a nonexistent plan). */
export async function requirePlan(docs: DocumentStore, planId: number): Promise<Plan> {
  const plan = await getPlan(docs, planId);
  if (!plan) throw conflict(`plan ${planId} does not exist`, ['plan_id']);
  return plan;
}

/**
 * A user record's plan by id: one point read instead of the whole catalogue (a `GET /users/<u>`
 * names one plan). Empty when there is no such plan, as `planMap` would have no entry for it.
 */
export async function planMapOf(docs: DocumentStore, planId: number): Promise<Map<number, Plan>> {
  const plan = await getPlan(docs, planId);
  return new Map(plan ? [[planId, plan]] : []);
}

export async function planMap(docs: DocumentStore): Promise<Map<number, Plan>> {
  return new Map((await listPlans(docs)).map((p) => [p.plan_id, p]));
}
