import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  autopurgeCutoff,
  DAY_SECONDS,
  DEFAULT_PURGE_POLICY,
  partnerOnHold,
  type PurgePolicy,
  versionpurgeCutoff,
} from './purge-rules.js';

const NOW = 1_800_000_000;
const policy = (p: Partial<PurgePolicy>): PurgePolicy => ({ ...DEFAULT_PURGE_POLICY, ...p });

describe('purge rules', () => {
  it('the defaults purge nothing by age and hold nothing', () => {
    assert.equal(autopurgeCutoff(DEFAULT_PURGE_POLICY, NOW), null);
    assert.equal(versionpurgeCutoff(DEFAULT_PURGE_POLICY, NOW), null);
    assert.equal(partnerOnHold({ ...DEFAULT_PURGE_POLICY, last_deletion_at: NOW }, NOW), false);
  });

  it('autopurge_interval and versionpurge_interval are days; 0 and null turn them off', () => {
    assert.equal(autopurgeCutoff(policy({ autopurge_interval: 30 }), NOW), NOW - 30 * DAY_SECONDS);
    assert.equal(versionpurgeCutoff(policy({ versionpurge_interval: 7 }), NOW), NOW - 7 * DAY_SECONDS);
    for (const off of [0, null, -1]) {
      assert.equal(autopurgeCutoff(policy({ autopurge_interval: off }), NOW), null);
      assert.equal(versionpurgeCutoff(policy({ versionpurge_interval: off }), NOW), null);
    }
  });

  it('a deletion holds the partner for purgehold_duration seconds, then no more', () => {
    const held = policy({ purgehold_duration: 3600, last_deletion_at: NOW - 3599 });
    assert.equal(partnerOnHold(held, NOW), true);
    assert.equal(partnerOnHold(held, NOW + 1), false);
    assert.equal(partnerOnHold(policy({ purgehold_duration: 3600, last_deletion_at: null }), NOW), false);
    assert.equal(partnerOnHold(policy({ purgehold_duration: null, last_deletion_at: NOW }), NOW), false);
  });
});
