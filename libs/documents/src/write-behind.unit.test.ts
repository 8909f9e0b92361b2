/**
 * The unit of work's committed cache after a build from empty: which documents it answers
 * "absent" for without asking the store, past the ids it keeps exactly (a Bloom filter), and
 * that it never answers so for a document that was written. And the unit of work's estimate of
 * the bytes it holds, which bounds a projection runner's batches.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryDocumentStore } from './memory.js';
import { type Document, InvalidDocumentError } from './port.js';
import { CommittedCache } from './committed-cache.js';
import { WriteBehind } from './write-behind.js';

/** A store that counts the lookups by id it is asked. */
function counted(store: MemoryDocumentStore): { store: MemoryDocumentStore; gets: () => number } {
  let gets = 0;
  const collection = store.collection.bind(store);
  store.collection = <T extends Document>(name: string) => {
    // the store may hand out one object per collection: wrap it, do not change it
    const c = collection<T>(name);
    const wrapped = Object.create(c) as typeof c;
    wrapped.get = (id: string) => {
      gets++;
      return c.get(id);
    };
    return wrapped;
  };
  return { store, gets: () => gets };
}

describe('CommittedCache after a build from empty', () => {
  it('answers "absent" for documents never written without asking the store, past its exact ids too, and never for one written', async () => {
    const { store, gets } = counted(new MemoryDocumentStore());
    // 8 documents cached, ids exact up to 10: the 2,000 below go to the filter
    const cache = new CommittedCache(8, 1_000_000, 10);
    cache.startComplete();
    let version = 0;
    for (let batch = 0; batch < 20; batch++) {
      const uow = new WriteBehind(store, cache);
      for (let i = 0; i < 100; i++) await uow.collection('things').upsert({ _id: `t${batch * 100 + i}`, n: i });
      await uow.collection('things').delete(`t${batch * 100}`);
      const writes = uow.writes();
      assert.equal((await store.commit('cp', version++, {}, writes)).committed, true);
      cache.absorb(writes);
    }
    const uow = new WriteBehind(store, cache);
    const things = uow.collection<Document & { n: number }>('things');
    const before = gets();
    for (let i = 0; i < 2_000; i++) assert.equal(await things.get(`never${i}`), null);
    const asked = gets() - before;
    assert.ok(asked < 100, `${asked} of 2,000 lookups of documents never written asked the store`);
    for (let i = 0; i < 2_000; i++) {
      const doc = await things.get(`t${i}`);
      if (i % 100 === 0) assert.equal(doc, null, `t${i} was deleted`);
      else assert.equal(doc?.n, i % 100, `t${i}`);
    }
    assert.equal(await uow.collection('others').get('t5'), null, 'ids are per collection');
  });

  it('asks the store for everything once it holds more ids than it bounds', async () => {
    const { store, gets } = counted(new MemoryDocumentStore());
    const cache = new CommittedCache(8, 50, 10);
    cache.startComplete();
    const uow = new WriteBehind(store, cache);
    for (let i = 0; i < 60; i++) await uow.collection('things').upsert({ _id: `t${i}` });
    const writes = uow.writes();
    await store.commit('cp', 0, {}, writes);
    cache.absorb(writes);
    const before = gets();
    assert.equal(await new WriteBehind(store, cache).collection('things').get('never'), null);
    assert.equal(gets() - before, 1);
  });
});

describe('WriteBehind: what a batch holds', () => {
  it('hands its writes over collection by collection, each in the order of its first writes, after its deleteMany filters', async () => {
    const uow = new WriteBehind(new MemoryDocumentStore());
    const files = uow.collection('files');
    const folders = uow.collection('folders');
    await files.upsert({ _id: 'f1' });
    await folders.upsert({ _id: 'd1' });
    await files.upsert({ _id: 'f2' });
    await folders.deleteMany({ gone: true });
    const mark = uow.savepoint();
    await folders.upsert({ _id: 'd2' });
    await files.upsert({ _id: 'f3' });
    uow.rollback(mark);
    await folders.upsert({ _id: 'd3' });
    await files.delete('f0');
    await files.upsert({ _id: 'f1', again: true });
    const order = uow.writes().map((w) => {
      if (w.kind === 'put') return `put ${w.collection} ${w.doc._id}`;
      if (w.kind === 'delete') return `delete ${w.collection} ${w.id}`;
      return w.kind === 'deleteMany' ? `deleteMany ${w.collection}` : w.kind;
    });
    assert.deepEqual(order, [
      'deleteMany folders',
      'put files f1',
      'put files f2',
      'delete files f0',
      'put folders d1',
      'put folders d3',
    ]);
    assert.equal(uow.size, 6, 'five documents and one deleteMany');
  });

  it('estimates the bytes of the documents it holds: a rewrite counts once, a rollback gives back', async () => {
    const uow = new WriteBehind(new MemoryDocumentStore());
    const c = uow.collection('pages');
    await c.upsert({ _id: 'a', text: 'x'.repeat(1_000) });
    const one = uow.bytes;
    assert.ok(one >= 1_000 && one < 1_100, `${one}`);
    await c.upsert({ _id: 'a', text: 'y'.repeat(1_000) });
    assert.equal(uow.bytes, one, 'the same document written again');
    const mark = uow.savepoint();
    await c.upsert({ _id: 'b', text: 'x'.repeat(5_000), list: [1, { deep: 'z'.repeat(500) }] });
    assert.ok(uow.bytes > one + 5_500, `${uow.bytes}`);
    uow.rollback(mark);
    assert.equal(uow.bytes, one);
    await c.delete('a');
    assert.equal(uow.bytes, 0);
  });

  it('refuses an array directly inside an array and keeps its own copy of what it takes', async () => {
    const uow = new WriteBehind(new MemoryDocumentStore());
    const c = uow.collection<Document & { list: unknown[] }>('things');
    await assert.rejects(c.upsert({ _id: 'n', list: [{ ok: [1] }, [2]] }), InvalidDocumentError);
    assert.equal(await c.get('n'), null);
    const doc = { _id: 'd', list: [{ v: 1 }], gone: undefined };
    await c.upsert(doc);
    doc.list[0].v = 2;
    assert.deepEqual(await c.get('d'), { _id: 'd', list: [{ v: 1 }] });
    const [write] = uow.writes();
    assert.ok(write.kind === 'put' && write.checked === true);
  });
});
