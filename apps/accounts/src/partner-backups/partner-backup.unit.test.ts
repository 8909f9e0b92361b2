import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { partnerBackupDecider as decider } from './partner-backup.js';

const key = (c: string) => c.repeat(64);

describe('partner backup decider', () => {
  it("stores a version named by its blob key (the data text's SHA-256)", () => {
    assert.deepEqual(
      decider.decide({ type: 'StorePartnerBackup', blob: key('a'), size: 12, at: 100 }, decider.initialState),
      [{ type: 'PartnerBackupStored', data: { blob: key('a'), sha256: key('a'), size: 12, stored_at: 100 } }],
    );
  });

  it('storing the latest data again adds nothing; older data again is a new version', () => {
    const events = [key('a'), key('b')].map((blob, i) => ({
      type: 'PartnerBackupStored' as const,
      data: { blob, sha256: blob, size: 1, stored_at: i },
    }));
    const state = events.reduce(decider.evolve, decider.initialState);
    assert.deepEqual(decider.decide({ type: 'StorePartnerBackup', blob: key('b'), size: 1, at: 5 }, state), []);
    assert.equal(decider.decide({ type: 'StorePartnerBackup', blob: key('a'), size: 1, at: 5 }, state).length, 1);
  });

  it('refuses a malformed blob key or size with 400', () => {
    for (const [blob, size] of [
      [key('A'), 1],
      ['abc', 1],
      [key('a'), 0],
      [key('a'), 1.5],
    ] as [string, number][]) {
      assert.throws(
        () => decider.decide({ type: 'StorePartnerBackup', blob, size, at: 1 }, decider.initialState),
        (e: { status?: number }) => e.status === 400,
      );
    }
  });
});
