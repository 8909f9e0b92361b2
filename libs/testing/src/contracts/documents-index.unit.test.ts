/**
 * Indexes must never change results, only speed: the same queries with and without indexes,
 * including array-valued and missing indexed fields, on the embedded store.
 */
import { MemoryDocumentStore } from '@burrow/documents';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

describe('MemoryDocumentStore indexes answer exactly like a scan', () => {
  it('same results for equality, arrays, null/missing and updates', async () => {
    const docs = [
      { _id: 'a', p: 'x', u: 'ann', tags: 'one' },
      { _id: 'b', p: 'x', u: 'bob', tags: ['one', 'two'] },
      { _id: 'c', p: 'y', u: 'cat' },
      { _id: 'd', p: 'x', u: null, tags: { nested: true } },
    ];
    const plain = new MemoryDocumentStore().collection('t');
    const indexedStore = new MemoryDocumentStore();
    const indexed = indexedStore.collection('t');
    await indexed.ensureIndex({ p: 1 });
    for (const d of docs) {
      await plain.upsert(d);
      await indexed.upsert(d);
    }
    await indexed.ensureIndex({ tags: 1 });
    await indexed.ensureIndex({ p: 1, u: 1 });
    const filters = [
      { p: 'x' },
      { p: 'y' },
      { p: 'z' },
      { tags: 'one' },
      { tags: 'two' },
      { p: 'x', u: 'bob' },
      { p: 'x', u: null },
      { u: null },
      { tags: null },
    ];
    for (const f of filters) {
      assert.deepEqual(
        (await indexed.find(f, { sort: { _id: 1 } })).map((d) => d._id),
        (await plain.find(f, { sort: { _id: 1 } })).map((d) => d._id),
        JSON.stringify(f),
      );
    }
    // moving a document between index keys and deleting it keep the index right
    await indexed.upsert({ _id: 'a', p: 'y', u: 'ann', tags: 'three' });
    assert.deepEqual(
      (await indexed.find({ p: 'x' }, { sort: { _id: 1 } })).map((d) => d._id),
      ['b', 'd'],
    );
    assert.deepEqual(
      (await indexed.find({ p: 'y' }, { sort: { _id: 1 } })).map((d) => d._id),
      ['a', 'c'],
    );
    await indexed.delete('c');
    assert.deepEqual(
      (await indexed.find({ p: 'y' })).map((d) => d._id),
      ['a'],
    );
    await indexedStore.dropAll();
    assert.equal(await indexed.count({ p: 'x' }), 0);
  });
});
