/**
 * Crash recovery of the user writes (CreateUser, ChangeUser, DeleteUser). For every step boundary
 * the request is stopped for good there (the fault hook never returns: kill -9 as the store sees
 * it), the service restarts on the same files as two replicas that both run recovery at once, and
 * the outcome is all or nothing: the write happened completely (names held, ledger moved exactly
 * once) or not at all (names free and reusable, ledger total as before). A last group of tests
 * pauses a request instead of killing it and lets it go on after recovery settled its process.
 */
import { Streams } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import {
  assertConsistent,
  cleanUpTestAccounts,
  committed,
  crashAt,
  expectError,
  GB,
  type NewPartner,
  recoverOnRestart,
  startTestAccounts,
  stepsOf,
  type TestAccounts,
  untilCrashed,
} from '../testing/test-context.js';

/** The ledger entries a process made and undid. */
async function ledgerEntriesOf(t: TestAccounts, partnerId: string, processId: string) {
  const entries = await t.store.readStream(Streams.allocation(partnerId));
  return {
    made: entries.filter((e) => e.data.ref === processId).length,
    undone: entries.filter((e) => e.data.ref === `undo:${processId}`).length,
  };
}

/** A partner with a limit and one user already allocated, on a context whose faults `crash` controls. */
async function setUp(crash: ReturnType<typeof crashAt>): Promise<{ t: TestAccounts; p: NewPartner; baseline: number }> {
  const t = await startTestAccounts({ faults: crash.faults });
  const p = await t.createPartner({ bytes_available: 2000 * GB });
  await t.users.create({
    partnerId: p.partner_id,
    username: 'resident',
    name: 'Resident',
    email: 'resident@example.com',
    plan_id: 1,
  });
  return { t, p, baseline: await t.allocated(p.partner_id) };
}

