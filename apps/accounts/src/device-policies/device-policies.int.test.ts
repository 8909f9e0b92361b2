/**
 * Device policies through their bus handlers against the embedded event store and in-memory read
 * models: read-your-writes, inheritance and its effective values, the refusals (cycles, a parent
 * in use, a policy a group uses), concurrent changes that together would make a cycle, groups'
 * device_policy, tenant isolation, and a restart rebuilding the read model.
 */
import { PREFERENCE_DEFAULTS } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, restart, startTestAccounts, type TestAccounts } from '../testing/test-context.js';

describe('device policies', () => {
  let t: TestAccounts;
  before(async () => {
    t = await startTestAccounts();
  });
  after(async () => {
    await t.close();
  });

  it('creates, reads back at once, and resolves inheritance into effective_policy', async () => {
    const { partner_id: partnerId } = await t.createPartner();
    const base = await t.devicePolicies.create({
      partnerId,
      name: 'Base',
      policy: { lan_sync: false, backup_schedule: 'daily' },
    });
    assert.deepEqual(await t.devicePolicies.get({ partnerId, id: base.id }), base);
    const laptops = await t.devicePolicies.create({
      partnerId,
      name: 'Laptops',
      inherits_from: base.id,
      policy: { backup_on_battery: false },
    });
    assert.equal(laptops.id, base.id + 1, 'sequential ids from the counter');
    assert.deepEqual(laptops.policy, { backup_on_battery: false });
    assert.deepEqual(laptops.effective_policy, {
      ...PREFERENCE_DEFAULTS,
      lan_sync: false,
      backup_schedule: 'daily',
      backup_on_battery: false,
    });
    // a change to the parent shows in the child at once
    await t.devicePolicies.update({ partnerId, id: base.id, changes: { policy: { backup_schedule: 'weekly' } } });
    const child = await t.devicePolicies.get({ partnerId, id: laptops.id });
    assert.equal(child.effective_policy.backup_schedule, 'weekly');
    assert.equal(
      child.effective_policy.lan_sync,
      true,
      'the parent replaced its values whole: lan_sync is back to its default',
    );
    assert.deepEqual(
      (await t.devicePolicies.list({ partnerId })).map((p) => p.name),
      ['Base', 'Laptops'],
    );
  });

  it('refuses cycles, unknown parents and duplicate names; deletes a parent only once nothing inherits from it', async () => {
    const { partner_id: partnerId } = await t.createPartner();
    const a = await t.devicePolicies.create({ partnerId, name: 'A' });
    const b = await t.devicePolicies.create({ partnerId, name: 'B', inherits_from: a.id });
    const conflicts = async (p: Promise<unknown>, ...tokens: string[]) =>
      assert.deepEqual((await expectError(p, 409)).body.conflicts, tokens);
    await conflicts(
      t.devicePolicies.update({ partnerId, id: a.id, changes: { inherits_from: b.id } }),
      'inherits_from',
    );
    await conflicts(
      t.devicePolicies.update({ partnerId, id: a.id, changes: { inherits_from: a.id } }),
      'inherits_from',
    );
    await conflicts(t.devicePolicies.create({ partnerId, name: 'C', inherits_from: 999_999 }), 'inherits_from');
    await conflicts(t.devicePolicies.create({ partnerId, name: 'b' }), 'name');
    await conflicts(t.devicePolicies.delete({ partnerId, id: a.id }), 'policy_id', 'inherits_from');
    // a refused change changed nothing (the rename in the same request included)
    await conflicts(
      t.devicePolicies.update({ partnerId, id: a.id, changes: { name: 'A2', inherits_from: b.id } }),
      'inherits_from',
    );
    assert.equal((await t.devicePolicies.get({ partnerId, id: a.id })).name, 'A');

    await t.devicePolicies.update({ partnerId, id: b.id, changes: { inherits_from: null } });
    assert.equal(await t.devicePolicies.delete({ partnerId, id: a.id }), null);
    await expectError(t.devicePolicies.get({ partnerId, id: a.id }), 404);
    await expectError(t.devicePolicies.delete({ partnerId, id: a.id }), 404);
  });

  it('two concurrent changes that together would make a cycle: exactly one is refused', async () => {
    const { partner_id: partnerId } = await t.createPartner();
    const a = await t.devicePolicies.create({ partnerId, name: 'A' });
    const b = await t.devicePolicies.create({ partnerId, name: 'B' });
    const results = await Promise.allSettled([
      t.devicePolicies.update({ partnerId, id: a.id, changes: { inherits_from: b.id } }),
      t.devicePolicies.update({ partnerId, id: b.id, changes: { inherits_from: a.id } }),
    ]);
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    const [pa, pb] = [
      await t.devicePolicies.get({ partnerId, id: a.id }),
      await t.devicePolicies.get({ partnerId, id: b.id }),
    ];
    assert.ok((pa.inherits_from === b.id) !== (pb.inherits_from === a.id), 'one link, not two');
  });

  it('groups take a device_policy of their partner (409 otherwise), and a policy in use cannot be deleted', async () => {
    const { partner_id: partnerId } = await t.createPartner();
    const other = await t.createPartner();
    const policy = await t.devicePolicies.create({ partnerId, name: 'Office' });
    const foreign = await t.devicePolicies.create({ partnerId: other.partner_id, name: 'Theirs' });
    const group = await t.groups.create({ partnerId, name: 'Staff', plan_id: 2, device_policy: policy.id });
    assert.equal(group.device_policy, policy.id);
    assert.deepEqual(
      (await expectError(t.groups.create({ partnerId, name: 'Other', plan_id: 2, device_policy: foreign.id }), 409))
        .body.conflicts,
      ['device_policy'],
    );
    assert.deepEqual(
      (
        await expectError(
          t.groups.update({ partnerId, group_id: group.group_id, changes: { device_policy: 999_999 } }),
          409,
        )
      ).body.conflicts,
      ['device_policy'],
    );

    assert.deepEqual((await expectError(t.devicePolicies.delete({ partnerId, id: policy.id }), 409)).body.conflicts, [
      'policy_id',
      'device_policy',
    ]);
    const cleared = await t.groups.update({ partnerId, group_id: group.group_id, changes: { device_policy: null } });
    assert.equal(cleared.device_policy, null);
    assert.equal(await t.devicePolicies.delete({ partnerId, id: policy.id }), null);
  });

  it("another partner's policy is a 404 for every operation, and absent from its list", async () => {
    const a = await t.createPartner();
    const b = await t.createPartner();
    const mine = await t.devicePolicies.create({ partnerId: a.partner_id, name: 'Mine' });
    await expectError(t.devicePolicies.get({ partnerId: b.partner_id, id: mine.id }), 404);
    await expectError(
      t.devicePolicies.update({ partnerId: b.partner_id, id: mine.id, changes: { name: 'Stolen' } }),
      404,
    );
    await expectError(t.devicePolicies.delete({ partnerId: b.partner_id, id: mine.id }), 404);
    // nor can b inherit from it, or take its name as a conflict
    assert.deepEqual(
      (
        await expectError(
          t.devicePolicies.create({ partnerId: b.partner_id, name: 'Child', inherits_from: mine.id }),
          409,
        )
      ).body.conflicts,
      ['inherits_from'],
    );
    await t.devicePolicies.create({ partnerId: b.partner_id, name: 'Mine' });
    assert.deepEqual(
      (await t.devicePolicies.list({ partnerId: b.partner_id })).map((p) => p.name),
      ['Mine'],
    );
    assert.equal((await t.devicePolicies.get({ partnerId: a.partner_id, id: mine.id })).name, 'Mine');
  });

  it('a restart rebuilds the read model from the events', async () => {
    const { partner_id: partnerId } = await t.createPartner();
    const p = await t.devicePolicies.create({ partnerId, name: 'Kept', policy: { excluded_file_types: ['iso'] } });
    await t.devicePolicies.update({ partnerId, id: p.id, changes: { name: 'Renamed' } });
    const before = await t.devicePolicies.list({ partnerId });
    [t] = await restart(t);
    assert.deepEqual(await t.devicePolicies.list({ partnerId }), before);
  });
});
