/**
 * Logins are checked against the read models (issue 39): with every read of the event store
 * failing as an outage makes it fail, partner and user logins and session checks still answer,
 * and still refuse a wrong password; a password changed before the outage is the one in force.
 * (That a change through another replica is in force at once is user-sessions.int.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import { DependencyUnavailableError } from '@burrow/contracts';
import type { EventStore } from '@burrow/event-store';
import { PartnerAuthentication } from '../partners/partner-authentication.js';
import { PartnersHandlers } from '../partners/partners.handlers.js';
import { cleanUpTestAccounts, expectError, startTestAccounts, type TestAccounts } from '../testing/test-context.js';
import { UserLoginHandlers } from './user-login.handlers.js';

after(cleanUpTestAccounts);

/** The store as an outage leaves it: every call fails as the PostgreSQL adapter's do. */
const unreachable = (store: EventStore): EventStore =>
  new Proxy(store, {
    get: (target, name) => {
      const value = Reflect.get(target, name) as unknown;
      return typeof value === 'function'
        ? () => Promise.reject(new DependencyUnavailableError('event store', new Error('connect ECONNREFUSED')))
        : value;
    },
  });

describe('logins while the event store is down', () => {
  let t: TestAccounts;
  afterEach(async () => {
    await t?.close();
  });

  it('partner and user logins and sessions answer from the read models, and refuse wrong passwords', async () => {
    t = await startTestAccounts();
    const p = await t.createPartner();
    await t.users.create({
      partnerId: p.partner_id,
      username: 'sam',
      name: 'Sam',
      email: 'sam@example.com',
      password: 'sam-password-1',
    });
    await t.users.update({ partnerId: p.partner_id, user: 'sam', changes: { password: 'sam-password-2' } });
    const before = await new UserLoginHandlers(t.ctx).authenticate({
      login: 'sam',
      password: 'sam-password-2',
      address: '192.0.2.1',
    });

    const ctx = { ...t.ctx, store: unreachable(t.ctx.store) };
    const logins = new UserLoginHandlers(ctx);
    const user = await logins.authenticate({ login: 'sam', password: 'sam-password-2', address: '192.0.2.1' });
    assert.equal(user.sessionStamp, before.sessionStamp, 'the same credential stamp as read from the stream');
    assert.equal((await logins.session({ userId: user.userId, stamp: user.sessionStamp })).username, 'sam');
    await expectError(logins.authenticate({ login: 'sam', password: 'sam-password-1', address: '192.0.2.1' }), 401);
    await expectError(logins.session({ userId: user.userId, stamp: 'an-old-stamp' }), 401);

    const partners = new PartnerAuthentication(ctx);
    assert.equal(
      (await partners.authenticate({ username: p.username, password: p.password, address: '192.0.2.1' })).partnerId,
      p.partner_id,
    );
    await expectError(
      partners.authenticate({ username: p.username, password: 'not-the-password', address: '192.0.2.1' }),
      401,
    );
  });

  it('the partner quota answers from the read models, with the allocation the ledger held before the outage', async () => {
    t = await startTestAccounts();
    const p = await t.createPartner();
    const other = await t.createPartner();
    await t.users.create({
      partnerId: p.partner_id,
      username: 'ann',
      name: 'Ann',
      email: 'ann@example.com',
      plan_id: 1,
      bonus_bytes: 7,
    });
    await t.users.create({
      partnerId: p.partner_id,
      username: 'bob',
      name: 'Bob',
      email: 'bob@example.com',
      plan_id: 2,
    });
    // an entry and its undo: the read model follows the running total, not a sum of creations
    await t.users.update({ partnerId: p.partner_id, user: 'bob', changes: { plan_id: 1 } });
    await t.users.create({
      partnerId: other.partner_id,
      username: 'cy',
      name: 'Cy',
      email: 'cy@example.com',
      plan_id: 1,
    });
    const before = await t.partners.quota({ partnerId: p.partner_id });
    const otherBefore = await t.partners.quota({ partnerId: other.partner_id });
    assert.ok(
      before.bytes_allocated > 0 && before.bytes_allocated !== otherBefore.bytes_allocated,
      JSON.stringify({ before, otherBefore }),
    );

    const down = new PartnersHandlers({ ...t.ctx, store: unreachable(t.ctx.store) });
    assert.deepEqual(await down.quota({ partnerId: p.partner_id }), before);
    assert.deepEqual(await down.quota({ partnerId: other.partner_id }), otherBefore, 'each partner its own ledger');
    const empty = await t.createPartner();
    assert.equal(
      (await down.quota({ partnerId: empty.partner_id })).bytes_allocated,
      0,
      'no entry yet: nothing allocated',
    );
    await expectError(down.quota({ partnerId: 'no-such-partner' }), 404);
  });
});