describe('users: crash recovery', () => {
  afterEach(cleanUpTestAccounts);

  describe('CreateUser', () => {
    // a username with @ runs every step: it is held as an email too (one login namespace)
    const steps = ['reserve-username', 'reserve-username-as-email', 'reserve-email', 'allocate', 'commit', 'complete'];
    for (const point of stepsOf('CreateUser', steps)) {
      it(`killed at ${point}: ${committed(point) ? 'completed' : 'undone'} on restart`, async () => {
        const crash = crashAt(point);
        const { t: before, p, baseline } = await setUp(crash);
        const request = {
          partnerId: p.partner_id,
          username: 'victim@example.org',
          name: 'Victim',
          email: 'victim@example.com',
          plan_id: 1,
          bonus_bytes: 7,
        };
        await untilCrashed(crash, () => before.users.create(request));
        const { t, processId } = await recoverOnRestart(before, 'CreateUser', point);
        const names = [
          ['username', 'victim@example.org'],
          ['email', 'victim@example.org'],
          ['email', 'victim@example.com'],
        ] as const;
        try {
          if (committed(point)) {
            const user = await t.users.get({ partnerId: p.partner_id, user: 'victim@example.org' });
            assert.deepEqual([user.email, user.plan_id, user.bonus_bytes], ['victim@example.com', 1, 7]);
            const id = await t.userIdOf('victim@example.org');
            for (const [kind, name] of names) assert.equal(await t.holder(kind, name), id, `${kind}-${name}`);
            assert.equal(await t.allocated(p.partner_id), baseline + 100 * GB + 7);
            assert.deepEqual(await ledgerEntriesOf(t, p.partner_id, processId), { made: 1, undone: 0 });
            await expectError(t.users.create({ ...request, email: 'other@example.com' }), 409);
          } else {
            await expectError(t.users.get({ partnerId: p.partner_id, user: 'victim@example.org' }), 404);
            for (const [kind, name] of names) assert.equal(await t.holder(kind, name), null, `${kind}-${name}`);
            assert.equal(await t.allocated(p.partner_id), baseline);
            const { made, undone } = await ledgerEntriesOf(t, p.partner_id, processId);
            assert.equal(made, undone, 'an entry made is undone, once');
            assert.equal(made, point === 'CreateUser:allocate:after' || point === 'CreateUser:commit:before' ? 1 : 0);
            // the same user can be created now
            const again = await t.users.create(request);
            assert.equal(again.user.username, 'victim@example.org');
            assert.equal(await t.allocated(p.partner_id), baseline + 100 * GB + 7);
          }
          await assertConsistent(t, p.partner_id);
        } finally {
          await t.close();
        }
      });
    }
  });

  describe('ChangeUser (email and plan)', () => {
    for (const point of stepsOf('ChangeUser', ['reserve-email', 'allocate', 'commit', 'complete'])) {
      it(`killed at ${point}: ${committed(point) ? 'completed' : 'undone'} on restart`, async () => {
        const crash = crashAt(point);
        const { t: before, p, baseline } = await setUp(crash);
        const id = await before.userIdOf('resident');
        await untilCrashed(crash, () =>
          before.users.update({
            partnerId: p.partner_id,
            user: 'resident',
            changes: { email: 'moved@example.com', plan_id: 2 },
          }),
        );
        const { t } = await recoverOnRestart(before, 'ChangeUser', point);
        try {
          const user = await t.users.get({ partnerId: p.partner_id, user: 'resident' });
          if (committed(point)) {
            assert.deepEqual([user.email, user.plan_id], ['moved@example.com', 2]);
            assert.equal(await t.holder('email', 'moved@example.com'), id);
            assert.equal(await t.holder('email', 'resident@example.com'), null);
            assert.equal(await t.allocated(p.partner_id), baseline + 900 * GB);
          } else {
            assert.deepEqual([user.email, user.plan_id], ['resident@example.com', 1]);
            assert.equal(await t.holder('email', 'resident@example.com'), id);
            assert.equal(await t.holder('email', 'moved@example.com'), null);
            assert.equal(await t.allocated(p.partner_id), baseline);
            // nothing left over stands in the way of the same change
            await t.users.update({
              partnerId: p.partner_id,
              user: 'resident',
              changes: { email: 'moved@example.com', plan_id: 2 },
            });
            assert.equal(await t.allocated(p.partner_id), baseline + 900 * GB);
          }
          await assertConsistent(t, p.partner_id);
        } finally {
          await t.close();
        }
      });
    }
  });

  describe('DeleteUser', () => {
    for (const point of stepsOf('DeleteUser', ['commit', 'complete'])) {
      it(`killed at ${point}: ${committed(point) ? 'completed' : 'undone'} on restart`, async () => {
        const crash = crashAt(point);
        const { t: before, p, baseline } = await setUp(crash);
        await before.users.create({
          partnerId: p.partner_id,
          username: 'leaver',
          name: 'Leaver',
          email: 'leaver@example.com',
          plan_id: 2,
          bonus_bytes: 3,
        });
        const id = await before.userIdOf('leaver');
        await untilCrashed(crash, () => before.users.delete({ partnerId: p.partner_id, user: 'leaver' }));
        const { t } = await recoverOnRestart(before, 'DeleteUser', point);
        try {
          if (committed(point)) {
            await expectError(t.users.get({ partnerId: p.partner_id, user: 'leaver' }), 404);
            assert.equal(await t.holder('username', 'leaver'), null);
            assert.equal(await t.holder('email', 'leaver@example.com'), null);
            assert.equal(await t.allocated(p.partner_id), baseline);
            await t.users.create({
              partnerId: p.partner_id,
              username: 'leaver',
              name: 'New',
              email: 'leaver@example.com',
            });
          } else {
            assert.equal((await t.users.get({ partnerId: p.partner_id, user: 'leaver' })).plan_id, 2);
            assert.equal(await t.holder('username', 'leaver'), id);
            assert.equal(await t.allocated(p.partner_id), baseline + 1000 * GB + 3);
            await t.users.delete({ partnerId: p.partner_id, user: 'leaver' });
            assert.equal(await t.allocated(p.partner_id), baseline);
          }
          await assertConsistent(t, p.partner_id);
        } finally {
          await t.close();
        }
      });
    }
  });

  describe('a request paused (not killed) past the grace period, then resumed', () => {
    for (const point of ['CreateUser:reserve-username:after', 'CreateUser:allocate:after', 'CreateUser:commit:before'])
      it(`CreateUser paused at ${point}: recovery undoes it, and the resumed request fails with 503 leaving nothing`, async () => {
        const crash = crashAt(point);
        const { t, p, baseline } = await setUp(crash);
        try {
          const { request } = await untilCrashed(crash, () =>
            t.users.create({ partnerId: p.partner_id, username: 'sleeper', name: 'S', email: 'sleeper@example.com' }),
          );
          await t.runner.catchUp();
          assert.equal((await t.recovery(0).run()).compensated.length, 1);
          crash.resume();
          await expectError(request, 503);
          await expectError(t.users.get({ partnerId: p.partner_id, user: 'sleeper' }), 404);
          assert.equal(await t.holder('username', 'sleeper'), null);
          assert.equal(await t.allocated(p.partner_id), baseline);
          await assertConsistent(t, p.partner_id);
        } finally {
          await t.close();
        }
      });

    for (const point of ['ChangeUser:allocate:after', 'ChangeUser:commit:before']) {
      it(`ChangeUser paused at ${point}: after recovery undid its steps, the resumed request cannot commit them half-done`, async () => {
        const crash = crashAt(point);
        const { t, p, baseline } = await setUp(crash);
        try {
          const { request } = await untilCrashed(crash, () =>
            t.users.update({
              partnerId: p.partner_id,
              user: 'resident',
              changes: { email: 'woke@example.com', plan_id: 2 },
            }),
          );
          await t.runner.catchUp();
          assert.equal((await t.recovery(0).run()).compensated.length, 1);
          assert.equal(await t.allocated(p.partner_id), baseline);
          crash.resume();
          // either outcome is acceptable, a half-done one is not
          const outcome = await request.then(
            () => 'changed',
            () => 'refused',
          );
          const user = await t.users.get({ partnerId: p.partner_id, user: 'resident' });
          if (outcome === 'changed') assert.deepEqual([user.email, user.plan_id], ['woke@example.com', 2]);
          else assert.deepEqual([user.email, user.plan_id], ['resident@example.com', 1]);
          await assertConsistent(t, p.partner_id);
        } finally {
          await t.close();
        }
      });
    }
  });
});
