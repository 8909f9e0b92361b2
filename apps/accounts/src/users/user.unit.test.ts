import type { UserEvent } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { userDecider } from './user.js';

const created: UserEvent = {
  type: 'UserCreated',
  data: { userId: 'u1', partnerId: 'p1', username: 'ann', name: 'Ann', email: 'ann@x.io', plan_id: 1, group_id: null, bonus_bytes: 0, avatar_id: 1, share_id: 'ann', creation_time: 1, passwordHash: 'h' },
};
const given = (...events: UserEvent[]) => events.reduce(userDecider.evolve, userDecider.initialState);

describe('user decider', () => {
  it('turns one request with several attributes into one event each', () => {
    const events = userDecider.decide(
      { type: 'ChangeUser', changes: { name: 'Ann B', plan_id: 2, bonus_bytes: 5, enabled: false, purgehold_active: true, group_id: 3 } },
      given(created),
    );
    assert.deepEqual(events.map((e) => e.type), ['UserRenamed', 'UserGroupChanged', 'UserPlanChanged', 'UserBonusChanged', 'UserDisabled', 'UserPurgeHoldChanged']);
  });

  it('a change to the current value emits nothing', () => {
    assert.deepEqual(userDecider.decide({ type: 'ChangeUser', changes: { name: 'Ann', plan_id: 1, enabled: true } }, given(created)), []);
  });

  it('a deleted user cannot be changed or deleted again', () => {
    const state = given(created, { type: 'UserDeleted', data: { deletedAt: 2 } });
    assert.throws(() => userDecider.decide({ type: 'ChangeUser', changes: { name: 'x' } }, state), (e: { status?: number }) => e.status === 404);
    assert.throws(() => userDecider.decide({ type: 'DeleteUser', at: 3 }, state), (e: { status?: number }) => e.status === 404);
  });

  it('password changes carry only the hash', () => {
    const [event] = userDecider.decide({ type: 'ChangeUser', changes: { passwordHash: 'scrypt$...' } }, given(created));
    assert.deepEqual(event, { type: 'UserPasswordChanged', data: { passwordHash: 'scrypt$...' } });
  });
});
