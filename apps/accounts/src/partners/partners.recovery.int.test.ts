/**
 * Crash recovery of CreatePartner: killed at a step boundary, restarted as two replicas recovering
 * at once; the partner then exists and holds its login name, or does not and the name is free.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import {
  cleanUpTestAccounts,
  committed,
  crashAt,
  expectError,
  recoverOnRestart,
  startTestAccounts,
  stepsOf,
  untilCrashed,
} from '../testing/test-context.js';

describe('partners: crash recovery', () => {
  afterEach(cleanUpTestAccounts);

  for (const point of stepsOf('CreatePartner', ['reserve-name', 'commit', 'complete'])) {
    it(`CreatePartner killed at ${point}: ${committed(point) ? 'completed' : 'undone'} on restart`, async () => {
      const crash = crashAt(point);
      const before = await startTestAccounts({ faults: crash.faults });
      await before.createPartner({ username: 'existing' });
      await untilCrashed(crash, () => before.createPartner({ username: 'Newcomer', password: 'newcomer-secret' }));
      const { t } = await recoverOnRestart(before, 'CreatePartner', point);
      try {
        if (committed(point)) {
          const found = await t.partners.find({ username: 'Newcomer' });
          assert.equal(await t.holder('partnername', 'newcomer'), found.partner_id);
          assert.equal(
            (
              await t.partners.authenticate({
                username: 'Newcomer',
                password: 'newcomer-secret',
                address: '198.51.100.7',
              })
            ).partnerId,
            found.partner_id,
          );
          const error = await expectError(t.createPartner({ username: 'newcomer' }), 409);
          assert.deepEqual(error.body.conflicts, ['username']);
        } else {
          await expectError(t.partners.find({ username: 'Newcomer' }), 404);
          await expectError(
            t.partners.authenticate({ username: 'Newcomer', password: 'newcomer-secret', address: '198.51.100.7' }),
            401,
          );
          assert.equal(await t.holder('partnername', 'newcomer'), null);
          const again = await t.createPartner({ username: 'Newcomer', password: 'newcomer-secret' });
          assert.equal(await t.holder('partnername', 'newcomer'), again.partner_id);
          assert.equal(
            (
              await t.partners.authenticate({
                username: 'Newcomer',
                password: 'newcomer-secret',
                address: '198.51.100.7',
              })
            ).partnerId,
            again.partner_id,
          );
        }
        assert.equal((await t.partners.find({ username: 'existing' })).username, 'existing');
      } finally {
        await t.close();
      }
    });
  }
});
