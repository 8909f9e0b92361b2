/** Sequential ids on the real SQLite store: concurrent callers get distinct ids with no gaps. */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { nextId } from './counter.js';
import { openTempStore, type TempStore } from './testing/temp-store.js';

describe('counter', () => {
  let t: TempStore;
  beforeEach(async () => {
    t = await openTempStore();
  });
  afterEach(async () => {
    await t.dispose();
  });

  it('100 concurrent nextId give 1..100, no gap, no duplicate', async () => {
    const ids = await Promise.all(Array.from({ length: 100 }, () => nextId(t.store, 'counter-group_id')));
    assert.deepEqual(
      [...ids].sort((a, b) => a - b),
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
    const events = await t.store.readStream('counter-group_id');
    assert.deepEqual(
      events.map((e) => e.data.value),
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
  });

  it('counters are independent and continue where they stopped', async () => {
    assert.equal(await nextId(t.store, 'counter-a'), 1);
    assert.equal(await nextId(t.store, 'counter-a'), 2);
    assert.equal(await nextId(t.store, 'counter-b'), 1);
    assert.equal(await nextId(t.store, 'counter-a'), 3);
  });
});
