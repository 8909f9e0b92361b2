/**
 * The plan catalogue through its bus handlers against the embedded event store: seeded once at
 * first start, plans added by the operator with the next id, names unique (case-insensitively).
 */
import { UNLIMITED_BYTES } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_PLANS } from './default-plans.js';
import { expectError, GB, startTestAccounts, type TestAccounts } from '../testing/test-context.js';

describe('plans', () => {
  let t: TestAccounts;
  before(async () => {
    t = await startTestAccounts();
  });
  after(async () => {
    await t.close();
  });

  it('lists the seeded catalogue, numbered from 1', async () => {
    assert.deepEqual(
      await t.plans.list(),
      DEFAULT_PLANS.map((p, i) => ({ plan_id: i + 1, ...p })),
    );
    assert.equal((await t.plans.list()).at(-1)!.storage_bytes, UNLIMITED_BYTES);
  });

  it('adds a plan with the next id; it is listed and usable at once', async () => {
    const added = await t.plans.add({ name: '20 TB', storage_bytes: 20_000 * GB });
    assert.deepEqual(added, {
      plan_id: DEFAULT_PLANS.length + 1,
      name: '20 TB',
      storage_bytes: 20_000 * GB,
      promo: false,
    });
    assert.deepEqual((await t.plans.list()).at(-1), added);
    const promo = await t.plans.add({ name: 'Spring promo', storage_bytes: '300000000000', promo: 'true' });
    assert.deepEqual(promo, {
      plan_id: DEFAULT_PLANS.length + 2,
      name: 'Spring promo',
      storage_bytes: 300 * GB,
      promo: true,
    });

    const p = await t.createPartner();
    const created = await t.users.create({
      partnerId: p.partner_id,
      username: 'planner',
      name: 'P',
      email: 'planner@plans.example',
      plan_id: added.plan_id,
    });
    assert.equal(created.user.storage_bytes, 20_000 * GB);
    assert.equal(await t.allocated(p.partner_id), 20_000 * GB);
  });

  it('a duplicate name, in any case, is a 400 naming name and adds nothing', async () => {
    const before = await t.plans.list();
    const head = await t.store.headPosition();
    const error = await expectError(t.plans.add({ name: '20 tb', storage_bytes: GB }), 400);
    assert.deepEqual(error.body.fields, ['name']);
    await expectError(t.plans.add({ name: '100 GB', storage_bytes: GB }), 400);
    assert.deepEqual(await t.plans.list(), before);
    assert.equal(await t.store.headPosition(), head);
  });

  it('an invalid plan is a 400 naming the field', async () => {
    const error = await expectError(t.plans.add({ name: 'Negative', storage_bytes: -1 }), 400);
    assert.deepEqual(error.body.fields, ['storage_bytes']);
    assert.equal(
      (await t.plans.list()).some((p) => p.name === 'Negative'),
      false,
    );
  });

  it('after a restart the catalogue is rebuilt from the store and not seeded again', async () => {
    const before = await t.plans.list();
    await t.close({ keepFiles: true });
    t = await startTestAccounts({
      dir: t.dir,
      plans: [{ name: 'Only on a first start', storage_bytes: GB, promo: false }],
    });
    assert.deepEqual(await t.plans.list(), before);
  });
});
