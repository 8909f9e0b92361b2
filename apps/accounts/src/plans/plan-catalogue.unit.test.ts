import { UNLIMITED_BYTES } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_PLANS } from './default-plans.js';
import { planCatalogue } from './plan-catalogue.js';

describe('plan catalogue', () => {
  it('seeds once, numbering plans from 1, including an unlimited plan', () => {
    const events = planCatalogue.decide({ type: 'SeedCatalogue', plans: DEFAULT_PLANS }, planCatalogue.initialState);
    assert.deepEqual(
      events.map((e) => e.data.plan_id),
      DEFAULT_PLANS.map((_, i) => i + 1),
    );
    assert.ok(events.some((e) => e.data.storage_bytes === UNLIMITED_BYTES));
    const seeded = events.reduce(planCatalogue.evolve, planCatalogue.initialState);
    assert.deepEqual(planCatalogue.decide({ type: 'SeedCatalogue', plans: DEFAULT_PLANS }, seeded), []);
  });

  it('adds a plan with the next id and refuses a duplicate name', () => {
    const seeded = planCatalogue
      .decide({ type: 'SeedCatalogue', plans: DEFAULT_PLANS }, planCatalogue.initialState)
      .reduce(planCatalogue.evolve, planCatalogue.initialState);
    const [added] = planCatalogue.decide(
      { type: 'AddPlan', plan: { name: '10 TB', storage_bytes: 1e13, promo: false } },
      seeded,
    );
    assert.equal(added.data.plan_id, DEFAULT_PLANS.length + 1);
    assert.throws(
      () => planCatalogue.decide({ type: 'AddPlan', plan: { name: '1 tb', storage_bytes: 1, promo: false } }, seeded),
      /exists/,
    );
  });
});
