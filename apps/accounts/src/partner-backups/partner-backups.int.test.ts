/**
 * Appliance backups through their bus handlers: none stored is null, the latest wins at once
 * (read-your-writes), only the most recent PARTNER_BACKUPS_KEPT stay readable, a retried store adds
 * nothing, partners see only their own, and a restart rebuilds the read model.
 */
import { PARTNER_BACKUPS_KEPT } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { expectError, restart, startTestAccounts, type TestAccounts, TEST_NOW } from '../testing/test-context.js';

const blobOf = (text: string) => createHash('sha256').update(text).digest('hex');

describe('partner backups', () => {
  let t: TestAccounts;
  before(async () => {
    t = await startTestAccounts();
  });
  after(async () => {
    await t.close();
  });

  it('none stored is null; each store is readable at once; the last few versions are kept, newest first', async () => {
    const { partner_id: partnerId } = await t.createPartner();
    assert.equal(await t.partnerBackups.get({ partnerId }), null);
    assert.deepEqual(await t.partnerBackups.list({ partnerId }), []);
    const blobs = Array.from({ length: PARTNER_BACKUPS_KEPT + 2 }, (_, i) => blobOf(`backup ${i}`));
    for (const [i, blob] of blobs.entries()) {
      const stored = await t.partnerBackups.store({ partnerId, blob, size: 100 + i });
      assert.deepEqual(stored, { sha256: blob, size: 100 + i, stored_at: TEST_NOW });
      assert.equal((await t.partnerBackups.get({ partnerId }))?.blob, blob);
    }
    const kept = blobs.slice(-PARTNER_BACKUPS_KEPT).reverse();
    assert.deepEqual(
      (await t.partnerBackups.list({ partnerId })).map((v) => v.sha256),
      kept,
    );
    assert.equal((await t.partnerBackups.get({ partnerId, sha256: kept[2].toUpperCase() }))?.blob, kept[2]);
    await expectError(t.partnerBackups.get({ partnerId, sha256: blobs[0] }), 404);

    // the same data again (a retried POST) adds no version
    await t.partnerBackups.store({ partnerId, blob: kept[0], size: 1 });
    assert.deepEqual(
      (await t.partnerBackups.list({ partnerId })).map((v) => v.sha256),
      kept,
    );

    [t] = await restart(t);
    assert.deepEqual(
      (await t.partnerBackups.list({ partnerId })).map((v) => v.sha256),
      kept,
    );
  });

  it('a partner sees only its own backups', async () => {
    const a = await t.createPartner();
    const b = await t.createPartner();
    const blob = blobOf('a secret configuration');
    await t.partnerBackups.store({ partnerId: a.partner_id, blob, size: 22 });
    assert.equal(await t.partnerBackups.get({ partnerId: b.partner_id }), null);
    await expectError(t.partnerBackups.get({ partnerId: b.partner_id, sha256: blob }), 404);
    assert.deepEqual(await t.partnerBackups.list({ partnerId: b.partner_id }), []);
    await expectError(t.partnerBackups.store({ partnerId: 'no-such-partner', blob, size: 22 }), 404);
  });
});
