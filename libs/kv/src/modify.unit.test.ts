import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryKeyValueStore } from './memory.js';
import { KvContentionError, modify } from './modify.js';
import type { KvBucket } from './port.js';

describe('modify', () => {
  it('starts over when another writer got in between, and applies the change to the latest value', async () => {
    const bucket = await new MemoryKeyValueStore().bucket<number>('b', { ttlMs: 60_000 });
    const revision = (await bucket.create('n', 1))!;
    let calls = 0;
    const result = await modify(bucket, 'n', (n) => {
      calls += 1;
      // the first time, a rival writes after this read and before this write (the memory
      // bucket's update runs synchronously up to its end)
      if (calls === 1) void bucket.update('n', 10, revision);
      return (n ?? 0) + 1;
    });
    assert.equal(calls, 2);
    assert.equal(result.value, 11);
    assert.equal((await bucket.get('n'))?.value, 11);
  });

  it('gives up with KvContentionError after its attempts', async () => {
    const bucket: KvBucket<number> = {
      name: 'always-contended',
      get: async () => ({ value: 1, revision: 1 }),
      create: async () => null,
      update: async () => null,
      delete: async () => undefined,
    };
    const error = await modify(bucket, 'n', (n) => (n ?? 0) + 1, { attempts: 3 }).catch((e: unknown) => e);
    assert.ok(error instanceof KvContentionError);
    assert.equal(error.attempts, 3);
  });
});

describe('MemoryKeyValueStore', () => {
  it('expires entries by its clock and keeps at most maxEntries per bucket, dropping the least recently written', async () => {
    let now = 1_000_000;
    const store = new MemoryKeyValueStore({ now: () => now, maxEntries: 2 });
    const bucket = await store.bucket<number>('b', { ttlMs: 1000 });
    await bucket.create('a', 1);
    now += 999;
    assert.equal((await bucket.get('a'))?.value, 1);
    now += 1;
    assert.equal(await bucket.get('a'), null);
    await bucket.create('x', 1);
    await bucket.create('y', 2);
    const y = await bucket.get('y');
    await bucket.update('x', 3, (await bucket.get('x'))!.revision);
    await bucket.create('z', 4);
    assert.equal(await bucket.get('y'), null, 'y was written longest ago');
    assert.deepEqual([(await bucket.get('x'))?.value, (await bucket.get('z'))?.value], [3, 4]);
    assert.ok(y);
  });
});
