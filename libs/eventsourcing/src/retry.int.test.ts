/** The retry policy against real concurrency conflicts from the SQLite store. */
import { DomainError } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { retryOnConflict, type RetryPolicy } from './retry.js';
import { openTempStore, type TempStore } from './testing/temp-store.js';

const QUICK: RetryPolicy = { maxAttempts: 5, pauseStepMs: 0, maxPauseMs: 0 };

describe('retry policy', () => {
  let t: TempStore;
  beforeEach(async () => {
    t = await openTempStore();
    await t.store.append('s-1', [{ type: 'Existing', data: {} }], 'no_stream');
  });
  afterEach(async () => {
    await t.dispose();
  });

  it('gives a 503 DomainError naming the contended thing after maxAttempts conflicts', async () => {
    let attempts = 0;
    const error = await retryOnConflict(
      'widget',
      async () => {
        attempts += 1;
        await t.store.append('s-1', [{ type: 'Late', data: {} }], 'no_stream');
      },
      QUICK,
    ).then(
      () => assert.fail('expected a 503'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof DomainError);
    assert.equal(error.status, 503);
    assert.match(error.body.reason, /widget/);
    assert.equal(attempts, QUICK.maxAttempts);
    assert.equal((await t.store.readStream('s-1')).length, 1);
  });

  it('a conflict that goes away is retried with the attempt number, and the result returned', async () => {
    const seen: number[] = [];
    const result = await retryOnConflict(
      'widget',
      async (n) => {
        seen.push(n);
        const expected = n === 1 ? 'no_stream' : 0;
        return (await t.store.append('s-1', [{ type: 'Next', data: { n } }], expected)).revision;
      },
      QUICK,
    );
    assert.equal(result, 1);
    assert.deepEqual(seen, [1, 2]);
  });

  it('any other error is thrown at once', async () => {
    let attempts = 0;
    await assert.rejects(
      retryOnConflict(
        'widget',
        async () => {
          attempts += 1;
          throw new Error('disk on fire');
        },
        QUICK,
      ),
      /disk on fire/,
    );
    assert.equal(attempts, 1);
  });
});
