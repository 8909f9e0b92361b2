import { decideAll, type UserEvent } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { userCommands, userDecider } from './user.js';

const created: UserEvent = {
  type: 'UserCreated',
  data: {
    userId: 'u1',
    partnerId: 'p1',
    username: 'ann',
    name: 'Ann',
    email: 'ann@x.io',
    plan_id: 1,
    group_id: null,
    bonus_bytes: 0,
    avatar_id: 1,
    share_id: 'ann',
    creation_time: 1,
    passwordHash: 'h',
  },
};
const given = (...events: UserEvent[]) => events.reduce(userDecider.evolve, userDecider.initialState);
const decide = (changes: Parameters<typeof userCommands>[0], state = given(created)) =>
  decideAll(userDecider, userCommands(changes), state);

describe('user decider', () => {
  it('turns one request with several attributes into one event each', () => {
    const events = decide({
      name: 'Ann B',
      plan_id: 2,
      bonus_bytes: 5,
      enabled: false,
      purgehold_active: true,
      group_id: 3,
    });
    assert.deepEqual(
      events.map((e) => e.type),
      [
        'UserRenamed',
        'UserGroupChanged',
        'UserPlanChanged',
        'UserBonusChanged',
        'UserDisabled',
        'UserPurgeHoldChanged',
      ],
    );
  });

  it('a change to the current value emits nothing', () => {
    assert.deepEqual(decide({ name: 'Ann', plan_id: 1, enabled: true }), []);
  });

  it('a deleted user cannot be changed or deleted again', () => {
    const state = given(created, { type: 'UserDeleted', data: { deletedAt: 2 } });
    assert.throws(
      () => decide({ name: 'x' }, state),
      (e: { status?: number }) => e.status === 404,
    );
    assert.throws(
      () => userDecider.decide({ type: 'DeleteUser', at: 3 }, state),
      (e: { status?: number }) => e.status === 404,
    );
  });

  it('password changes carry only the hash', () => {
    const [event] = decide({ passwordHash: 'scrypt$...' });
    assert.deepEqual(event, { type: 'UserPasswordChanged', data: { passwordHash: 'scrypt$...' } });
  });

  it('a create carries its flags as events of the same append; repeating it is a no-op', () => {
    const command = { type: 'CreateUser' as const, data: created.data, enabled: false, purgehold_active: true };
    assert.deepEqual(
      userDecider.decide(command, userDecider.initialState).map((e) => e.type),
      ['UserCreated', 'UserDisabled', 'UserPurgeHoldChanged'],
    );
    assert.deepEqual(userDecider.decide(command, given(created)), []);
  });

  it('a stream that recovery claimed refuses a late create with 503 instead of reviving it', () => {
    const state = given({ type: 'UserCreationAbandoned', data: { at: 5 } });
    assert.throws(
      () =>
        userDecider.decide({ type: 'CreateUser', data: created.data, enabled: true, purgehold_active: false }, state),
      (e: { status?: number }) => e.status === 503,
    );
  });

  describe('set-password links', () => {
    const issued = (nonce: string, expiresAt = 100): UserEvent => ({
      type: 'SetPasswordLinkIssued',
      data: { nonce, expiresAt, at: 10 },
    });
    const use = (nonce: string, at = 50) => ({
      type: 'SetPasswordByLink' as const,
      nonce,
      passwordHash: 'scrypt2$new',
      at,
    });
    const isGone = (e: { status?: number }) => e.status === 410;

    it('the live link sets the password and is spent, in one append', () => {
      const events = userDecider.decide(use('n1'), given(created, issued('n1')));
      assert.deepEqual(events, [
        { type: 'SetPasswordLinkUsed', data: { nonce: 'n1', at: 50 } },
        { type: 'UserPasswordChanged', data: { passwordHash: 'scrypt2$new' } },
      ]);
      assert.throws(() => userDecider.decide(use('n1'), given(created, issued('n1'), ...events)), isGone, 'once');
    });

    it('refuses a link that expired, was replaced, was never issued, or outlived a password change or the user', () => {
      assert.throws(() => userDecider.decide(use('n1', 101), given(created, issued('n1', 100))), isGone, 'expired');
      assert.doesNotThrow(
        () => userDecider.decide(use('n1', 100), given(created, issued('n1', 100))),
        'usable at its expiry second',
      );
      assert.throws(
        () => userDecider.decide(use('n1'), given(created, issued('n1'), issued('n2'))),
        isGone,
        'replaced',
      );
      assert.throws(() => userDecider.decide(use('n1'), given(created)), isGone, 'never issued');
      assert.throws(
        () =>
          userDecider.decide(
            use('n1'),
            given(created, issued('n1'), { type: 'UserPasswordChanged', data: { passwordHash: 'h2' } }),
          ),
        isGone,
        'withdrawn',
      );
      assert.throws(
        () =>
          userDecider.decide(use('n1'), given(created, issued('n1'), { type: 'UserDeleted', data: { deletedAt: 20 } })),
        isGone,
        'user deleted',
      );
      assert.throws(() => userDecider.decide(use('n1'), userDecider.initialState), isGone, 'no user');
    });

    it('issuing needs a live user', () => {
      const command = { type: 'IssueSetPasswordLink' as const, nonce: 'n3', expiresAt: 200, at: 20 };
      assert.deepEqual(userDecider.decide(command, given(created)), [
        { type: 'SetPasswordLinkIssued', data: { nonce: 'n3', expiresAt: 200, at: 20 } },
      ]);
      assert.throws(
        () => userDecider.decide(command, given(created, { type: 'UserDeleted', data: { deletedAt: 2 } })),
        (e: { status?: number }) => e.status === 404,
      );
    });
  });
});
