/**
 * Runs the DocumentStore contract against every adapter: in-memory and SQLite always (once per SQLite
 * driver this Node can use), MongoDB when MONGODB_URL is set (each fixture uses its own throw-away database).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  type Document,
  journalPieces,
  MemoryDocumentStore,
  MongoDocumentStore,
  SqliteDocumentStore,
  type Write,
} from '@burrow/documents';
import { usableSqliteDrivers } from '@burrow/sqlite';
import {
  assertPages,
  documentStoreContract,
  MIXED_ASCENDING,
  MIXED_DESCENDING,
  MIXED_KEYS,
  RETYPED_ASCENDING,
  RETYPED_DESCENDING,
} from './documents.contract.js';
import { rejection, silentPort, uniqueId } from './util.js';

documentStoreContract('MemoryDocumentStore', async () => {
  const store = new MemoryDocumentStore();
  return { store, cleanup: () => store.close() };
});

// Once per SQLite driver this Node can use (node:sqlite; better-sqlite3 where it is allowed and loads: libs/sqlite).
for (const driver of usableSqliteDrivers()) {
  const open = (file: string) => SqliteDocumentStore.open(file, { driver });

  documentStoreContract(`SqliteDocumentStore (${driver.name})`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-docs-'));
    const store = open(join(dir, 'read-models.sqlite'));
    return {
      store,
      cleanup: async () => {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  });

  describe(`SqliteDocumentStore (${driver.name}): a boolean term is exact in SQL while no number was ever stored in its path`, () => {
    const withStores = async (run: (a: SqliteDocumentStore, b: SqliteDocumentStore, file: string) => Promise<void>) => {
      const dir = await mkdtemp(join(tmpdir(), 'burrow-docs-'));
      const file = join(dir, 'read-models.sqlite');
      const a = open(file);
      const b = open(file);
      try {
        await run(a, b, file);
      } finally {
        await a.close();
        await b.close();
        await rm(dir, { recursive: true, force: true });
      }
    };
    const filter = { g: 'a', on: false };
    const seed = async (store: SqliteDocumentStore) => {
      const c = store.collection('flags');
      await c.ensureIndex({ g: 1, on: 1, n: 1 });
      for (let i = 0; i < 6; i++) await c.upsert({ _id: `f${i}`, g: 'a', on: i % 2 === 0, n: i });
      return c;
    };

    it('plans the boolean term as exact but for numbers in the path, and pages right when another connection (or a client that knows nothing of the flags) stores a number there', () =>
      withStores(async (a, b, file) => {
        const flags = await seed(a);
        assert.deepEqual(a.plan('flags', filter).booleans, ['on'], 'exact unless a number is stored there');
        assert.equal(a.plan('flags', { g: 'a', on: 0 }).booleans, null, 'a number term is not');
        assert.deepEqual(
          (await flags.find(filter, { sort: { n: 1 }, limit: 2 })).map((d) => d._id),
          ['f1', 'f3'],
        );
        await b.collection('flags').upsert({ _id: 'z0', g: 'a', on: 0, n: 0.5 });
        assert.deepEqual(
          (await flags.find(filter, { sort: { n: 1 }, limit: 2 })).map((d) => d._id),
          ['f1', 'f3'],
          'a number stored by another connection',
        );
        assert.equal(await flags.count(filter), 3);
        // a number stored by a raw client into a collection whose flag is still clear
        const other = a.collection('others');
        await other.ensureIndex({ g: 1, on: 1, n: 1 });
        await other.upsert({ _id: 'o1', g: 'a', on: false, n: 1 });
        assert.deepEqual(
          (await other.find(filter, { sort: { n: 1 } })).map((d) => d._id),
          ['o1'],
        );
        const raw = open(file);
        raw
          .statement('INSERT INTO "c:others" (id, doc, loose) VALUES (?, ?, NULL)')
          .run('o0', JSON.stringify({ _id: 'o0', g: 'a', on: 0, n: 0 }));
        await raw.close();
        assert.deepEqual(
          (await other.find(filter, { sort: { n: 1 }, limit: 1 })).map((d) => d._id),
          ['o1'],
        );
        assert.equal(await other.count(filter), 1);
      }));

    it('a number stored before the first boolean query is found by the first scan; dropAll forgets the flags', () =>
      withStores(async (a) => {
        const flags = await seed(a);
        await flags.upsert({ _id: 'z0', g: 'a', on: 0, n: -1 });
        assert.deepEqual(
          (await flags.find(filter, { sort: { n: 1 }, limit: 1 })).map((d) => d._id),
          ['f1'],
        );
        await a.dropAll();
        const again = await seed(a);
        assert.deepEqual(
          (await again.find(filter, { sort: { n: 1 }, limit: 1 })).map((d) => d._id),
          ['f1'],
        );
        await again.upsert({ _id: 'z0', g: 'a', on: 0, n: -1 });
        assert.deepEqual(
          (await again.find(filter, { sort: { n: 1 }, limit: 1 })).map((d) => d._id),
          ['f1'],
        );
      }));
  });

  describe(`SqliteDocumentStore (${driver.name}): pages at an offset with writers it does not see`, () => {
    const withFile = async (run: (file: string) => Promise<void>) => {
      const dir = await mkdtemp(join(tmpdir(), 'burrow-docs-'));
      try {
        await run(join(dir, 'read-models.sqlite'));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    };
    const seed = async (store: SqliteDocumentStore, name: string) => {
      const c = store.collection(name);
      await c.ensureIndex({ g: 1, k: 1 });
      for (const d of MIXED_KEYS) await c.upsert(structuredClone(d));
      return c;
    };
    /** a write as an older build, knowing nothing of sort keys, or any other SQLite client makes it */
    const rawPut = (store: SqliteDocumentStore, name: string, doc: Record<string, unknown>) =>
      store
        .statement(
          `INSERT INTO "c:${name}" (id, doc, loose) VALUES (?, ?, NULL) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc`,
        )
        .run(doc._id, JSON.stringify(doc));

    it('a boolean or an object stored by another connection on the file (another process) after the first page at an offset', () =>
      withFile(async (file) => {
        const a = open(file);
        const b = open(file);
        try {
          const pages = await seed(a, 'users');
          await assertPages(pages, { g: 'a' }, { k: 1, _id: 1 }, MIXED_ASCENDING, 'before');
          await b.collection('users').upsert({ _id: 'n3', g: 'a', k: true });
          await b.commit('users', 0, {}, [
            { kind: 'put', collection: 'users', doc: { _id: 'n2', g: 'a', k: { x: 1 } } },
          ]);
          await assertPages(pages, { g: 'a' }, { k: 1, _id: 1 }, RETYPED_ASCENDING, 'after');
          await assertPages(
            b.collection('users'),
            { g: 'a' },
            { k: -1, _id: 1 },
            RETYPED_DESCENDING,
            'read by the writer',
          );
        } finally {
          await a.close();
          await b.close();
        }
      }));

    it('across a reopen of the file, with writes by a client that knows nothing of sort keys in between', () =>
      withFile(async (file) => {
        const first = open(file);
        await assertPages(await seed(first, 'users'), { g: 'a' }, { k: -1, _id: 1 }, MIXED_DESCENDING, 'first');
        await first.close();
        const older = open(file);
        rawPut(older, 'users', { _id: 'n3', g: 'a', k: true });
        rawPut(older, 'users', { _id: 'n2', g: 'a', k: { x: 1 } });
        await older.close();
        const reopened = open(file);
        try {
          await assertPages(
            reopened.collection('users'),
            { g: 'a' },
            { k: -1, _id: 1 },
            RETYPED_DESCENDING,
            'reopened',
          );
          await assertPages(reopened.collection('users'), { g: 'a' }, { k: 1, _id: 1 }, RETYPED_ASCENDING, 'reopened');
        } finally {
          await reopened.close();
        }
      }));

    it('after dropAll by another connection the collection is judged again', () =>
      withFile(async (file) => {
        const a = open(file);
        const b = open(file);
        try {
          await assertPages(await seed(a, 'users'), { g: 'a' }, { k: 1, _id: 1 }, MIXED_ASCENDING, 'before');
          await assertPages(
            await seed(b, 'other'),
            {},
            { k: 1, _id: 1 },
            ['n0', 'n1', 'n3', 'n4', 'm0', 'n2', 'n8', 'n7', 'n6', 'n5', 'n9'],
            'before',
          );
          await b.dropAll();
          // made again by the dropping connection, without the triggers the other one had
          await b.collection('users').ensureIndex({ g: 1, k: 1 });
          rawPut(b, 'users', { _id: 'n1', g: 'a', k: 'a' });
          rawPut(b, 'users', { _id: 'n2', g: 'a', k: false });
          rawPut(b, 'users', { _id: 'n3', g: 'a', k: 1 });
          await assertPages(a.collection('users'), { g: 'a' }, { k: 1, _id: 1 }, ['n3', 'n1', 'n2'], 'after');
          await assertPages(a.collection('users'), { g: 'a' }, { k: 1, _id: 1 }, ['n3', 'n1', 'n2'], 'again');
        } finally {
          await a.close();
          await b.close();
        }
      }));

    it('after the table is dropped and made again by a client that knows nothing of sort keys (its flags outlive it)', () =>
      withFile(async (file) => {
        const a = open(file);
        try {
          await assertPages(await seed(a, 'users'), { g: 'a' }, { k: 1, _id: 1 }, MIXED_ASCENDING, 'before');
          const older = open(file);
          older.statement('DROP TABLE "c:users"').run();
          await older.close();
          const again = open(file);
          await again.collection('users').ensureIndex({ g: 1, k: 1 });
          rawPut(again, 'users', { _id: 'n1', g: 'a', k: 'a' });
          rawPut(again, 'users', { _id: 'n2', g: 'a', k: false });
          rawPut(again, 'users', { _id: 'n3', g: 'a', k: 1 });
          await again.close();
          await assertPages(a.collection('users'), { g: 'a' }, { k: 1, _id: 1 }, ['n3', 'n1', 'n2'], 'after');
          await assertPages(a.collection('users'), { g: 'a' }, { k: -1, _id: 1 }, ['n2', 'n1', 'n3'], 'again');
        } finally {
          await a.close();
        }
      }));
  });

  describe(`SqliteDocumentStore (${driver.name}): table layout`, () => {
    it('makes each collection a rowid table, and keeps serving one an older build made WITHOUT ROWID', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'burrow-docs-'));
      const file = join(dir, 'read-models.sqlite');
      try {
        const older = open(file);
        // the layout builds before this one made
        older
          .statement('CREATE TABLE "c:legacy" (id TEXT PRIMARY KEY, doc TEXT NOT NULL, loose INTEGER) WITHOUT ROWID')
          .run();
        await older.close();
        const store = open(file);
        try {
          const fresh = store.collection('fresh');
          const legacy = store.collection('legacy');
          for (const c of [fresh, legacy]) {
            await c.ensureIndex({ g: 1, n: 1 });
            for (let n = 0; n < 30; n++) await c.upsert({ _id: `d${n}`, g: n % 2 ? 'odd' : 'even', n });
            await c.upsert({ _id: 'd4', g: 'even', n: 100 });
            assert.equal(await c.delete('d6'), true);
            assert.deepEqual(
              (await c.find({ g: 'even' }, { sort: { n: -1 }, skip: 1, limit: 3 })).map((d) => d._id),
              ['d28', 'd26', 'd24'],
            );
            assert.deepEqual(await c.get('d4'), { _id: 'd4', g: 'even', n: 100 });
            assert.equal(await c.count({ g: 'even' }), 14);
          }
          const layout = (name: string) =>
            (store.statement('SELECT sql FROM sqlite_master WHERE name = ?').get(`c:${name}`) as { sql: string }).sql;
          assert.doesNotMatch(layout('fresh'), /WITHOUT ROWID/);
          assert.match(layout('legacy'), /WITHOUT ROWID/);
        } finally {
          await store.close();
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  describe(`SqliteDocumentStore (${driver.name}): sparse and dropped indexes`, () => {
    it('a sparse index is a partial one that answers equality and holds no entry for a document without the field; a dropped index is gone from the file, also for the next connection', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'burrow-docs-'));
      const file = join(dir, 'read-models.sqlite');
      try {
        const store = open(file);
        const previews = store.collection('previews');
        await previews.ensureIndex({ 'p.w': 1 }, { sparse: true });
        await previews.ensureIndex({ pending: 1 });
        for (let i = 0; i < 200; i++)
          await previews.upsert({ _id: `b${i}`, p: i % 50 === 0 ? { w: `k${i}` } : {}, pending: i % 2 === 0 });
        const index = (name: string) =>
          store.statement("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name = ?").get(name) as
            { sql: string } | undefined;
        assert.match(index('i:previews:{"p.w":1}:sparse')!.sql, /WHERE json_extract\(doc, '\$\.p\.w'\) IS NOT NULL$/);
        const entries = (
          store
            .statement(
              'SELECT count(*) AS n FROM "c:previews" INDEXED BY "i:previews:{""p.w"":1}:sparse" WHERE json_extract(doc, \'$.p.w\') >= \'\'',
            )
            .get() as { n: number }
        ).n;
        assert.equal(entries, 4, 'only the documents with a value are in it');
        assert.match(
          store.explainFind('previews', { 'p.w': 'k50' }).join('\n'),
          /USING INDEX i:previews:\{"p\.w":1\}:sparse/,
        );
        assert.deepEqual(
          (await previews.find({ 'p.w': 'k50' })).map((d) => d._id),
          ['b50'],
        );

        await previews.dropIndex({ pending: 1 });
        assert.equal(index('i:previews:{"pending":1}'), undefined, 'dropped');
        assert.equal(await previews.count({ pending: true }), 100, 'queried without it');
        await store.close();
        const next = open(file);
        try {
          assert.equal(
            (
              next
                .statement('SELECT count(*) AS n FROM _indexes WHERE collection = ? AND fields = ?')
                .get('previews', '["pending"]') as { n: number }
            ).n,
            0,
            'not an indexed path any more',
          );
          assert.equal(await next.collection('previews').count({ pending: true }), 100);
        } finally {
          await next.close();
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
}

const mongoUrl = process.env.MONGODB_URL;
documentStoreContract(
  'MongoDocumentStore',
  mongoUrl
    ? async () => {
        // FerretDB on SQLite, shared by every file of a run that goes side by side, took over the
        // production bound (10 s) for the contract's 20 MiB batch on a loaded machine; the bound
        // itself is mongo-unresponsive.int.test.ts's subject
        const store = await MongoDocumentStore.connect(mongoUrl, uniqueId('burrow_test_'), {
          operationTimeoutMs: 60_000,
        });
        return {
          store,
          cleanup: async () => {
            await store.dropDatabase();
            await store.close();
          },
        };
      }
    : null,
  'MONGODB_URL not set: no MongoDB server on this machine',
);

describe('MongoDocumentStore.connect (no server needed)', () => {
  it('fails within its timeout against a port that never answers', async () => {
    const silent = await silentPort();
    try {
      const started = Date.now();
      const error = await rejection(
        MongoDocumentStore.connect(`mongodb://127.0.0.1:${silent.port}/x`, undefined, {
          serverSelectionTimeoutMs: 500,
        }),
      );
      const elapsed = Date.now() - started;
      assert.ok(error instanceof Error);
      assert.match(error.message, /not reachable/);
      assert.ok(elapsed < 5_000, `took ${elapsed} ms`);
    } finally {
      await silent.close();
    }
  });
});

describe('MongoDocumentStore: journal pieces (no server needed)', () => {
  const put = (i: number, size: number): Write => ({
    kind: 'put',
    collection: 'c',
    doc: { _id: `d${i}`, text: 'é'.repeat(size) },
  });

  it('a small batch is one piece; a large one is cut into pieces of at most the limit that hold every write in order', () => {
    const small = [put(0, 10), put(1, 10)];
    assert.deepEqual(journalPieces(small, 1000), [JSON.stringify(small)]);
    const large = Array.from({ length: 50 }, (_, i) => put(i, 100)); // ~230 UTF-8 bytes each
    const pieces = journalPieces(large, 1000);
    assert.ok(pieces.length > 10, `${pieces.length} pieces`);
    for (const piece of pieces) assert.ok(Buffer.byteLength(piece) <= 1000, `${Buffer.byteLength(piece)} bytes`);
    assert.deepEqual(
      pieces.flatMap((p) => JSON.parse(p) as Write[]),
      large,
    );
  });

  it('a single write larger than the limit is a piece of its own', () => {
    const writes = [put(0, 10), put(1, 2000), put(2, 10)];
    const pieces = journalPieces(writes, 1000);
    assert.deepEqual(
      pieces.map((p) => (JSON.parse(p) as Write[]).length),
      [1, 1, 1],
    );
    assert.deepEqual(
      pieces.flatMap((p) => JSON.parse(p) as Write[]),
      writes,
    );
  });
});

describe(
  'MongoDocumentStore: a batch journaled in chunks',
  { skip: mongoUrl ? undefined : 'MONGODB_URL not set: no MongoDB server on this machine', timeout: 60_000 },
  () => {
    const put = (collection: string, i: number): Write => ({
      kind: 'put',
      collection,
      doc: { _id: `d${i}`, n: i, text: 'y'.repeat(200) },
    });
    const CHUNKS = '_journal_chunks';

    it('a writer that stops after applying it leaves a journal the next reader finishes from its chunks, a clear in it included', async () => {
      const db = uniqueId('burrow_chunks_');
      let frozen!: () => void;
      const stopped = new Promise<void>((r) => (frozen = r));
      const dying = await MongoDocumentStore.connect(mongoUrl!, db, {
        journalInlineBytes: 2000,
        faults: (point) => {
          if (point === 'written') {
            frozen();
            return new Promise<void>(() => undefined);
          }
        },
      });
      const survivor = await MongoDocumentStore.connect(mongoUrl!, db, { abandonedJournalMs: 200 });
      try {
        const c = uniqueId('docs_');
        await survivor.commit('cp', 0, { at: 1 }, [put(c, 999)]);
        const batch: Write[] = [{ kind: 'clear' }, ...Array.from({ length: 40 }, (_, i) => put(c, i))];
        void dying.commit('cp', 1, { at: 2 }, batch).catch(() => undefined);
        await stopped;
        assert.ok((await survivor.collection(CHUNKS).count()) > 5, 'the batch is journaled in chunks');
        // the documents were written, but a crash here may have lost any of them: take some away
        await survivor.collection(c).delete('d7');
        assert.deepEqual(await survivor.readCheckpoint('cp'), { version: 2, state: { at: 2 } });
        assert.equal(await survivor.collection(c).count(), 40);
        assert.equal(await survivor.collection(c).get('d999'), null, 'the clear stays applied');
        assert.deepEqual(await survivor.collection(c).get('d7'), { _id: 'd7', n: 7, text: 'y'.repeat(200) });
        assert.equal(await survivor.collection(CHUNKS).count(), 0, "the finished journal's chunks are gone");
      } finally {
        await survivor.dropDatabase();
        await survivor.close();
        await dying.close().catch(() => undefined);
      }
    });

    it('a claim that loses keeps no chunks; a committed large batch leaves none', async () => {
      const db = uniqueId('burrow_chunks_');
      const store = await MongoDocumentStore.connect(mongoUrl!, db, { journalInlineBytes: 2000 });
      try {
        const c = uniqueId('docs_');
        const batch = Array.from({ length: 40 }, (_, i) => put(c, i));
        assert.deepEqual(await store.commit('cp', 0, { at: 1 }, batch), { committed: true, rejected: [] });
        assert.equal(await store.collection(CHUNKS).count(), 0);
        const loser = await store.commit(
          'cp',
          0,
          { at: 9 },
          batch.map((w) => ({ ...w, doc: { ...(w as { doc: Document }).doc, n: -1 } }) as Write),
        );
        assert.equal(loser.committed, false);
        assert.equal(await store.collection(CHUNKS).count(), 0);
        assert.equal((await store.collection<Document & { n: number }>(c).get('d3'))?.n, 3, 'the loser wrote nothing');
        assert.deepEqual(await store.readCheckpoint('cp'), { version: 1, state: { at: 1 } });
      } finally {
        await store.dropDatabase();
        await store.close();
      }
    });
  },
);

describe(
  'MongoDocumentStore: a commit another writer already made',
  { skip: mongoUrl ? undefined : 'MONGODB_URL not set: no MongoDB server on this machine', timeout: 60_000 },
  () => {
    it("is reported adopted, keeps the other writer's documents, and a different transition from the same version is refused", async () => {
      const db = uniqueId('burrow_adopt_');
      const [first, second] = [
        await MongoDocumentStore.connect(mongoUrl!, db),
        await MongoDocumentStore.connect(mongoUrl!, db),
      ];
      try {
        const c = uniqueId('docs_');
        const put = (n: number): Write => ({ kind: 'put', collection: c, doc: { _id: 'x', n } });
        assert.deepEqual(await first.commit('cp', 0, { at: 1 }, [put(1)]), { committed: true, rejected: [] });
        // the same transition (same version, same state) with documents read at another moment
        assert.deepEqual(await second.commit('cp', 0, { at: 1 }, [put(2)]), {
          committed: true,
          rejected: [],
          adopted: true,
        });
        assert.equal(
          (await second.collection<Document & { n: number }>(c).get('x'))?.n,
          1,
          "the store holds the first writer's documents",
        );
        assert.deepEqual(await second.commit('cp', 0, { at: 2 }, [put(3)]), { committed: false, rejected: [] });
        assert.deepEqual(await second.readCheckpoint('cp'), { version: 1, state: { at: 1 } });
      } finally {
        await first.dropDatabase();
        await first.close();
        await second.close();
      }
    });
  },
);
