/**
 * Crash recovery of the group writes (CreateGroup, UpdateGroup, DeleteGroup): killed at a step
 * boundary, restarted as two replicas recovering at once, and the write happened completely or not
 * at all: the group's name held exactly while it has it, members on the group's plan, the
 * allocation ledger exact. The last tests pause a request instead and let it go on afterwards.
 */
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

/** Every live group's name is held, and every member is on its group's plan. */
async function assertGroupsConsistent(t: TestAccounts, partnerId: string): Promise<void> {
  await assertConsistent(t, partnerId);
  for (const group of await t.groups.list({ partnerId })) {
    assert.ok(await t.groupNameHolder(partnerId, group.name), `the name of group ${group.name} is held`);
    for (const member of (await t.users.list({ partnerId, group_id: group.group_id })).parse()) {
      assert.equal(member.plan_id, group.plan_id, `${member.username} is on the plan of ${group.name}`);
    }
  }
}

const groupNamed = async (t: TestAccounts, partnerId: string, name: string) =>
  (await t.groups.list({ partnerId })).find((g) => g.name === name);

/** A partner with a group "Team" (plan 1) of two members, on a context whose faults `crash` controls. */
async function setUp(crash: ReturnType<typeof crashAt>): Promise<{ t: TestAccounts; p: NewPartner; team: number }> {
  const t = await startTestAccounts({ faults: crash.faults });
  const p = await t.createPartner({ bytes_available: 20_000 * GB });
  const team = (await t.groups.create({ partnerId: p.partner_id, name: 'Team', plan_id: 1 })).group_id;
  await t.users.create({
    partnerId: p.partner_id,
    username: 'member1',
    name: 'M1',
    email: 'm1@example.com',
    group_id: team,
  });
  await t.users.create({
    partnerId: p.partner_id,
    username: 'member2',
    name: 'M2',
    email: 'm2@example.com',
    group_id: team,
    bonus_bytes: 9,
  });
  return { t, p, team };
}

