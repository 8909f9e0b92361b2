/**
 * The lock store on the in-memory key-value store: what one request reads is the user's small
 * index, never the owners; the limits per resource, per user and on the index's size; and a
 * refused grant leaves every existing lock as it was.
 */
import { type KeyValueStore, type KvBucket, MemoryKeyValueStore } from '@burrow/kv';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DavLocks,
  LOCK_INDEX_MAX_BYTES,
  LOCK_OWNER_MAX_BYTES,
  LOCKS_PER_RESOURCE_MAX,
  LOCKS_PER_USER_MAX,
} from './locks.js';

/** A key-value store that counts the bytes each bucket's reads return. */
function counting(): { kv: KeyValueStore; read: Map<string, number> } {
  const inner = new MemoryKeyValueStore();
  const read = new Map<string, number>();
  const kv: KeyValueStore = {
    async bucket<T>(name: string, options: { ttlMs: number }): Promise<KvBucket<T>> {
      const bucket = await inner.bucket<T>(name, options);
      return {
        name,
        get: async (key) => {
          const entry = await bucket.get(key);
          read.set(name, (read.get(name) ?? 0) + (entry ? Buffer.byteLength(JSON.stringify(entry.value)) : 0));
          return entry;
        },
        create: (key, value) => bucket.create(key, value),
        update: (key, value, revision) => bucket.update(key, value, revision),
        delete: (key) => bucket.delete(key),
      };
    },
    close: () => inner.close(),
  };
  return { kv, read };
}

const shared = (path: string, owner = '') => ({
  path,
  collection: false,
  depth: '0' as const,
  scope: 'shared' as const,
  owner,
  timeout: 600,
});
const code = (status: number) => ({ status });

describe('DavLocks', () => {
  it("listing a user's locks reads the index only, whatever their owners weigh", async () => {
    const { kv, read } = counting();
    const locks = new DavLocks(async () => kv);
    const owner = `<D:href>${'o'.repeat(LOCK_OWNER_MAX_BYTES - 20)}</D:href>`;
    for (let i = 0; i < 50; i++) await locks.grant('u1', shared(`dev/f${i}`, owner));
    read.clear();
    const listed = await locks.list('u1');
    assert.equal(listed.length, 50);
    assert.ok(listed.every((l) => l.owned && !('owner' in l)));
    const bytes = [...read.values()].reduce((a, b) => a + b, 0);
    assert.ok(bytes < 50 * 300, `one list read ${bytes} bytes`);
    // an owner is read when a lock is shown
    assert.equal((await locks.owners('u1', listed.slice(0, 1))).get(listed[0].token), owner);
  });

  it(`a resource takes at most ${LOCKS_PER_RESOURCE_MAX} locks (423); the refusal leaves the others`, async () => {
    const locks = new DavLocks(async () => new MemoryKeyValueStore());
    const granted = [];
    for (let i = 0; i < LOCKS_PER_RESOURCE_MAX; i++)
      granted.push(await locks.grant('u1', shared('dev/f', `<D:href>${i}</D:href>`)));
    await assert.rejects(locks.grant('u1', shared('dev/f', '<D:href>x</D:href>')), code(423));
    const listed = await locks.list('u1');
    assert.deepEqual(listed.map((l) => l.token).sort(), granted.map((l) => l.token).sort());
    assert.equal((await locks.owners('u1', listed)).size, LOCKS_PER_RESOURCE_MAX);
    // another resource still takes one
    await locks.grant('u1', shared('dev/g'));
  });

  it(`a user holds at most ${LOCKS_PER_USER_MAX} locks, and an index of at most ${LOCK_INDEX_MAX_BYTES} bytes (403); the refusal leaves the others`, async () => {
    const locks = new DavLocks(async () => new MemoryKeyValueStore());
    for (let i = 0; i < LOCKS_PER_USER_MAX; i++) await locks.grant('u1', shared(`dev/f${i}`));
    await assert.rejects(locks.grant('u1', shared('dev/one-more')), code(403));
    assert.equal((await locks.list('u1')).length, LOCKS_PER_USER_MAX);
    // other users are not held by it
    await locks.grant('u2', shared('dev/f0'));
    // long paths: the index's size binds first
    const long = (i: number) => `dev/${'p'.repeat(200)}/${'q'.repeat(200)}/${'r'.repeat(200)}/${i}`;
    let held = 0;
    for (; ; held++) {
      const refused = await locks.grant('u3', shared(long(held))).then(
        () => null,
        (error: { status: number }) => error,
      );
      if (refused) {
        assert.equal(refused.status, 403);
        break;
      }
    }
    assert.ok(held < LOCKS_PER_USER_MAX && held > 10, `${held} locks on long paths`);
    assert.equal((await locks.list('u3')).length, held);
  });

  it('a refresh keeps the owner; an UNLOCK, or forgetting a deleted tree, removes owners with their locks', async () => {
    const { kv } = counting();
    const locks = new DavLocks(async () => kv);
    const a = await locks.grant('u1', { ...shared('dev/dir/a', '<D:href>me</D:href>') });
    const b = await locks.grant('u1', { ...shared('dev/dir/b', '<D:href>me too</D:href>') });
    const refreshed = (await locks.refresh('u1', a.token, 900))!;
    assert.equal(refreshed.timeout, 900);
    assert.equal((await locks.owners('u1', [refreshed])).get(a.token), '<D:href>me</D:href>');
    assert.equal(await locks.release('u1', a.token), true);
    assert.equal((await locks.owners('u1', [a])).size, 0);
    await locks.forget('u1', 'dev/dir');
    assert.deepEqual(await locks.list('u1'), []);
    assert.equal((await locks.owners('u1', [b])).size, 0);
  });
});
