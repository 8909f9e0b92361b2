/**
 * A session's check (`accounts.users.session`, on every cookie request) remembers each user's
 * credential stamp with the user stream's revision; a password change or a disable made through
 * another replica (another connection to the same store, whose appends this one hears nothing of)
 * must still end the session on the very next check.
 */
import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import { cleanUpTestAccounts, expectError, startTestAccounts, type TestAccounts } from '../testing/test-context.js';
import { UserLoginHandlers } from './user-login.handlers.js';

after(cleanUpTestAccounts);

describe('session checks against changes made elsewhere', () => {
  let t: TestAccounts;
  let replica: TestAccounts;
  afterEach(async () => {
    await replica?.close({ keepFiles: true });
    await t?.close();
  });

  async function loggedIn() {
    t = await startTestAccounts();
    replica = await startTestAccounts({ dir: t.dir });
    const p = await t.createPartner();
    await t.users.create({
      partnerId: p.partner_id,
      username: 'sam',
      name: 'Sam',
      email: 'sam@example.com',
      password: 'sam-password-1',
    });
    const logins = new UserLoginHandlers(t.ctx);
    const user = await logins.authenticate({ login: 'sam', password: 'sam-password-1', address: '192.0.2.1' });
    const session = { userId: user.userId, stamp: user.sessionStamp };
    // twice: the second check is the remembered one
    assert.equal((await logins.session(session)).username, 'sam');
    assert.equal((await logins.session(session)).username, 'sam');
    // the replica's read models are its own (in memory, fed by polling the shared store): it has
    // seen the partner and the user before a write through it is asked to find them
    await replica.runner.catchUp();
    return { logins, session, partnerId: p.partner_id };
  }

  it('a password changed through another replica ends the session at the next check', async () => {
    const { logins, session, partnerId } = await loggedIn();
    await replica.users.update({ partnerId, user: 'sam', changes: { password: 'sam-password-2' } });
    await expectError(logins.session(session), 401);
    const again = await logins.authenticate({ login: 'sam', password: 'sam-password-2', address: '192.0.2.1' });
    assert.notEqual(again.sessionStamp, session.stamp);
    assert.equal((await logins.session({ userId: again.userId, stamp: again.sessionStamp })).username, 'sam');
  });

  it('a user disabled through another replica loses the session at the next check, and enabling brings it not back', async () => {
    const { logins, session, partnerId } = await loggedIn();
    await replica.users.update({ partnerId, user: 'sam', changes: { enabled: false } });
    await expectError(logins.session(session), 401);
    await replica.users.update({ partnerId, user: 'sam', changes: { enabled: true } });
    await expectError(logins.session(session), 401);
  });
});
