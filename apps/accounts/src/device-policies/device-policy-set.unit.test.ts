import { decideAll, type DevicePolicyEvent, PREFERENCE_DEFAULTS } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type DevicePolicyCommand,
  devicePolicySetDecider as decider,
  type DevicePolicySetState,
} from './device-policy-set.js';
import { effectivePolicy, type PolicyLink } from './effective-policy.js';

const AT = 1_700_000_000;
const created = (
  policyId: number,
  name: string,
  inherits_from: number | null = null,
  policy = {},
): DevicePolicyEvent => ({
  type: 'DevicePolicyCreated',
  data: { policyId, partnerId: 'p1', name, inherits_from, policy, at: AT },
});
const given = (...events: DevicePolicyEvent[]) => events.reduce(decider.evolve, decider.initialState);
const status = (code: number, token?: string) => (e: { status?: number; body?: { conflicts?: string[] } }) =>
  e.status === code && (token === undefined || (e.body?.conflicts ?? []).includes(token));
const inherit = (policyId: number, inherits_from: number | null): DevicePolicyCommand => ({
  type: 'ChangeDevicePolicyInheritance',
  policyId,
  inherits_from,
  at: AT,
});

describe('device policy set decider', () => {
  it('creates a policy once (a retried create is a no-op)', () => {
    const e = created(1, 'Laptops', null, { lan_sync: false });
    assert.deepEqual(decider.decide({ type: 'CreateDevicePolicy', data: e.data as never }, decider.initialState), [e]);
    assert.deepEqual(decider.decide({ type: 'CreateDevicePolicy', data: e.data as never }, given(e)), []);
  });

  it('refuses a name another live policy has (any case) with 409 name; a deleted one frees it', () => {
    const state = given(created(1, 'Laptops'));
    assert.throws(
      () => decider.decide({ type: 'CreateDevicePolicy', data: created(2, ' laptops ').data as never }, state),
      status(409, 'name'),
    );
    assert.throws(
      () =>
        decider.decide(
          { type: 'RenameDevicePolicy', policyId: 2, name: 'LAPTOPS', at: AT },
          given(created(1, 'Laptops'), created(2, 'Desktops')),
        ),
      status(409, 'name'),
    );
    const freed = given(created(1, 'Laptops'), { type: 'DevicePolicyDeleted', data: { policyId: 1, at: AT } });
    assert.equal(
      decider.decide({ type: 'CreateDevicePolicy', data: created(2, 'Laptops').data as never }, freed).length,
      1,
    );
    // renaming to its own name in another case is a change, not a conflict
    assert.equal(decider.decide({ type: 'RenameDevicePolicy', policyId: 1, name: 'LAPTOPS', at: AT }, state).length, 1);
  });

  it('inherits only from a live policy (409 inherits_from otherwise)', () => {
    const state = given(created(1, 'Base'), created(2, 'Gone'), {
      type: 'DevicePolicyDeleted',
      data: { policyId: 2, at: AT },
    });
    assert.throws(
      () => decider.decide({ type: 'CreateDevicePolicy', data: created(3, 'Child', 9).data as never }, state),
      status(409, 'inherits_from'),
    );
    assert.throws(
      () => decider.decide({ type: 'CreateDevicePolicy', data: created(3, 'Child', 2).data as never }, state),
      status(409, 'inherits_from'),
    );
    assert.equal(
      decider.decide({ type: 'CreateDevicePolicy', data: created(3, 'Child', 1).data as never }, state).length,
      1,
    );
  });

  it('refuses every inheritance cycle: itself, a child, a grandchild; accepts re-parenting elsewhere', () => {
    // 1 <- 2 <- 3 (3 inherits from 2, 2 from 1), and 4 alone
    const state = given(created(1, 'Root'), created(2, 'Mid', 1), created(3, 'Leaf', 2), created(4, 'Other'));
    assert.throws(() => decider.decide(inherit(1, 1), state), status(409, 'inherits_from'));
    assert.throws(() => decider.decide(inherit(1, 2), state), status(409, 'inherits_from'));
    assert.throws(() => decider.decide(inherit(1, 3), state), status(409, 'inherits_from'));
    assert.throws(() => decider.decide(inherit(2, 3), state), status(409, 'inherits_from'));
    assert.deepEqual(decider.decide(inherit(1, 4), state), [
      { type: 'DevicePolicyInheritanceChanged', data: { policyId: 1, inherits_from: 4, at: AT } },
    ]);
    assert.deepEqual(decider.decide(inherit(3, 1), state).length, 1);
    assert.deepEqual(decider.decide(inherit(2, null), state).length, 1);
    // the same parent again changes nothing
    assert.deepEqual(decider.decide(inherit(3, 2), state), []);
  });

  it('two changes decided together see each other: A->B then B->A is refused', () => {
    const state = given(created(1, 'A'), created(2, 'B'));
    assert.throws(() => decideAll(decider, [inherit(1, 2), inherit(2, 1)], state), status(409, 'inherits_from'));
  });

  it('refuses to delete a policy another inherits from (409 inherits_from), then allows it once the child moves', () => {
    let state: DevicePolicySetState = given(created(1, 'Base'), created(2, 'Child', 1));
    assert.throws(
      () => decider.decide({ type: 'DeleteDevicePolicy', policyId: 1, at: AT }, state),
      status(409, 'inherits_from'),
    );
    state = given(created(1, 'Base'), created(2, 'Child', 1), {
      type: 'DevicePolicyInheritanceChanged',
      data: { policyId: 2, inherits_from: null, at: AT },
    });
    assert.deepEqual(decider.decide({ type: 'DeleteDevicePolicy', policyId: 1, at: AT }, state), [
      { type: 'DevicePolicyDeleted', data: { policyId: 1, at: AT } },
    ]);
  });

  it('answers 404 for an unknown or deleted policy', () => {
    const state = given(created(1, 'A'), { type: 'DevicePolicyDeleted', data: { policyId: 1, at: AT } });
    for (const command of [
      { type: 'RenameDevicePolicy', policyId: 1, name: 'x', at: AT },
      inherit(1, null),
      { type: 'SetDevicePolicyValues', policyId: 1, policy: {}, at: AT },
      { type: 'DeleteDevicePolicy', policyId: 1, at: AT },
      { type: 'DeleteDevicePolicy', policyId: 7, at: AT },
    ] as DevicePolicyCommand[]) {
      assert.throws(() => decider.decide(command, state), status(404), command.type);
    }
  });

  it('sets values only when they change (key order does not matter)', () => {
    const state = given(created(1, 'A', null, { lan_sync: false, upload_limit_kbps: 512 }));
    assert.deepEqual(
      decider.decide(
        { type: 'SetDevicePolicyValues', policyId: 1, policy: { upload_limit_kbps: 512, lan_sync: false }, at: AT },
        state,
      ),
      [],
    );
    assert.equal(
      decider.decide({ type: 'SetDevicePolicyValues', policyId: 1, policy: { lan_sync: true }, at: AT }, state).length,
      1,
    );
  });

  it('refuses a create past the per-partner cap with 409', () => {
    const policies: DevicePolicySetState['policies'] = Object.fromEntries(
      Array.from({ length: 1000 }, (_, i) => [i + 1, { name: `p${i}`, inherits_from: null, values: '{}' }]),
    );
    assert.throws(
      () => decider.decide({ type: 'CreateDevicePolicy', data: created(1001, 'one more').data as never }, { policies }),
      status(409),
    );
  });
});

