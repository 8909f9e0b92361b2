/**
 * The KeyValueStore contract: every adapter (in memory, NATS JetStream) must pass it.
 *
 * Every test uses buckets of its own (random names), so the suite can run against a shared server.
 * `peer` is a second store over the same data, as another replica sees it: another connection for
 * NATS, the same object in memory (one process is all the memory store serves).
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { type KeyValueStore, modify } from '@burrow/kv';
import { rejection, sleep, uniqueId, waitFor } from './util.js';

export interface KeyValueFixture {
  store: KeyValueStore;
  peer: KeyValueStore;
  cleanup(): Promise<void>;
}
export type KeyValueFactory = () => Promise<KeyValueFixture>;

const MINUTE = 60_000;

export function keyValueStoreContract(name: string, factory: KeyValueFactory | null, skipReason?: string): void {
  if (!factory) {
    describe(`KeyValueStore contract: ${name}`, { skip: skipReason ?? 'no adapter factory' }, () => undefined);
    return;
  }
  describe(`KeyValueStore contract: ${name}`, { timeout: 60_000 }, () => {
    let fixture: KeyValueFixture;
    beforeEach(async () => {
      fixture = await factory();
    });
    afterEach(async () => {
      await fixture.cleanup();
    });
    const open = <T>(ttlMs = MINUTE) => fixture.store.bucket<T>(uniqueId('kv'), { ttlMs });

    it('get of an absent key is null', async () => {
      const bucket = await open();
      assert.equal(await bucket.get('nothing.here'), null);
    });

    it('create writes only when the key is absent', async () => {
      const bucket = await open<{ n: number }>();
      const revision = await bucket.create('counter', { n: 1 });
      assert.ok(typeof revision === 'number' && revision > 0);
      assert.deepEqual(await bucket.get('counter'), { value: { n: 1 }, revision });
      assert.equal(await bucket.create('counter', { n: 2 }), null);
      assert.deepEqual((await bucket.get('counter'))?.value, { n: 1 }, 'a refused create changes nothing');
    });

    it('update is compare-and-set on the revision read', async () => {
      const bucket = await open<{ n: number }>();
      const first = (await bucket.create('k', { n: 1 }))!;
      const second = await bucket.update('k', { n: 2 }, first);
      assert.ok(typeof second === 'number' && second !== first);
      assert.equal(await bucket.update('k', { n: 3 }, first), null, 'a stale revision is refused');
      assert.deepEqual(await bucket.get('k'), { value: { n: 2 }, revision: second });
      assert.equal(await bucket.update('absent', { n: 1 }, first), null, 'an absent key has no revision to match');
      assert.equal(await bucket.get('absent'), null);
    });

    it('delete removes the entry; deleting an absent key is fine; the key can be created again', async () => {
      const bucket = await open<string>();
      const revision = (await bucket.create('gone', 'x'))!;
      await bucket.delete('gone');
      assert.equal(await bucket.get('gone'), null);
      assert.equal(await bucket.update('gone', 'y', revision), null, 'the old revision is no longer current');
      await bucket.delete('gone');
      await bucket.delete('never-written');
      assert.ok((await bucket.create('gone', 'again')) !== null);
      assert.equal((await bucket.get('gone'))?.value, 'again');
    });

    it('values are JSON copies: changing what was written or read does not change the store', async () => {
      const bucket = await open<{ list: number[] }>();
      const value = { list: [1] };
      await bucket.create('doc', value);
      value.list.push(2);
      const read = (await bucket.get('doc'))!.value;
      read.list.push(3);
      assert.deepEqual((await bucket.get('doc'))?.value, { list: [1] });
    });

    it('buckets are separate, and a second store (another replica) sees the same buckets', async () => {
      const name = uniqueId('kv');
      const a = await fixture.store.bucket<number>(name, { ttlMs: MINUTE });
      const other = await open<number>();
      await a.create('shared.key', 7);
      assert.equal(await other.get('shared.key'), null);
      const fromPeer = await fixture.peer.bucket<number>(name, { ttlMs: MINUTE });
      const entry = await fromPeer.get('shared.key');
      assert.equal(entry?.value, 7);
      assert.ok((await fromPeer.update('shared.key', 8, entry.revision)) !== null);
      assert.equal((await a.get('shared.key'))?.value, 8);
    });

    it('refuses keys and bucket names the NATS server would not accept', async () => {
      const bucket = await open();
      for (const key of ['', 'a b', 'a*', 'a.>', '.a', 'a.', 'a..b', 'ü']) {
        assert.ok((await rejection(bucket.get(key))) instanceof RangeError, `key ${JSON.stringify(key)}`);
        assert.ok((await rejection(bucket.create(key, 1))) instanceof RangeError, `key ${JSON.stringify(key)}`);
      }
      assert.ok((await rejection(fixture.store.bucket('a.b', { ttlMs: MINUTE }))) instanceof RangeError);
      assert.ok(
        (await rejection(fixture.store.bucket('ok', { ttlMs: 10 }))) instanceof RangeError,
        'a TTL under a second',
      );
      // base64url and hex digests, dot-separated, are what callers use
      await bucket.create('partner.Ab-_9=.0f', 1);
    });

    it('compare-and-set under concurrency: 50 concurrent increments of one counter, from two stores, land exactly 50', async () => {
      const name = uniqueId('kv');
      const buckets = [
        await fixture.store.bucket<number>(name, { ttlMs: MINUTE }),
        await fixture.peer.bucket<number>(name, { ttlMs: MINUTE }),
      ];
      // the counter exists, so every increment is an update (the create path is covered above)
      await buckets[0].create('hits', 0);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => modify(buckets[i % 2], 'hits', (n) => n! + 1)),
      );
      assert.ok(results.every((r) => r.written));
      assert.deepEqual(
        results.map((r) => r.value).sort((x, y) => x! - y!),
        Array.from({ length: 50 }, (_, i) => i + 1),
        'each increment saw a distinct value',
      );
      assert.equal((await buckets[0].get('hits'))?.value, 50);
    });

    it('modify leaves the entry alone when the change returns undefined', async () => {
      const bucket = await open<number>();
      assert.deepEqual(await modify(bucket, 'k', () => undefined), { value: null, revision: 0, written: false });
      assert.equal(await bucket.get('k'), null);
      const written = await modify(bucket, 'k', () => 1);
      assert.deepEqual(await modify(bucket, 'k', () => undefined), {
        value: 1,
        revision: written.revision,
        written: false,
      });
    });

    it('an entry expires its TTL after its last write; each write restarts the clock', async () => {
      const ttlMs = 1000;
      const bucket = await open<number>(ttlMs);
      // kept alive by writes at a third of the TTL, for longer than one TTL
      let revision = (await bucket.create('kept', 0))!;
      const started = Date.now();
      for (let i = 1; Date.now() - started < 1.6 * ttlMs; i++) {
        await sleep(ttlMs / 3);
        const next = await bucket.update('kept', i, revision);
        assert.ok(
          next !== null,
          `write ${i}, ${Date.now() - started} ms after the first: the entry expired although written within its TTL`,
        );
        revision = next;
      }
      await bucket.create('once', 1);
      assert.equal((await bucket.get('once'))?.value, 1);
      await waitFor(async () => (await bucket.get('once')) === null, 'the entry to expire', {
        timeoutMs: 10_000,
        intervalMs: 100,
      });
      assert.ok((await bucket.create('once', 2)) !== null, 'an expired key can be created again');
    });

    it('reopening a bucket with another TTL applies the new TTL', async () => {
      const name = uniqueId('kv');
      await fixture.store.bucket<number>(name, { ttlMs: 10 * MINUTE });
      const reopened = await fixture.peer.bucket<number>(name, { ttlMs: 1000 });
      await reopened.create('short', 1);
      await waitFor(async () => (await reopened.get('short')) === null, 'the entry to expire under the new TTL', {
        timeoutMs: 10_000,
        intervalMs: 100,
      });
    });
  });
}
