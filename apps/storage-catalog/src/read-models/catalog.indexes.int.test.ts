/**
 * The catalog read model's indexes on what an upload writes (issue 37: a files document once and
 * a previews document twice per upload): the preview fields' indexes are sparse (no entry for a
 * blob that is no image), the indexes no query needs are gone from a store an older build made,
 * and the queries that read these collections use the index meant for them (EXPLAIN QUERY PLAN
 * on a store with data: the embedded store's planner may take an index that only serves an order).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SqliteDocumentStore, type Write } from '@burrow/documents';
import { PREVIEW_BLOB_FIELDS } from './catalog.documents.js';
import { catalogProjection } from './catalog.projection.js';

describe('catalog read model indexes (embedded store)', () => {
  let dir: string;
  let store: SqliteDocumentStore;
  const indexes = (collection: string) =>
    (
      store
        .statement("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name LIKE 'i:%'")
        .all(`c:${collection}`) as { name: string }[]
    )
      .map((r) => r.name)
      .sort();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'burrow-catalog-indexes-'));
    store = SqliteDocumentStore.open(join(dir, 'read-models.sqlite'));
    // what an older build made
    await store.collection('files').ensureIndex({ deleted: 1, deleted_at: 1 });
    await store.collection('previews').ensureIndex({ pending: 1 });
    for (const field of PREVIEW_BLOB_FIELDS) await store.collection('previews').ensureIndex({ [field]: 1 });
    await catalogProjection().init!(store);
    const writes: Write[] = [];
    for (let i = 0; i < 3000; i++) {
      const deleted = i % 4 === 0;
      writes.push({
        kind: 'put',
        collection: 'files',
        doc: {
          _id: `f${i}`,
          partnerId: `p${i % 3}`,
          deviceId: `d${i % 20}`,
          parent: `/x${i % 7}`,
          path: `/x${i % 7}/n${i}`,
          name: `n${i}`,
          deleted,
          deleted_at: deleted ? i : null,
          blob: `b${i}`,
        },
      });
      const image = i % 100 === 0;
      writes.push({
        kind: 'put',
        collection: 'previews',
        doc: {
          _id: `b${i}`,
          previews: image
            ? Object.fromEntries(PREVIEW_BLOB_FIELDS.map((f) => [f.slice('previews.'.length), `pv${i}-${f}`]))
            : {},
          failed: false,
          pending: i % 9 === 0,
          since: i,
        },
      });
    }
    await store.commit('test', 0, {}, writes);
  });
  after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("a store made by an older build loses files (deleted, deleted_at), the lone previews pending and the preview fields' full indexes", () => {
    assert.ok(!indexes('files').includes('i:files:{"deleted":1,"deleted_at":1}'), indexes('files').join());
    assert.deepEqual(
      indexes('previews'),
      ['i:previews:{"pending":1,"since":1}', ...PREVIEW_BLOB_FIELDS.map((f) => `i:previews:{"${f}":1}:sparse`)].sort(),
    );
  });

  it("a blob that is no image has no entry in the preview fields' indexes", () => {
    for (const field of PREVIEW_BLOB_FIELDS) {
      const name = `i:previews:{"${field}":1}:sparse`;
      const n = (
        store
          .statement(
            `SELECT count(*) AS n FROM "c:previews" INDEXED BY "${name.replace(/"/g, '""')}" WHERE json_extract(doc, '$.${field}') >= ''`,
          )
          .get() as { n: number }
      ).n;
      assert.equal(n, 30, `${field}: the 30 images only`);
    }
  });

  // (the embedded store does not push a path with a numeric segment, `previews.25`, down to SQL:
  // the reaper's lookup reads the collection there, as before; MongoDB uses these indexes)
  it("the blob reaper finds a preview blob by any width; the previewer's work list through (pending, since)", async () => {
    for (const field of PREVIEW_BLOB_FIELDS)
      assert.equal((await store.collection('previews').findOne({ [field]: `pv100-${field}` }))?._id, 'b100');
    const due = { pending: true, since: { $lte: 2000 } };
    assert.match(
      store.explainFind('previews', due, { sort: { since: 1, _id: 1 }, limit: 100 }).join('\n'),
      /USING INDEX i:previews:\{"pending":1,"since":1\} \(<expr>=\? AND <expr><\?\)/,
    );
    assert.equal(
      (await store.collection('previews').find(due, { sort: { since: 1, _id: 1 }, limit: 1000 })).length,
      223,
    );
  });

  it("the purger's files deleted before a cutoff through (partnerId, deleted, deleted_at)", async () => {
    const due = { partnerId: 'p1', deleted: true, deleted_at: { $lte: 1500 } };
    assert.match(
      store.explainFind('files', due, { sort: { deleted_at: 1, _id: 1 }, limit: 100 }).join('\n'),
      /USING INDEX i:files:\{"partnerId":1,"deleted":1,"deleted_at":1\} \(<expr>=\? AND <expr>=\? AND <expr><\?\)/,
    );
    assert.equal((await store.collection('files').find(due, { sort: { deleted_at: 1, _id: 1 } })).length, 125);
  });
});