describe('effective policy', () => {
  const policies = new Map<number, PolicyLink>([
    [1, { inherits_from: null, policy: { lan_sync: false, backup_schedule: 'daily', backup_time: '03:00' } }],
    [2, { inherits_from: 1, policy: { backup_time: '22:30', upload_limit_enabled: true } }],
    [3, { inherits_from: 2, policy: { lan_sync: true } }],
  ]);
  const lookup = (id: number) => policies.get(id);

  it('is the defaults, then each ancestor from the root down, then the policy itself', () => {
    const effective = effectivePolicy(policies.get(3)!, lookup);
    assert.deepEqual(effective, {
      ...PREFERENCE_DEFAULTS,
      lan_sync: true,
      backup_schedule: 'daily',
      backup_time: '22:30',
      upload_limit_enabled: true,
    });
    assert.deepEqual(effectivePolicy({ inherits_from: null, policy: {} }, lookup), PREFERENCE_DEFAULTS);
  });

  it('stops at a missing ancestor and at a cycle a corrupt read model could hold', () => {
    assert.deepEqual(effectivePolicy({ inherits_from: 99, policy: { lan_sync: false } }, lookup), {
      ...PREFERENCE_DEFAULTS,
      lan_sync: false,
    });
    const loop = new Map<number, PolicyLink>([
      [1, { inherits_from: 2, policy: {} }],
      [2, { inherits_from: 1, policy: { lan_sync: false } }],
    ]);
    assert.equal(effectivePolicy(loop.get(1)!, (id) => loop.get(id), 10).lan_sync, false);
  });
});