describe('groups: crash recovery', () => {
  afterEach(cleanUpTestAccounts);

  describe('CreateGroup', () => {
    for (const point of stepsOf('CreateGroup', ['reserve-name', 'allocate-id', 'commit', 'complete'])) {
      it(`killed at ${point}: ${committed(point) ? 'completed' : 'undone'} on restart`, async () => {
        const crash = crashAt(point);
        const { t: before, p } = await setUp(crash);
        await untilCrashed(crash, () =>
          before.groups.create({ partnerId: p.partner_id, name: 'Night shift', plan_id: 2 }),
        );
        const { t } = await recoverOnRestart(before, 'CreateGroup', point);
        try {
          if (committed(point)) {
            assert.equal((await groupNamed(t, p.partner_id, 'Night shift'))?.plan_id, 2);
            const error = await expectError(
              t.groups.create({ partnerId: p.partner_id, name: 'night SHIFT', plan_id: 1 }),
              409,
            );
            assert.deepEqual(error.body.conflicts, ['name']);
          } else {
            assert.equal(await groupNamed(t, p.partner_id, 'Night shift'), undefined);
            assert.equal(await t.groupNameHolder(p.partner_id, 'night shift'), null);
            const again = await t.groups.create({ partnerId: p.partner_id, name: 'Night shift', plan_id: 2 });
            assert.deepEqual(await t.groups.get({ partnerId: p.partner_id, group_id: again.group_id }), again);
          }
          assert.deepEqual(
            (await t.groups.list({ partnerId: p.partner_id })).map((g) => g.name),
            ['Team', 'Night shift'],
          );
          await assertGroupsConsistent(t, p.partner_id);
        } finally {
          await t.close();
        }
      });
    }
  });

  describe('UpdateGroup (rename and plan change)', () => {
    for (const point of stepsOf('UpdateGroup', ['reserve-name', 'commit', 'complete'])) {
      it(`killed at ${point}: ${committed(point) ? 'completed' : 'undone'} on restart`, async () => {
        const crash = crashAt(point);
        const { t: before, p, team } = await setUp(crash);
        await untilCrashed(crash, () =>
          before.groups.update({ partnerId: p.partner_id, group_id: team, changes: { name: 'Crew', plan_id: 2 } }),
        );
        const { t } = await recoverOnRestart(before, 'UpdateGroup', point);
        try {
          const group = await t.groups.get({ partnerId: p.partner_id, group_id: team });
          const plans = (await t.users.list({ partnerId: p.partner_id, group_id: team })).parse().map((u) => u.plan_id);
          if (committed(point)) {
            assert.deepEqual([group.name, group.plan_id, plans], ['Crew', 2, [2, 2]]);
            assert.equal(await t.groupNameHolder(p.partner_id, 'team'), null);
            assert.equal(await t.allocated(p.partner_id), 2000 * GB + 9);
          } else {
            assert.deepEqual([group.name, group.plan_id, plans], ['Team', 1, [1, 1]]);
            assert.equal(await t.groupNameHolder(p.partner_id, 'crew'), null);
            assert.equal(await t.allocated(p.partner_id), 200 * GB + 9);
          }
          await assertGroupsConsistent(t, p.partner_id);
        } finally {
          await t.close();
        }
      });
    }
  });

  describe('DeleteGroup with move_to', () => {
    for (const point of stepsOf('DeleteGroup', ['commit', 'complete'])) {
      it(`killed at ${point}: ${committed(point) ? 'completed' : 'undone'} on restart`, async () => {
        const crash = crashAt(point);
        const { t: before, p, team } = await setUp(crash);
        const target = (await before.groups.create({ partnerId: p.partner_id, name: 'Target', plan_id: 3 })).group_id;
        await untilCrashed(crash, () =>
          before.groups.delete({ partnerId: p.partner_id, group_id: team, move_to: target }),
        );
        const { t } = await recoverOnRestart(before, 'DeleteGroup', point);
        try {
          const members = (await t.users.list({ partnerId: p.partner_id }))
            .parse()
            .map((u) => [u.username, u.group_id, u.plan_id]);
          if (committed(point)) {
            await expectError(t.groups.get({ partnerId: p.partner_id, group_id: team }), 404);
            assert.deepEqual(members, [
              ['member1', target, 3],
              ['member2', target, 3],
            ]);
            assert.equal(await t.groupNameHolder(p.partner_id, 'team'), null);
            assert.equal(await t.allocated(p.partner_id), 10_000 * GB + 9);
            await t.groups.create({ partnerId: p.partner_id, name: 'Team', plan_id: 1 });
          } else {
            assert.equal((await t.groups.get({ partnerId: p.partner_id, group_id: team })).name, 'Team');
            assert.deepEqual(members, [
              ['member1', team, 1],
              ['member2', team, 1],
            ]);
            assert.equal(await t.allocated(p.partner_id), 200 * GB + 9);
          }
          await assertGroupsConsistent(t, p.partner_id);
        } finally {
          await t.close();
        }
      });
    }
  });

  describe('a request paused (not killed) past the grace period, then resumed', () => {
    for (const point of [
      'CreateGroup:reserve-name:after',
      'CreateGroup:allocate-id:after',
      'CreateGroup:commit:before',
    ]) {
      it(`CreateGroup paused at ${point}: recovery undoes it, and the resumed request fails with 503 leaving nothing`, async () => {
        const crash = crashAt(point);
        const { t, p } = await setUp(crash);
        try {
          const { request } = await untilCrashed(crash, () =>
            t.groups.create({ partnerId: p.partner_id, name: 'Crew', plan_id: 2 }),
          );
          await t.runner.catchUp();
          assert.equal((await t.recovery(0).run()).compensated.length, 1);
          assert.equal(await t.groupNameHolder(p.partner_id, 'crew'), null);
          crash.resume();
          await expectError(request, 503);
          await t.runner.catchUp();
          assert.deepEqual(
            (await t.groups.list({ partnerId: p.partner_id })).map((g) => g.name),
            ['Team'],
          );
          assert.equal(await t.groupNameHolder(p.partner_id, 'crew'), null);
          await assertGroupsConsistent(t, p.partner_id);
          await t.groups.create({ partnerId: p.partner_id, name: 'Crew', plan_id: 1 });
        } finally {
          await t.close();
        }
      });
    }

    for (const point of ['UpdateGroup:reserve-name:after', 'UpdateGroup:commit:before']) {
      it(`UpdateGroup paused at ${point}: after recovery undid its steps, the resumed rename starts again and holds its name`, async () => {
        const crash = crashAt(point);
        const { t, p, team } = await setUp(crash);
        try {
          const { request } = await untilCrashed(crash, () =>
            t.groups.update({ partnerId: p.partner_id, group_id: team, changes: { name: 'Crew', plan_id: 2 } }),
          );
          await t.runner.catchUp();
          assert.equal((await t.recovery(0).run()).compensated.length, 1);
          assert.equal(await t.groupNameHolder(p.partner_id, 'crew'), null);
          crash.resume();
          const group = await request;
          assert.deepEqual([group.name, group.plan_id], ['Crew', 2]);
          assert.ok(await t.groupNameHolder(p.partner_id, 'crew'));
          assert.equal(await t.groupNameHolder(p.partner_id, 'team'), null);
          await assertGroupsConsistent(t, p.partner_id);
          await expectError(t.groups.create({ partnerId: p.partner_id, name: 'crew', plan_id: 1 }), 409);
        } finally {
          await t.close();
        }
      });
    }
  });
});
