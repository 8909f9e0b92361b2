import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type GroupEvent, groupDecider } from './group.js';

const created: GroupEvent = { type: 'GroupCreated', data: { groupId: 7, partnerId: 'p1', name: 'Sales', plan_id: 1, webapi_enable: true, check_domain: false } };
const given = (...events: GroupEvent[]) => events.reduce(groupDecider.evolve, groupDecider.initialState);

describe('group decider', () => {
  it('emits only what changes', () => {
    const events = groupDecider.decide({ type: 'ChangeGroup', name: 'Sales', plan_id: 2, check_domain: true }, given(created));
    assert.deepEqual(events, [
      { type: 'GroupPlanChanged', data: { plan_id: 2 } },
      { type: 'GroupPolicyChanged', data: { webapi_enable: true, check_domain: true } },
    ]);
  });

  it('refuses changes to a deleted or unknown group with 404', () => {
    const deleted = given(created, { type: 'GroupDeleted', data: { move_to: null } });
    assert.throws(() => groupDecider.decide({ type: 'ChangeGroup', name: 'x' }, deleted), (e: { status?: number }) => e.status === 404);
    assert.throws(() => groupDecider.decide({ type: 'DeleteGroup', move_to: null }, groupDecider.initialState), (e: { status?: number }) => e.status === 404);
  });

  it('creating twice is a no-op (idempotent retry)', () => {
    assert.deepEqual(groupDecider.decide({ type: 'CreateGroup', data: created.data }, given(created)), []);
  });
});
