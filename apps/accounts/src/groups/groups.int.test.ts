/**
 * Groups through their bus handlers against the embedded event store and in-memory read models:
 * names unique per partner (reservations), a plan change carries every member with it and keeps
 * the allocation ledger exact, and deleting a group moves its members or refuses.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  assertConsistent,
  expectError,
  GB,
  startTestAccounts,
  type TestAccounts,
  TEST_NOW,
} from '../testing/test-context.js';

describe('groups', () => {
  let t: TestAccounts;
  before(async () => {
    t = await startTestAccounts();
  });
  after(async () => {
    await t.close();
  });

  const memberPlans = async (partnerId: string) =>
    Object.fromEntries(
      (await t.users.list({ partnerId }))
        .parse()
        .map((u) => [u.username, { plan_id: u.plan_id, group_id: u.group_id }]),
    );

  /** Gives the user `bytes` stored on one device, as the storage catalog records it. */
  const store = async (username: string, partnerId: string, bytes: number) => {
    const userId = await t.userIdOf(username);
    const deviceId = `dev-${username}`;
    await t.storageEvents(`device-${deviceId}`, [
      {
        type: 'DeviceRegistered',
        data: { deviceId, userId, partnerId, name: 'laptop', sysplatform: 'linux', client_revision: 700, at: TEST_NOW },
      },
    ]);
    await t.storageEvents(`file-${deviceId}.big`, [
      {
        type: 'FileVersionCommitted',
        data: {
          fileId: `${deviceId}.big`,
          deviceId,
          userId,
          partnerId,
          path: 'big',
          version: 0,
          size: bytes,
          blob: 'b1',
          crc32: 0,
          mtime: TEST_NOW,
          ctime: TEST_NOW,
          at: TEST_NOW,
        },
      },
    ]);
  };

  describe('create', () => {
    it('names are unique per partner, case-insensitively; another partner may reuse one', async () => {
      const a = await t.createPartner();
      const b = await t.createPartner();
      const sales = await t.groups.create({ partnerId: a.partner_id, name: 'Sales', plan_id: 2 });
      assert.deepEqual(sales, {
        group_id: sales.group_id,
        name: 'Sales',
        plan_id: 2,
        webapi_enable: true,
        check_domain: false,
        device_policy: null,
        plan_status: 'current',
      });
      assert.deepEqual(await t.groups.get({ partnerId: a.partner_id, group_id: sales.group_id }), sales);

      const error = await expectError(t.groups.create({ partnerId: a.partner_id, name: 'SALES', plan_id: 1 }), 409);
      assert.deepEqual(error.body.conflicts, ['name']);
      const theirs = await t.groups.create({ partnerId: b.partner_id, name: 'sales', plan_id: 1, check_domain: true });
      assert.equal(theirs.group_id, sales.group_id + 1, 'the refused create took no group id');
      assert.equal(theirs.check_domain, true);

      assert.deepEqual(
        (await t.groups.list({ partnerId: a.partner_id })).map((g) => g.name),
        ['Sales'],
      );
      assert.deepEqual(
        (await t.groups.list({ partnerId: b.partner_id })).map((g) => g.name),
        ['sales'],
      );
      assert.ok(await t.groupNameHolder(a.partner_id, 'sales'));
      assert.deepEqual(await t.recovery().pending(), []);
    });

    it('an unknown plan is a 409 naming plan_id and reserves nothing', async () => {
      const p = await t.createPartner();
      const error = await expectError(t.groups.create({ partnerId: p.partner_id, name: 'Nowhere', plan_id: 99 }), 409);
      assert.deepEqual(error.body.conflicts, ['plan_id']);
      assert.equal(await t.groupNameHolder(p.partner_id, 'Nowhere'), null);
    });
  });

  describe('update', () => {
    it('a rename frees the old name and takes the new one; a clash changes nothing', async () => {
      const p = await t.createPartner();
      const g = await t.groups.create({ partnerId: p.partner_id, name: 'Ops', plan_id: 1 });
      const other = await t.groups.create({ partnerId: p.partner_id, name: 'Dev', plan_id: 1 });

      assert.equal(
        (await t.groups.update({ partnerId: p.partner_id, group_id: g.group_id, changes: { name: 'Operations' } }))
          .name,
        'Operations',
      );
      assert.equal(await t.groupNameHolder(p.partner_id, 'ops'), null);
      assert.ok(await t.groupNameHolder(p.partner_id, 'operations'));
      const reused = await t.groups.create({ partnerId: p.partner_id, name: 'Ops', plan_id: 1 });
      assert.equal(reused.name, 'Ops');

      const clash = await expectError(
        t.groups.update({
          partnerId: p.partner_id,
          group_id: other.group_id,
          changes: { name: 'operations', plan_id: 2 },
        }),
        409,
      );
      assert.deepEqual(clash.body.conflicts, ['name']);
      assert.deepEqual(
        await t.groups.get({ partnerId: p.partner_id, group_id: other.group_id }),
        other,
        'neither the name nor the plan changed',
      );
      assert.ok(await t.groupNameHolder(p.partner_id, 'dev'));

      // a change of case only keeps the reservation
      assert.equal(
        (await t.groups.update({ partnerId: p.partner_id, group_id: other.group_id, changes: { name: 'DEV' } })).name,
        'DEV',
      );
      assert.ok(await t.groupNameHolder(p.partner_id, 'dev'));
      await expectError(t.groups.create({ partnerId: p.partner_id, name: 'dev', plan_id: 1 }), 409);
      assert.deepEqual(await t.recovery().pending(), []);
    });

    it('a plan change puts every member on the new plan and keeps the ledger exact', async () => {
      const p = await t.createPartner();
      const g = await t.groups.create({ partnerId: p.partner_id, name: 'Field', plan_id: 1 });
      await t.users.create({
        partnerId: p.partner_id,
        username: 'ann',
        name: 'Ann',
        email: 'ann@groups.example',
        group_id: g.group_id,
      });
      await t.users.create({
        partnerId: p.partner_id,
        username: 'ben',
        name: 'Ben',
        email: 'ben@groups.example',
        group_id: g.group_id,
        bonus_bytes: 11,
      });
      await t.users.create({
        partnerId: p.partner_id,
        username: 'cat',
        name: 'Cat',
        email: 'cat@groups.example',
        plan_id: 3,
      });
      await t.users.update({ partnerId: p.partner_id, user: 'cat', changes: { group_id: g.group_id } });
      await t.users.create({
        partnerId: p.partner_id,
        username: 'dan',
        name: 'Dan',
        email: 'dan@groups.example',
        plan_id: 1,
      });
      assert.deepEqual(
        await memberPlans(p.partner_id),
        {
          ann: { plan_id: 1, group_id: g.group_id },
          ben: { plan_id: 1, group_id: g.group_id },
          cat: { plan_id: 1, group_id: g.group_id },
          dan: { plan_id: 1, group_id: null },
        },
        'members take the group plan when they join',
      );
      assert.equal(await t.allocated(p.partner_id), 400 * GB + 11);

      const changed = await t.groups.update({ partnerId: p.partner_id, group_id: g.group_id, changes: { plan_id: 2 } });
      assert.equal(changed.plan_id, 2);
      assert.deepEqual(await memberPlans(p.partner_id), {
        ann: { plan_id: 2, group_id: g.group_id },
        ben: { plan_id: 2, group_id: g.group_id },
        cat: { plan_id: 2, group_id: g.group_id },
        dan: { plan_id: 1, group_id: null },
      });
      assert.equal(await t.allocated(p.partner_id), 3100 * GB + 11);
      assert.deepEqual(await t.recovery().pending(), []);
    });

    it('a plan change racing members joining and being created converges: every member on the final plan', async () => {
      const p = await t.createPartner();
      const g = await t.groups.create({ partnerId: p.partner_id, name: 'Race', plan_id: 1 });
      await t.users.create({
        partnerId: p.partner_id,
        username: 'early',
        name: 'E',
        email: 'early@groups.example',
        group_id: g.group_id,
      });
      await t.users.create({
        partnerId: p.partner_id,
        username: 'joiner',
        name: 'J',
        email: 'joiner@groups.example',
        plan_id: 3,
      });
      await Promise.all([
        t.groups.update({ partnerId: p.partner_id, group_id: g.group_id, changes: { plan_id: 2 } }),
        t.users.update({ partnerId: p.partner_id, user: 'joiner', changes: { group_id: g.group_id } }),
        t.users.create({
          partnerId: p.partner_id,
          username: 'late',
          name: 'L',
          email: 'late@groups.example',
          group_id: g.group_id,
        }),
      ]);
      await t.runner.catchUp();
      assert.deepEqual(await memberPlans(p.partner_id), {
        early: { plan_id: 2, group_id: g.group_id },
        joiner: { plan_id: 2, group_id: g.group_id },
        late: { plan_id: 2, group_id: g.group_id },
      });
      assert.equal(await t.allocated(p.partner_id), 3000 * GB);
      await assertConsistent(t, p.partner_id);
    });

    it('409 avatars_over_quota when a member would be over the new plan, unless forced', async () => {
      const p = await t.createPartner();
      const g = await t.groups.create({ partnerId: p.partner_id, name: 'Heavy', plan_id: 2 });
      await t.users.create({
        partnerId: p.partner_id,
        username: 'eve',
        name: 'Eve',
        email: 'eve@groups.example',
        group_id: g.group_id,
      });
      await t.users.create({
        partnerId: p.partner_id,
        username: 'fay',
        name: 'Fay',
        email: 'fay@groups.example',
        group_id: g.group_id,
        bonus_bytes: 60 * GB,
      });
      await store('eve', p.partner_id, 150 * GB);
      await store('fay', p.partner_id, 150 * GB);
      assert.equal((await t.users.get({ partnerId: p.partner_id, user: 'eve' })).bytes_stored, 150 * GB);
      const allocated = await t.allocated(p.partner_id);

      const error = await expectError(
        t.groups.update({ partnerId: p.partner_id, group_id: g.group_id, changes: { plan_id: 1 } }),
        409,
      );
      assert.deepEqual(error.body.conflicts, ['avatars_over_quota']);
      assert.equal((await t.groups.get({ partnerId: p.partner_id, group_id: g.group_id })).plan_id, 2);
      assert.deepEqual(
        (await t.users.list({ partnerId: p.partner_id })).parse().map((u) => u.plan_id),
        [2, 2],
      );
      assert.equal(await t.allocated(p.partner_id), allocated);

      await t.groups.update({ partnerId: p.partner_id, group_id: g.group_id, changes: { plan_id: 1, force: true } });
      assert.deepEqual(
        (await t.users.list({ partnerId: p.partner_id })).parse().map((u) => u.plan_id),
        [1, 1],
      );
      assert.equal(await t.allocated(p.partner_id), 260 * GB);
    });

    it('402 when the plan change would take the allocation past the partner limit; nothing changes', async () => {
      const p = await t.createPartner({ bytes_available: 1000 * GB });
      const g = await t.groups.create({ partnerId: p.partner_id, name: 'Small', plan_id: 1 });
      await t.users.create({
        partnerId: p.partner_id,
        username: 'gus',
        name: 'Gus',
        email: 'gus@groups.example',
        group_id: g.group_id,
      });
      await t.users.create({
        partnerId: p.partner_id,
        username: 'hel',
        name: 'Hel',
        email: 'hel@groups.example',
        group_id: g.group_id,
      });
      await expectError(
        t.groups.update({ partnerId: p.partner_id, group_id: g.group_id, changes: { plan_id: 2, name: 'Big' } }),
        402,
      );
      assert.deepEqual(await t.groups.get({ partnerId: p.partner_id, group_id: g.group_id }), g);
      assert.equal(await t.groupNameHolder(p.partner_id, 'big'), null);
      assert.deepEqual(
        (await t.users.list({ partnerId: p.partner_id })).parse().map((u) => u.plan_id),
        [1, 1],
      );
      assert.equal(await t.allocated(p.partner_id), 200 * GB);
    });
  });

  describe('delete', () => {
    it('with move_to: members move to the target and its plan, the ledger follows, the name is free', async () => {
      const p = await t.createPartner();
      const from = await t.groups.create({ partnerId: p.partner_id, name: 'Old', plan_id: 1 });
      const to = await t.groups.create({ partnerId: p.partner_id, name: 'New', plan_id: 3 });
      await t.users.create({
        partnerId: p.partner_id,
        username: 'ivy',
        name: 'Ivy',
        email: 'ivy@groups.example',
        group_id: from.group_id,
      });
      await t.users.create({
        partnerId: p.partner_id,
        username: 'jon',
        name: 'Jon',
        email: 'jon@groups.example',
        group_id: from.group_id,
        bonus_bytes: 1,
      });
      await t.users.create({
        partnerId: p.partner_id,
        username: 'kai',
        name: 'Kai',
        email: 'kai@groups.example',
        group_id: to.group_id,
      });
      assert.equal(await t.allocated(p.partner_id), 5200 * GB + 1);

      assert.equal(
        await t.groups.delete({ partnerId: p.partner_id, group_id: from.group_id, move_to: to.group_id }),
        null,
      );
      await expectError(t.groups.get({ partnerId: p.partner_id, group_id: from.group_id }), 404);
      assert.deepEqual(await memberPlans(p.partner_id), {
        ivy: { plan_id: 3, group_id: to.group_id },
        jon: { plan_id: 3, group_id: to.group_id },
        kai: { plan_id: 3, group_id: to.group_id },
      });
      assert.equal(await t.allocated(p.partner_id), 15000 * GB + 1);
      assert.equal(await t.groupNameHolder(p.partner_id, 'old'), null);
      assert.equal((await t.groups.create({ partnerId: p.partner_id, name: 'Old', plan_id: 1 })).name, 'Old');
      assert.deepEqual(await t.recovery().pending(), []);
    });

    it('without move_to: 409 naming move_to while the group has members; an empty group goes', async () => {
      const p = await t.createPartner();
      const g = await t.groups.create({ partnerId: p.partner_id, name: 'Busy', plan_id: 1 });
      await t.users.create({
        partnerId: p.partner_id,
        username: 'lou',
        name: 'Lou',
        email: 'lou@groups.example',
        group_id: g.group_id,
      });
      const error = await expectError(t.groups.delete({ partnerId: p.partner_id, group_id: g.group_id }), 409);
      assert.deepEqual(error.body.conflicts, ['move_to']);
      assert.equal((await t.groups.get({ partnerId: p.partner_id, group_id: g.group_id })).name, 'Busy');
      assert.ok(await t.groupNameHolder(p.partner_id, 'busy'));

      await expectError(t.groups.delete({ partnerId: p.partner_id, group_id: g.group_id, move_to: g.group_id }), 400);
      await expectError(t.groups.delete({ partnerId: p.partner_id, group_id: g.group_id, move_to: 999_999 }), 400);

      await t.users.update({ partnerId: p.partner_id, user: 'lou', changes: { group_id: null } });
      await t.groups.delete({ partnerId: p.partner_id, group_id: g.group_id });
      await expectError(t.groups.get({ partnerId: p.partner_id, group_id: g.group_id }), 404);
      assert.equal(await t.groupNameHolder(p.partner_id, 'busy'), null);
      assert.deepEqual(await memberPlans(p.partner_id), { lou: { plan_id: 1, group_id: null } });
    });
  });

  describe('tenant isolation', () => {
    it("another partner's group is 404, and cannot be a move_to target", async () => {
      const owner = await t.createPartner();
      const intruder = await t.createPartner();
      const theirs = await t.groups.create({ partnerId: owner.partner_id, name: 'Private', plan_id: 1 });
      const mine = await t.groups.create({ partnerId: intruder.partner_id, name: 'Mine', plan_id: 1 });
      await expectError(t.groups.get({ partnerId: intruder.partner_id, group_id: theirs.group_id }), 404);
      await expectError(
        t.groups.update({ partnerId: intruder.partner_id, group_id: theirs.group_id, changes: { name: 'Taken' } }),
        404,
      );
      await expectError(t.groups.delete({ partnerId: intruder.partner_id, group_id: theirs.group_id }), 404);
      await expectError(
        t.groups.delete({ partnerId: intruder.partner_id, group_id: mine.group_id, move_to: theirs.group_id }),
        400,
      );
      assert.deepEqual(await t.groups.get({ partnerId: owner.partner_id, group_id: theirs.group_id }), theirs);
      assert.deepEqual(
        (await t.groups.list({ partnerId: intruder.partner_id })).map((g) => g.name),
        ['Mine'],
      );
    });
  });
});
