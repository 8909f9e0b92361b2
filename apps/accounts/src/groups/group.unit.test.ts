import { decideAll, type GroupEvent } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { groupDecider } from './group.js';

const created: GroupEvent = {
  type: 'GroupCreated',
  data: { groupId: 7, partnerId: 'p1', name: 'Sales', plan_id: 1, webapi_enable: true, check_domain: false },
};
const given = (...events: GroupEvent[]) => events.reduce(groupDecider.evolve, groupDecider.initialState);

describe('group decider', () => {
  it('emits only what changes', () => {
    const events = decideAll(
      groupDecider,
      [
        { type: 'RenameGroup', name: 'Sales' },
        { type: 'ChangeGroupPlan', plan_id: 2 },
        { type: 'SetGroupPolicy', check_domain: true },
      ],
      given(created),
    );
    assert.deepEqual(events, [
      { type: 'GroupPlanChanged', data: { plan_id: 2 } },
      { type: 'GroupPolicyChanged', data: { webapi_enable: true, check_domain: true } },
    ]);
  });

  it('refuses changes to a deleted or unknown group with 404', () => {
    const deleted = given(created, { type: 'GroupDeleted', data: { move_to: null } });
    assert.throws(
      () => groupDecider.decide({ type: 'RenameGroup', name: 'x' }, deleted),
      (e: { status?: number }) => e.status === 404,
    );
    assert.throws(
      () => groupDecider.decide({ type: 'DeleteGroup', move_to: null }, groupDecider.initialState),
      (e: { status?: number }) => e.status === 404,
    );
  });

  it('creating twice is a no-op (idempotent retry); a claimed stream refuses with 503', () => {
    assert.deepEqual(groupDecider.decide({ type: 'CreateGroup', data: created.data }, given(created)), []);
    const claimed = given({ type: 'GroupCreationAbandoned', data: { at: 1 } });
    assert.throws(
      () => groupDecider.decide({ type: 'CreateGroup', data: created.data }, claimed),
      (e: { status?: number }) => e.status === 503,
    );
  });

  it('sets the device policy only when it changes; groups created before policies have none', () => {
    assert.equal(given(created).device_policy, null);
    assert.deepEqual(groupDecider.decide({ type: 'SetGroupDevicePolicy', device_policy: 4 }, given(created)), [
      { type: 'GroupDevicePolicyChanged', data: { device_policy: 4 } },
    ]);
    const withPolicy = given({ ...created, data: { ...created.data, device_policy: 4 } });
    assert.deepEqual(groupDecider.decide({ type: 'SetGroupDevicePolicy', device_policy: 4 }, withPolicy), []);
    assert.equal(groupDecider.decide({ type: 'SetGroupDevicePolicy', device_policy: null }, withPolicy).length, 1);
  });
});
