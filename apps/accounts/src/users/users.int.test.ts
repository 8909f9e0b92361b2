/**
 * Users through their bus handlers against the embedded event store and in-memory read models:
 * names and emails are unique across partners (reservations), the allocation ledger stays exact
 * and never passes the partner's limit, a refused write leaves nothing behind, and a partner sees
 * only its own users.
 */
import { type JsonText, Streams, type UserRecord } from '@burrow/contracts';
import { appendEvents, releaseName } from '@burrow/eventsourcing';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertConsistent, expectError, GB, startTestAccounts, type TestAccounts } from '../testing/test-context.js';
import { emailReservation } from './name-reservations.js';
import { UserLoginHandlers } from './user-login.handlers.js';
import { usersCollection } from '../read-models/users.projection.js';

describe('users', () => {
  let t: TestAccounts;
  before(async () => {
    t = await startTestAccounts();
  });
  after(async () => {
    await t.close();
  });

  const userIdOf = (username: string) => t.userIdOf(username);
  const usersOf = async (partnerId: string) => usersCollection(t.docs).count({ partnerId });

  describe('create', () => {
    it('a generated temporary password logs in and is stored as a salted HMAC; a chosen one gets scrypt', async () => {
      const p = await t.createPartner();
      const temp = await t.users.create({
        partnerId: p.partner_id,
        username: 'tess',
        name: 'Tess',
        email: 'tess@example.com',
      });
      await t.users.create({
        partnerId: p.partner_id,
        username: 'chris',
        name: 'Chris',
        email: 'chris@example.com',
        password: 'chosen-password-1',
      });
      const logins = new UserLoginHandlers(t.ctx);
      const address = '192.0.2.7';
      assert.equal(
        (await logins.authenticate({ login: 'tess', password: temp.temp_password!, address })).username,
        'tess',
      );
      await expectError(logins.authenticate({ login: 'tess', password: `${temp.temp_password}x`, address }), 401);
      assert.equal(
        (await logins.authenticate({ login: 'chris@example.com', password: 'chosen-password-1', address })).username,
        'chris',
      );
      const hashOf = async (username: string) =>
        (await t.store.readStream(Streams.user(await userIdOf(username))))[0].data.passwordHash as string;
      assert.match(await hashOf('tess'), /^random1\$/);
      assert.ok(!(await hashOf('tess')).includes(temp.temp_password!));
      assert.match(await hashOf('chris'), /^scrypt2\$/, 'a chosen password keeps the memory-hard hash');
      // a password set later replaces the temporary one, with scrypt
      await t.users.update({ partnerId: p.partner_id, user: 'tess', changes: { password: 'tess-own-password' } });
      await expectError(logins.authenticate({ login: 'tess', password: temp.temp_password!, address }), 401);
      assert.equal(
        (await logins.authenticate({ login: 'tess', password: 'tess-own-password', address })).username,
        'tess',
      );
    });

    it('derives the username from the email, takes both names and allocates plan + bonus exactly', async () => {
      const p = await t.createPartner();
      const created = await t.users.create({
        partnerId: p.partner_id,
        name: 'Jane Doe',
        email: 'Jane.Doe+work@example.com',
        bonus_bytes: 5 * GB,
      });
      assert.equal(created.username, 'Jane.Doework');
      assert.equal(created.user.username, 'Jane.Doework');
      assert.equal(created.user.plan_id, 1, 'the first plan when none is named');
      assert.equal(created.user.storage_bytes, 105 * GB);
      assert.equal(typeof created.temp_password, 'string');
      assert.ok(created.temp_password!.length >= 12);

      const id = await userIdOf('Jane.Doework');
      assert.equal(await t.holder('username', 'jane.doework'), id, 'reservations are case-insensitive');
      assert.equal(await t.holder('email', 'jane.doe+work@EXAMPLE.com'), id);
      assert.equal(await t.allocated(p.partner_id), 105 * GB);
      assert.deepEqual(await t.users.get({ partnerId: p.partner_id, user: 'Jane.Doe+work@example.com' }), created.user);
    });

    it('gives no temporary password when one is set; uses the email as username with email_as_username', async () => {
      const p = await t.createPartner({ features: { email_as_username: true } });
      const created = await t.users.create({
        partnerId: p.partner_id,
        name: 'Bob',
        email: 'bob@example.com',
        password: 'bobs-own-password',
        plan_id: 2,
      });
      assert.equal(created.username, 'bob@example.com');
      assert.equal(created.temp_password, undefined);
      assert.equal('temp_password' in created, false);
      assert.equal(await t.allocated(p.partner_id), 1000 * GB);
    });

    it('a derived username that breaks the username rule is a 400 and reserves nothing', async () => {
      const p = await t.createPartner();
      const error = await expectError(
        t.users.create({ partnerId: p.partner_id, name: 'X', email: '+++@example.com' }),
        400,
      );
      assert.deepEqual(error.body.fields, ['username']);
      assert.equal(await t.holder('email', '+++@example.com'), null);
    });

    it('409 when the username or the email is taken, across partners; the other name is not kept', async () => {
      const a = await t.createPartner();
      const b = await t.createPartner();
      await t.users.create({ partnerId: a.partner_id, username: 'carol', name: 'Carol', email: 'carol@example.com' });

      const byName = await expectError(
        t.users.create({ partnerId: b.partner_id, username: 'CAROL', name: 'C', email: 'other-carol@example.com' }),
        409,
      );
      assert.deepEqual(byName.body.conflicts, ['username']);
      const byEmail = await expectError(
        t.users.create({ partnerId: b.partner_id, username: 'carol2', name: 'C', email: 'Carol@Example.com' }),
        409,
      );
      assert.deepEqual(byEmail.body.conflicts, ['email']);

      assert.equal(await t.holder('email', 'other-carol@example.com'), null);
      assert.equal(await t.holder('username', 'carol2'), null, 'the username taken before the email clash is released');
      assert.equal(await t.holder('username', 'carol'), await userIdOf('carol'));
      assert.equal(await t.allocated(b.partner_id), 0);
      assert.equal(await usersOf(b.partner_id), 0);
      await t.runner.catchUp();
      assert.deepEqual(await t.recovery().pending(), [], 'the refused writes ended (compensated), none is pending');
    });

    it('402 when the partner limit would be exceeded, and nothing is left behind', async () => {
      const p = await t.createPartner({ bytes_available: 150 * GB });
      await t.users.create({ partnerId: p.partner_id, username: 'dave', name: 'Dave', email: 'dave@example.com' });
      const before = await t.allocated(p.partner_id);
      const ledgerEntries = (await t.store.readStream(`allocation-${p.partner_id}`)).length;

      const error = await expectError(
        t.users.create({ partnerId: p.partner_id, username: 'erin', name: 'Erin', email: 'erin@example.com' }),
        402,
      );
      assert.match(error.body.reason, /payment required/);
      assert.equal(await t.holder('username', 'erin'), null);
      assert.equal(await t.holder('email', 'erin@example.com'), null);
      assert.equal(await t.allocated(p.partner_id), before);
      assert.equal(
        (await t.store.readStream(`allocation-${p.partner_id}`)).length,
        ledgerEntries,
        'not even a pair of entries that cancel out',
      );
      assert.equal(await usersOf(p.partner_id), 1);
      await expectError(t.users.get({ partnerId: p.partner_id, user: 'erin' }), 404);

      // with room for exactly one more, the same names go through, and the limit holds again after
      await t.partners.setLimits({ username: p.username, bytes_available: 200 * GB });
      await t.users.create({ partnerId: p.partner_id, username: 'erin', name: 'Erin', email: 'erin@example.com' });
      assert.equal(await t.allocated(p.partner_id), 200 * GB);
      await expectError(
        t.users.create({
          partnerId: p.partner_id,
          username: 'frank',
          name: 'F',
          email: 'frank@example.com',
          plan_id: 1,
        }),
        402,
      );
      assert.equal(await t.allocated(p.partner_id), 200 * GB);
    });
  });

  describe('concurrent requests', () => {
    it('ten creates racing for a limit that fits five: five users, five 402s, the ledger exactly at the limit', async () => {
      const p = await t.createPartner({ bytes_available: 500 * GB });
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          t.users.create({
            partnerId: p.partner_id,
            username: `racer${i}`,
            name: `Racer ${i}`,
            email: `racer${i}@example.com`,
            plan_id: 1,
          }),
        ),
      );
      const refused = results.filter((r) => r.status === 'rejected').map((r) => r.reason.status);
      assert.deepEqual(refused, [402, 402, 402, 402, 402]);
      assert.equal(await t.allocated(p.partner_id), 500 * GB);
      assert.equal(await usersOf(p.partner_id), 5);
      for (let i = 0; i < 10; i++) {
        const created = results[i].status === 'fulfilled';
        assert.equal((await t.holder('username', `racer${i}`)) !== null, created, `racer${i}`);
        assert.equal((await t.holder('email', `racer${i}@example.com`)) !== null, created, `racer${i}@example.com`);
      }
      await assertConsistent(t, p.partner_id);
    });

    it('two partners creating the same username at once: one wins, the other gets a 409 and keeps nothing', async () => {
      const a = await t.createPartner();
      const b = await t.createPartner();
      const results = await Promise.allSettled([
        t.users.create({ partnerId: a.partner_id, username: 'contested', name: 'A', email: 'contested-a@example.com' }),
        t.users.create({ partnerId: b.partner_id, username: 'Contested', name: 'B', email: 'contested-b@example.com' }),
      ]);
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      const loser = results.findIndex((r) => r.status === 'rejected');
      assert.equal((results[loser] as PromiseRejectedResult).reason.status, 409);
      assert.equal(await t.holder('email', loser === 0 ? 'contested-a@example.com' : 'contested-b@example.com'), null);
      assert.equal((await t.allocated(a.partner_id)) + (await t.allocated(b.partner_id)), 100 * GB);
      await assertConsistent(t, a.partner_id);
      await assertConsistent(t, b.partner_id);
    });
  });

  describe('update', () => {
    it('an email change moves the reservation: the old address is free, the new one taken', async () => {
      const p = await t.createPartner();
      await t.users.create({ partnerId: p.partner_id, username: 'gina', name: 'Gina', email: 'gina@old.example' });
      const id = await userIdOf('gina');
      const updated = await t.users.update({
        partnerId: p.partner_id,
        user: 'gina',
        changes: { email: 'gina@new.example' },
      });
      assert.equal(updated.email, 'gina@new.example');
      assert.equal(await t.holder('email', 'gina@new.example'), id);
      assert.equal(await t.holder('email', 'gina@old.example'), null);
      assert.equal((await t.users.get({ partnerId: p.partner_id, user: 'gina@new.example' })).username, 'gina');
      await expectError(t.users.get({ partnerId: p.partner_id, user: 'gina@old.example' }), 404);
      // the old address is usable by someone else at once; the new one is not
      await t.users.create({ partnerId: p.partner_id, username: 'gina2', name: 'Gina II', email: 'gina@old.example' });
      const taken = await expectError(
        t.users.create({ partnerId: p.partner_id, username: 'gina3', name: 'G', email: 'GINA@new.example' }),
        409,
      );
      assert.deepEqual(taken.body.conflicts, ['email']);
      // and another user cannot take the new address by an update either
      const clash = await expectError(
        t.users.update({ partnerId: p.partner_id, user: 'gina2', changes: { email: 'gina@new.example' } }),
        409,
      );
      assert.deepEqual(clash.body.conflicts, ['email']);
      assert.equal((await t.users.get({ partnerId: p.partner_id, user: 'gina2' })).email, 'gina@old.example');
    });

    it('plan and bonus changes move the ledger by exactly the difference', async () => {
      const p = await t.createPartner();
      await t.users.create({
        partnerId: p.partner_id,
        username: 'hal',
        name: 'Hal',
        email: 'hal@example.com',
        plan_id: 1,
      });
      await t.users.create({
        partnerId: p.partner_id,
        username: 'ida',
        name: 'Ida',
        email: 'ida@example.com',
        plan_id: 2,
        bonus_bytes: 7,
      });
      assert.equal(await t.allocated(p.partner_id), 1100 * GB + 7);

      const hal = await t.users.update({ partnerId: p.partner_id, user: 'hal', changes: { plan_id: 3 } });
      assert.equal(hal.plan_id, 3);
      assert.equal(hal.storage_bytes, 5000 * GB);
      assert.equal(await t.allocated(p.partner_id), 6000 * GB + 7);

      await t.users.update({ partnerId: p.partner_id, user: 'ida', changes: { bonus_bytes: 3 * GB } });
      assert.equal(await t.allocated(p.partner_id), 6003 * GB);
      await t.users.update({ partnerId: p.partner_id, user: 'hal', changes: { plan_id: 1, bonus_bytes: GB } });
      assert.equal(await t.allocated(p.partner_id), 1104 * GB);
      // a change that moves no bytes writes no ledger entry
      const entries = (await t.store.readStream(`allocation-${p.partner_id}`)).length;
      await t.users.update({ partnerId: p.partner_id, user: 'hal', changes: { name: 'Hal 9000', plan_id: 1 } });
      assert.equal((await t.store.readStream(`allocation-${p.partner_id}`)).length, entries);
      assert.equal((await t.users.get({ partnerId: p.partner_id, user: 'hal' })).name, 'Hal 9000');
    });

    it('402 "quota exceeded" leaves the user, the ledger and the reservations as they were', async () => {
      const p = await t.createPartner({ bytes_available: 1200 * GB });
      await t.users.create({
        partnerId: p.partner_id,
        username: 'jim',
        name: 'Jim',
        email: 'jim@example.com',
        plan_id: 2,
      });
      const id = await userIdOf('jim');
      const before: UserRecord = await t.users.get({ partnerId: p.partner_id, user: 'jim' });
      const allocated = await t.allocated(p.partner_id);

      const error = await expectError(
        t.users.update({
          partnerId: p.partner_id,
          user: 'jim',
          changes: { plan_id: 3, email: 'jim@new.example', name: 'James' },
        }),
        402,
      );
      assert.equal(error.body.reason, 'quota exceeded');
      assert.deepEqual(await t.users.get({ partnerId: p.partner_id, user: 'jim' }), before);
      assert.equal(await t.allocated(p.partner_id), allocated);
      assert.equal(await t.holder('email', 'jim@example.com'), id);
      assert.equal(await t.holder('email', 'jim@new.example'), null);
      await t.runner.catchUp();
      assert.deepEqual(await t.recovery().pending(), []);

      // within the limit the same kind of change goes through
      await t.users.update({ partnerId: p.partner_id, user: 'jim', changes: { bonus_bytes: 200 * GB } });
      assert.equal(await t.allocated(p.partner_id), 1200 * GB);
      await expectError(
        t.users.update({ partnerId: p.partner_id, user: 'jim', changes: { bonus_bytes: 200 * GB + 1 } }),
        402,
      );
      // giving bytes back is always allowed, even when over the limit after it was lowered
      await t.partners.setLimits({ username: p.username, bytes_available: 10 * GB });
      await t.users.update({ partnerId: p.partner_id, user: 'jim', changes: { plan_id: 1, bonus_bytes: 0 } });
      assert.equal(await t.allocated(p.partner_id), 100 * GB);
    });

    it('an unknown plan is a 409 naming plan_id and changes nothing', async () => {
      const p = await t.createPartner();
      await t.users.create({ partnerId: p.partner_id, username: 'kim', name: 'Kim', email: 'kim@example.com' });
      const error = await expectError(
        t.users.update({ partnerId: p.partner_id, user: 'kim', changes: { plan_id: 999 } }),
        409,
      );
      assert.deepEqual(error.body.conflicts, ['plan_id']);
      assert.equal((await t.users.get({ partnerId: p.partner_id, user: 'kim' })).plan_id, 1);
      assert.equal(await t.allocated(p.partner_id), 100 * GB);
    });
  });

  describe('delete', () => {
    it('gives the allocation back and frees the username and the email', async () => {
      const p = await t.createPartner();
      await t.users.create({
        partnerId: p.partner_id,
        username: 'lea',
        name: 'Lea',
        email: 'lea@example.com',
        plan_id: 2,
        bonus_bytes: 3,
      });
      await t.users.create({ partnerId: p.partner_id, username: 'max', name: 'Max', email: 'max@example.com' });
      assert.equal(await t.allocated(p.partner_id), 1100 * GB + 3);

      assert.equal(await t.users.delete({ partnerId: p.partner_id, user: 'LEA' }), null);
      assert.equal(await t.allocated(p.partner_id), 100 * GB);
      assert.equal(await t.holder('username', 'lea'), null);
      assert.equal(await t.holder('email', 'lea@example.com'), null);
      await expectError(t.users.get({ partnerId: p.partner_id, user: 'lea' }), 404);
      await expectError(t.users.delete({ partnerId: p.partner_id, user: 'lea' }), 404);

      // another partner may now take both names
      const other = await t.createPartner();
      const again = await t.users.create({
        partnerId: other.partner_id,
        username: 'lea',
        name: 'Lea II',
        email: 'lea@example.com',
      });
      assert.equal(again.user.name, 'Lea II');
      assert.equal(await t.allocated(p.partner_id), 100 * GB);
      assert.equal(await t.allocated(other.partner_id), 100 * GB);
    });
  });

  describe('one login namespace across partners (issue 33, item 4)', () => {
    const address = '192.0.2.33';
    const login = (name: string, password: string) =>
      new UserLoginHandlers(t.ctx).authenticate({ login: name, password, address });

    it("a username equal to another partner's user's email is refused (409 username), in any case, and keeps nothing", async () => {
      const acme = await t.createPartner();
      const other = await t.createPartner();
      await t.users.create({
        partnerId: acme.partner_id,
        username: 'alice',
        name: 'Alice',
        email: 'alice@acme.test',
        password: 'alice-password-1',
      });
      const squat = await expectError(
        t.users.create({
          partnerId: other.partner_id,
          username: 'Alice@ACME.test',
          name: 'S',
          email: 'squatter@other.test',
          password: 'squat-password-1',
        }),
        409,
      );
      assert.deepEqual(squat.body.conflicts, ['username']);
      assert.equal(await t.holder('email', 'alice@acme.test'), await userIdOf('alice'));
      assert.equal(await t.holder('username', 'alice@acme.test'), null, 'the refused username is released');
      assert.equal(await t.holder('email', 'squatter@other.test'), null);
      assert.equal(await usersOf(other.partner_id), 0);
      // her email login goes to her own storage
      assert.equal((await login('alice@acme.test', 'alice-password-1')).username, 'alice');
      await expectError(login('alice@acme.test', 'squat-password-1'), 401);
    });

    it("squatting in advance: an email equal to another partner's user's username is refused (409 email), on create and on change", async () => {
      const early = await t.createPartner();
      const late = await t.createPartner();
      await t.users.create({
        partnerId: early.partner_id,
        username: 'bob@late.test',
        name: 'Squatter',
        email: 'squatter@early.test',
      });
      assert.equal(
        await t.holder('email', 'bob@late.test'),
        await userIdOf('bob@late.test'),
        'a username with @ holds its name as an email too',
      );
      const create = await expectError(
        t.users.create({ partnerId: late.partner_id, username: 'bob', name: 'Bob', email: 'BOB@late.test' }),
        409,
      );
      assert.deepEqual(create.body.conflicts, ['email']);
      assert.equal(await t.holder('username', 'bob'), null, 'the username taken before the clash is released');
      await t.users.create({ partnerId: late.partner_id, username: 'bob', name: 'Bob', email: 'bob@elsewhere.test' });
      const change = await expectError(
        t.users.update({ partnerId: late.partner_id, user: 'bob', changes: { email: 'bob@late.test' } }),
        409,
      );
      assert.deepEqual(change.body.conflicts, ['email']);
      assert.equal((await t.users.get({ partnerId: late.partner_id, user: 'bob' })).email, 'bob@elsewhere.test');
      assert.equal(await t.holder('email', 'bob@elsewhere.test'), await userIdOf('bob'));
      await assertConsistent(t, early.partner_id);
      await assertConsistent(t, late.partner_id);
    });

    it('a user keeps their own login names: username and email may be one name, and an email may move away from the username and back', async () => {
      const p = await t.createPartner({ features: { email_as_username: true } });
      const other = await t.createPartner();
      await t.users.create({ partnerId: p.partner_id, name: 'Me', email: 'me@self.test' });
      const id = await userIdOf('me@self.test');
      await t.users.update({ partnerId: p.partner_id, user: 'me@self.test', changes: { email: 'me2@self.test' } });
      // the old email is still the username: both its streams stay held
      assert.equal(await t.holder('email', 'me@self.test'), id);
      assert.equal(await t.holder('username', 'me@self.test'), id);
      assert.deepEqual(
        (
          await expectError(
            t.users.create({ partnerId: other.partner_id, username: 'x1', name: 'X', email: 'me@self.test' }),
            409,
          )
        ).body.conflicts,
        ['email'],
      );
      await t.users.update({ partnerId: p.partner_id, user: 'me@self.test', changes: { email: 'ME@self.test' } });
      await t.users.update({ partnerId: p.partner_id, user: 'me@self.test', changes: { email: 'me3@self.test' } });
      // me2 was only an email: both its streams are free again
      assert.equal(await t.holder('email', 'me2@self.test'), null);
      assert.equal(await t.holder('username', 'me2@self.test'), null);
      await assertConsistent(t, p.partner_id);
      // deleting frees every stream of both names
      await t.users.delete({ partnerId: p.partner_id, user: 'me@self.test' });
      for (const name of ['me@self.test', 'me3@self.test']) {
        assert.equal(await t.holder('username', name), null, `username-${name}`);
        assert.equal(await t.holder('email', name), null, `email-${name}`);
      }
    });

    it('two creates racing for one login name, as a username on one partner and an email on another: exactly one wins', async () => {
      const a = await t.createPartner();
      const b = await t.createPartner();
      for (let round = 0; round < 6; round++) {
        const name = `race${round}@contested.test`;
        const asUsername = t.users.create({
          partnerId: a.partner_id,
          username: name,
          name: 'U',
          email: `u${round}@a.test`,
        });
        const asEmail = t.users.create({ partnerId: b.partner_id, username: `e${round}`, name: 'E', email: name });
        // either may start first
        const results = await Promise.allSettled(round % 2 ? [asUsername, asEmail] : [asEmail, asUsername]);
        assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, `round ${round}: exactly one wins`);
        const refused = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
        assert.equal(refused.reason.status, 409, `round ${round}`);
        const winner = await t.holder('email', name);
        assert.ok(winner, `round ${round}: the name is held`);
        assert.ok(
          [null, winner].includes(await t.holder('username', name)),
          `round ${round}: the username stream by the winner or nobody`,
        );
      }
      await assertConsistent(t, a.partner_id);
      await assertConsistent(t, b.partner_id);
      assert.equal((await usersOf(a.partner_id)) + (await usersOf(b.partner_id)), 6);
    });

    it("data made before the rule (a username equal to another user's email): the password decides which user logs in; a password right for both is refused", async () => {
      const p1 = await t.createPartner();
      const p2 = await t.createPartner();
      await t.users.create({
        partnerId: p1.partner_id,
        username: 'carl@old.test',
        name: 'Carl',
        email: 'carl-mail@old.test',
        password: 'carl-password-1',
      });
      await t.users.create({
        partnerId: p2.partner_id,
        username: 'dora',
        name: 'Dora',
        email: 'dora-before@old.test',
        password: 'dora-password-1',
      });
      // what an older version allowed: dora's email became carl's username, with no reservation in the way
      const { position } = await appendEvents(
        t.store,
        Streams.user(await userIdOf('dora')),
        [{ type: 'UserEmailChanged', data: { email: 'carl@old.test' } }],
        'any',
      );
      await t.runner.waitFor(position);
      assert.equal((await login('carl@old.test', 'carl-password-1')).username, 'carl@old.test');
      assert.equal((await login('CARL@old.test', 'dora-password-1')).username, 'dora');
      await expectError(login('carl@old.test', 'neither-password'), 401);
      // the same password on both: nobody can tell whose storage is meant
      await t.users.update({ partnerId: p2.partner_id, user: 'dora', changes: { password: 'carl-password-1' } });
      await expectError(login('carl@old.test', 'carl-password-1'), 401);
      // each still logs in by the name that is theirs alone
      assert.equal((await login('carl-mail@old.test', 'carl-password-1')).username, 'carl@old.test');
      assert.equal((await login('dora', 'carl-password-1')).username, 'dora');
    });

    it('a username with @ made before the rule (holding only its username stream) still bars the same address as an email', async () => {
      const p1 = await t.createPartner();
      const p2 = await t.createPartner();
      await t.users.create({
        partnerId: p1.partner_id,
        username: 'eli@older.test',
        name: 'Eli',
        email: 'eli-mail@older.test',
      });
      const eli = await userIdOf('eli@older.test');
      // what an older version reserved for that username: its username stream only
      await releaseName(t.store, emailReservation('eli@older.test'), eli);
      assert.equal(await t.holder('email', 'eli@older.test'), null);
      assert.deepEqual(
        (
          await expectError(
            t.users.create({ partnerId: p2.partner_id, username: 'fay', name: 'Fay', email: 'Eli@older.test' }),
            409,
          )
        ).body.conflicts,
        ['email'],
      );
      await t.users.create({ partnerId: p2.partner_id, username: 'fay', name: 'Fay', email: 'fay@older.test' });
      assert.deepEqual(
        (
          await expectError(
            t.users.update({ partnerId: p2.partner_id, user: 'fay', changes: { email: 'eli@older.test' } }),
            409,
          )
        ).body.conflicts,
        ['email'],
      );
      assert.equal(await t.holder('email', 'eli@older.test'), null, 'nothing taken by the refused writes');
      // eli's own email may become that name
      await t.users.update({ partnerId: p1.partner_id, user: 'eli@older.test', changes: { email: 'eli@older.test' } });
      assert.equal(await t.holder('email', 'eli@older.test'), eli);
    });
  });

  describe('list', () => {
    let partnerId: string;
    let groupId: number;
    before(async () => {
      partnerId = (await t.createPartner()).partner_id;
      groupId = (await t.groups.create({ partnerId, name: 'Staff', plan_id: 2 })).group_id;
      const people: [string, string, number, number][] = [
        ['nina', 'Nina North', 1, 0],
        ['oscar', 'Oscar Oak', 2, 10],
        ['paula', 'Paula Pine', 3, 20],
        ['quinn', 'Quinn North', 1, 30],
        ['rosa', 'Rosa Reed', 2, 40],
      ];
      for (const [username, name, plan_id, bonus_bytes] of people) {
        await t.users.create({ partnerId, username, name, email: `${username}@list.example`, plan_id, bonus_bytes });
      }
      await t.users.update({ partnerId, user: 'oscar', changes: { group_id: groupId } });
      await t.users.update({ partnerId, user: 'rosa', changes: { group_id: groupId, enabled: false } });
      // someone else's users never show
      const other = (await t.createPartner()).partner_id;
      await t.users.create({
        partnerId: other,
        username: 'north-outsider',
        name: 'Nora North',
        email: 'nora@list.example',
        plan_id: 1,
      });
    });
    const names = (users: JsonText<UserRecord[]>) => users.parse().map((u) => u.username);

    it("lists the partner's users by username, with filters", async () => {
      assert.deepEqual(names(await t.users.list({ partnerId })), ['nina', 'oscar', 'paula', 'quinn', 'rosa']);
      assert.deepEqual(names(await t.users.list({ partnerId, plan_id: 1 })), ['nina', 'quinn']);
      assert.deepEqual(names(await t.users.list({ partnerId, group_id: groupId })), ['oscar', 'rosa']);
      assert.deepEqual(names(await t.users.list({ partnerId, search: 'north' })), ['nina', 'quinn']);
      assert.deepEqual(names(await t.users.list({ partnerId, search: 'PAULA@list' })), ['paula']);
      assert.deepEqual(
        names(await t.users.list({ partnerId, search: '.*' })),
        [],
        'search is literal text, not a pattern',
      );
      assert.deepEqual(await t.users.count({ partnerId, plan_id: 2 }), { user_count: 2 });
      assert.deepEqual(await t.users.count({ partnerId }), { user_count: 5 });
    });

    it('search_by compares a typed field', async () => {
      assert.deepEqual(
        names(await t.users.list({ partnerId, search_by: { field: 'bonus_bytes', op: '>=', value: 20 } })),
        ['paula', 'quinn', 'rosa'],
      );
      assert.deepEqual(
        names(await t.users.list({ partnerId, search_by: { field: 'enabled', op: '=', value: false } })),
        ['rosa'],
      );
      assert.deepEqual(names(await t.users.list({ partnerId, search_by: { field: 'plan_id', op: '<', value: 2 } })), [
        'nina',
        'quinn',
      ]);
    });

    it('order_by, limit and offset page stably', async () => {
      assert.deepEqual(names(await t.users.list({ partnerId, order_by: '-bonus_bytes' })), [
        'rosa',
        'quinn',
        'paula',
        'oscar',
        'nina',
      ]);
      assert.deepEqual(names(await t.users.list({ partnerId, order_by: 'plan_id' })), [
        'nina',
        'quinn',
        'oscar',
        'rosa',
        'paula',
      ]);
      assert.deepEqual(names(await t.users.list({ partnerId, order_by: '-username', limit: 2 })), ['rosa', 'quinn']);
      assert.deepEqual(names(await t.users.list({ partnerId, order_by: 'plan_id', offset: 1, limit: 3 })), [
        'quinn',
        'oscar',
        'rosa',
      ]);
      assert.deepEqual(names(await t.users.list({ partnerId, offset: 4 })), ['rosa']);
      assert.deepEqual((await t.users.list({ partnerId, limit: 0 })).parse(), []);
    });
  });

  describe('tenant isolation', () => {
    it("another partner's user is 404 to read, change or delete, and unchanged after trying", async () => {
      const owner = await t.createPartner();
      const intruder = await t.createPartner();
      await t.users.create({ partnerId: owner.partner_id, username: 'sam', name: 'Sam', email: 'sam@example.com' });
      const before = await t.users.get({ partnerId: owner.partner_id, user: 'sam' });

      await expectError(t.users.get({ partnerId: intruder.partner_id, user: 'sam' }), 404);
      await expectError(t.users.get({ partnerId: intruder.partner_id, user: 'sam@example.com' }), 404);
      await expectError(
        t.users.update({ partnerId: intruder.partner_id, user: 'sam', changes: { name: 'Owned', plan_id: 3 } }),
        404,
      );
      await expectError(t.users.delete({ partnerId: intruder.partner_id, user: 'sam' }), 404);
      assert.deepEqual((await t.users.list({ partnerId: intruder.partner_id })).parse(), []);

      assert.deepEqual(await t.users.get({ partnerId: owner.partner_id, user: 'sam' }), before);
      assert.equal(await t.allocated(owner.partner_id), 100 * GB);
      assert.equal(await t.allocated(intruder.partner_id), 0);
    });

    it('a user found before is read again, never remembered: changes, deletes, re-creates and other partners show at once', async () => {
      const owner = await t.createPartner();
      const other = await t.createPartner();
      await t.users.create({ partnerId: owner.partner_id, username: 'vera', name: 'Vera', email: 'vera@example.com' });
      assert.equal((await t.users.get({ partnerId: owner.partner_id, user: 'vera' })).name, 'Vera');
      // the same name asked by another partner: not the owner's user
      await expectError(t.users.get({ partnerId: other.partner_id, user: 'vera' }), 404);
      await expectError(t.users.update({ partnerId: other.partner_id, user: 'vera', changes: { name: 'Owned' } }), 404);
      // a change is read at once
      await t.users.update({ partnerId: owner.partner_id, user: 'vera', changes: { name: 'Vera B' } });
      assert.equal((await t.users.get({ partnerId: owner.partner_id, user: 'vera' })).name, 'Vera B');
      assert.equal((await t.users.get({ partnerId: owner.partner_id, user: 'VERA' })).name, 'Vera B');
      // deleted, then the name taken by another partner: the owner no longer finds it, the other does
      await t.users.delete({ partnerId: owner.partner_id, user: 'vera' });
      await expectError(t.users.get({ partnerId: owner.partner_id, user: 'vera' }), 404);
      await t.users.create({
        partnerId: other.partner_id,
        username: 'vera',
        name: 'Other Vera',
        email: 'vera@example.com',
      });
      await expectError(t.users.get({ partnerId: owner.partner_id, user: 'vera' }), 404);
      await expectError(t.users.get({ partnerId: owner.partner_id, user: 'VERA' }), 404);
      assert.equal((await t.users.get({ partnerId: other.partner_id, user: 'vera' })).name, 'Other Vera');
      // and back to the owner as a new user: the new one, not the one found first
      await t.users.delete({ partnerId: other.partner_id, user: 'vera' });
      await expectError(t.users.get({ partnerId: other.partner_id, user: 'vera' }), 404);
      await t.users.create({
        partnerId: owner.partner_id,
        username: 'vera',
        name: 'Vera C',
        email: 'vera.c@example.com',
      });
      assert.deepEqual(
        {
          name: (await t.users.get({ partnerId: owner.partner_id, user: 'vera' })).name,
          id: (await usersCollection(t.docs).findOne({ username: 'vera' }))?.partnerId,
        },
        { name: 'Vera C', id: owner.partner_id },
      );
      await expectError(t.users.get({ partnerId: other.partner_id, user: 'vera' }), 404);
    });

    it("a user cannot join another partner's group (409 group_id)", async () => {
      const a = await t.createPartner();
      const b = await t.createPartner();
      const group = await t.groups.create({ partnerId: a.partner_id, name: 'A only', plan_id: 1 });
      const error = await expectError(
        t.users.create({
          partnerId: b.partner_id,
          username: 'tom',
          name: 'Tom',
          email: 'tom@example.com',
          group_id: group.group_id,
        }),
        409,
      );
      assert.deepEqual(error.body.conflicts, ['group_id']);
      assert.equal(await t.holder('username', 'tom'), null);
    });
  });
});
