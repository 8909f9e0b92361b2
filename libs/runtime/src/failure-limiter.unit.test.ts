import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FailureLimiter } from './failure-limiter.js';

describe('FailureLimiter', () => {
  it('blocks a key after maxFailures within the window, and frees it when the window passes', () => {
    let now = 1_000_000;
    const limiter = new FailureLimiter({ maxFailures: 3, windowMs: 60_000, now: () => now });
    for (let i = 0; i < 3; i++) {
      assert.equal(limiter.retryAfter('ann'), 0);
      limiter.fail('ann');
    }
    assert.equal(limiter.retryAfter('ann'), 60);
    assert.equal(limiter.retryAfter('bob'), 0, 'other keys unaffected');
    now += 30_000;
    assert.equal(limiter.retryAfter('ann'), 30);
    now += 30_001;
    assert.equal(limiter.retryAfter('ann'), 0);
  });

  it('reset clears a key; the key table is bounded', () => {
    const limiter = new FailureLimiter({ maxFailures: 1, windowMs: 60_000, maxKeys: 2 });
    limiter.fail('a');
    limiter.reset('a');
    assert.equal(limiter.retryAfter('a'), 0);
    limiter.fail('x');
    limiter.fail('y');
    limiter.fail('z');
    assert.equal(limiter.retryAfter('x'), 0, 'oldest key evicted');
    assert.ok(limiter.retryAfter('z') > 0);
  });
});
