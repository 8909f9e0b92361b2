/**
 * Embedded DocumentStore: read models in one SQLite file (WAL) per service, beside the embedded
 * event store, so a standalone restart resumes from the checkpoint instead of replaying history.
 *
 * Each collection is a table `(id TEXT PRIMARY KEY, doc TEXT, loose INTEGER)` holding the document
 * as JSON. An index the read models declare (`ensureIndex`) becomes an SQLite expression index on
 * `json_extract(doc, '$.field')`, so an equality or range on its fields, sorted by the next one,
 * is an index range scan that stops after the page (never a sort of the whole collection).
 *
 * The port's filter semantics stay those of `matches()` (MongoDB's): SQL only narrows the
 * candidates. Conditions on indexed fields are pushed down as necessary conditions (every document
 * that matches passes them; a few that pass may not match), and every candidate is checked with
 * `matches()` before it counts. A document whose indexed field holds an array or an object (or is
 * reached through one) is flagged `loose`: the SQL cannot tell whether it matches, so loose
 * documents are always candidates. Sorting is by SQLite's order (NULL < numbers < text, text by
 * its UTF-8 bytes: the port's code point order), and pages (`LIMIT`, `OFFSET`) are SQLite's, while
 * no document of the collection has ever held a boolean, an object or an array in a sort path,
 * where MongoDB's order differs (`_sort_keys`: a sticky flag per sort path, found by a scan the
 * first time the path is a sort key, then kept by triggers on the table); once one has, that
 * path's queries are sorted in JavaScript.
 *
 * Booleans come out of `json_extract` as 1 and 0, so `{ deleted: false }` as SQL also selects a
 * document holding the number 0 there. Such a term is exact while no document of the collection
 * has ever held a number in that path (`_number_paths`: a sticky flag per path, found by a scan
 * the first time the path is compared with a boolean, then kept by triggers, as `_sort_keys`),
 * read in the query's own read transaction; then the rows need no check in JavaScript and `LIMIT`
 * is SQLite's.
 *
 * `commit` is one IMMEDIATE transaction: the version check, every write and the new checkpoint,
 * all or nothing, also against other processes sharing the file.
 */
import { type SqliteDatabase, type SqliteDriver, sqliteDriver, type SqliteStatement } from '@burrow/sqlite';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { applyWrites } from './commit.js';
import { compareBy, isLooseAt, matches, pickFields } from './filter.js';
import { type Checkpoint, type Collection, type CommitResult, type Document, type DocumentStore } from './port.js';
import { type Filter, type FindOptions, type IndexOptions, type SortSpec, type Write } from './port.js';
import { SqliteCollection } from './sqlite-collection.js';
import { NUMBERS, SORT_KEYS, TrackedPathFlags } from './sqlite-flags.js';
import { dropSqliteIndex, duplicateKey, ensureSqliteIndex, type TableInfo } from './sqlite-indexes.js';
import { type Plan, planFilter } from './sqlite-plan.js';
import { extract, quote, SIMPLE_PATH, TABLE_PREFIX, tableOf } from './sqlite-sql.js';
import { FALLBACK_AUTOCHECKPOINT_PAGES, WalCheckpoints } from './wal-checkpoints.js';

export interface SqliteDocumentStoreOptions {
  /** `normal` (default): fsync at WAL checkpoints only; read models are rebuilt from the event log anyway */
  synchronous?: 'normal' | 'full';
  /** SQLite's page cache per connection, MiB (default 32) */
  cacheMiB?: number;
  /** default: the process's (`sqliteDriver()`) */
  driver?: SqliteDriver;
  /**
   * Who checkpoints the WAL: `connection` (default), SQLite in the commit that passes 1,000
   * pages; `worker`, a thread of the process shortly after commits (wal-checkpoints.ts)
   */
  checkpoints?: 'connection' | 'worker';
}

export class SqliteDocumentStore implements DocumentStore {
  private readonly db: SqliteDatabase;
  private readonly statements = new Map<string, SqliteStatement>();
  /** tables known to exist, and each collection's indexed paths */
  private readonly tables = new Map<string, TableInfo>();
  /** each collection's sort paths this connection saw tracked in `_sort_keys` (see `trackSortKeys`) */
  private readonly sortKeys: TrackedPathFlags;
  /** each collection's paths this connection saw tracked in `_number_paths` (see `trackNumberPaths`) */
  private readonly numberPaths: TrackedPathFlags;
  /** commits are transactions of this process's connection */
  readonly localCommits = true;
  /** the WAL's checkpoints on a worker thread (`checkpoints: 'worker'`), else null */
  readonly walCheckpoints: WalCheckpoints | null = null;

  private constructor(file: string, options: SqliteDocumentStoreOptions) {
    if (file !== ':memory:') {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      makePrivate(file);
    }
    this.db = (options.driver ?? sqliteDriver()).open(file, { busyTimeoutMs: 10_000 });
    this.sortKeys = new TrackedPathFlags(SORT_KEYS, this.db, this);
    this.numberPaths = new TrackedPathFlags(NUMBERS, this.db, this);
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
      this.db.pragma(`cache_size = ${-1024 * (options.cacheMiB ?? 32)}`);
      if (options.checkpoints === 'worker' && file !== ':memory:') {
        this.db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
        this.walCheckpoints = new WalCheckpoints(file, this.db.driver);
      }
      this.db.exec(`
        CREATE TABLE IF NOT EXISTS _checkpoints (name TEXT PRIMARY KEY, version INTEGER NOT NULL, state TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS _indexes (collection TEXT NOT NULL, fields TEXT NOT NULL, is_unique INTEGER NOT NULL, PRIMARY KEY (collection, fields));
        CREATE TABLE IF NOT EXISTS _sort_keys (collection TEXT NOT NULL, path TEXT NOT NULL, mixed INTEGER NOT NULL, PRIMARY KEY (collection, path)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS _number_paths (collection TEXT NOT NULL, path TEXT NOT NULL, numbers INTEGER NOT NULL, PRIMARY KEY (collection, path)) WITHOUT ROWID;`);
    } catch (error) {
      this.db.close();
      throw error;
    }
  }

  /** Opens (creating) the file. Throws SQLite's error (code SQLITE_NOTADB, SQLITE_CORRUPT) for a damaged one. */
  static open(file: string, options: SqliteDocumentStoreOptions = {}): SqliteDocumentStore {
    return new SqliteDocumentStore(file, options);
  }

  /** Statements are compiled once: preparing one costs more than running it. */
  statement(sql: string): SqliteStatement {
    let stmt = this.statements.get(sql);
    if (!stmt) this.statements.set(sql, (stmt = this.db.prepare(sql)));
    return stmt;
  }

  /** The collection's table (created on first use) and its indexed paths. */
  table(collection: string): TableInfo {
    let known = this.tables.get(collection);
    if (known) return known;
    const t = tableOf(collection);
    // A rowid table, not WITHOUT ROWID: documents are hundreds of bytes, and SQLite keeps a WITHOUT
    // ROWID table's rows inside its primary-key b-tree, so every insert by a random id splits pages
    // of large cells and every page of an index scan seeks that tree by text keys. Measured on 100k
    // users' documents with their 10 indexes: inserts 2.6x, a 1,000-document page 3x faster as a
    // rowid table; a lookup by id ~20% slower (the id index, then the row). Tables made by an older
    // build keep their layout until the read models are rebuilt.
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${t} (id TEXT PRIMARY KEY, doc TEXT NOT NULL, loose INTEGER);
      CREATE INDEX IF NOT EXISTS ${quote(`l:${collection}`)} ON ${t} (loose) WHERE loose IS NOT NULL;`);
    const paths = new Set<string>();
    for (const row of this.statement('SELECT fields FROM _indexes WHERE collection = ?').all(collection) as {
      fields: string;
    }[]) {
      for (const f of JSON.parse(row.fields) as string[]) paths.add(f);
    }
    known = { paths, keys: null, upsert: null };
    this.tables.set(collection, known);
    return known;
  }

  /** Collection objects hold no state but their name and SQL: one per name, made once. */
  private readonly collections = new Map<string, SqliteCollection<Document>>();

  collection<T extends Document = Document>(name: string): Collection<T> {
    let collection = this.collections.get(name);
    if (!collection) this.collections.set(name, (collection = new SqliteCollection<Document>(name, this)));
    // as unknown as: one collection object per name serves every document type a caller names (T is the caller's view; the store keeps JSON)
    return collection as unknown as Collection<T>;
  }

  private collectionNames(): string[] {
    const rows = this.statement(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 2) = 'c:'",
    ).all() as { name: string }[];
    return rows.map((r) => r.name.slice(TABLE_PREFIX.length));
  }

  async dropAll(): Promise<void> {
    this.db.transaction(() => {
      for (const name of this.collectionNames()) this.db.exec(`DROP TABLE ${tableOf(name)}`);
      this.db.exec(
        'DELETE FROM _checkpoints; DELETE FROM _indexes; DELETE FROM _sort_keys; DELETE FROM _number_paths;',
      );
    });
    this.tables.clear();
    this.sortKeys.forget();
    this.numberPaths.forget();
    this.statements.clear();
  }

  async readCheckpoint(name: string): Promise<Checkpoint | null> {
    const row = this.statement('SELECT version, state FROM _checkpoints WHERE name = ?').get(name) as
      { version: number; state: string } | undefined;
    return row ? { version: row.version, state: JSON.parse(row.state) } : null;
  }

  private readonly commitTx = (
    name: string,
    expectedVersion: number,
    state: Record<string, unknown>,
    writes: Write[],
  ): CommitResult => {
    const row = this.statement('SELECT version FROM _checkpoints WHERE name = ?').get(name) as
      { version: number } | undefined;
    if ((row?.version ?? 0) !== expectedVersion) return { committed: false, rejected: [] };
    const rejected = applyWrites(writes, {
      clear: () => {
        for (const c of this.collectionNames()) this.statement(`DELETE FROM ${tableOf(c)}`).run();
      },
      deleteMany: (collection, filter) => void this.removeMany(collection, filter),
      put: (collection, doc) => this.put(collection, doc),
      delete: (collection, id) => void this.remove(collection, id),
    });
    this.statement(
      'INSERT INTO _checkpoints (name, version, state) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET version = excluded.version, state = excluded.state',
    ).run(name, expectedVersion + 1, JSON.stringify(state));
    return { committed: true, rejected };
  };

  async commit(
    name: string,
    expectedVersion: number,
    state: Record<string, unknown>,
    writes: Write[],
  ): Promise<CommitResult> {
    const result = this.db.transaction(() => this.commitTx(name, expectedVersion, state, writes), 'immediate');
    this.walCheckpoints?.committed();
    return result;
  }

  /** Inserts or replaces; DuplicateKeyError when a unique index refuses it (the statement alone is undone). */
  put(collection: string, doc: Document): void {
    const table = this.table(collection);
    table.keys ??= [...table.paths].map((p) => p.split('.'));
    table.upsert ??= this.statement(
      `INSERT INTO ${tableOf(collection)} (id, doc, loose) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, loose = excluded.loose`,
    );
    let loose: number | null = null;
    for (const keys of table.keys) {
      if (isLooseAt(doc, keys)) {
        loose = 1;
        break;
      }
    }
    try {
      table.upsert.run(doc._id, JSON.stringify(doc), loose);
    } catch (error) {
      throw duplicateKey(collection, error);
    }
  }

  remove(collection: string, id: string): boolean {
    this.table(collection);
    return this.statement(`DELETE FROM ${tableOf(collection)} WHERE id = ?`).run(id).changes === 1;
  }

  removeMany(collection: string, filter: Filter): number {
    this.table(collection);
    const plan = this.plan(collection, filter);
    if (plan.exact)
      return this.statement(`DELETE FROM ${tableOf(collection)} WHERE ${plan.sql}`).run(...plan.params).changes;
    const ids = this.select(collection, filter).map((d) => d._id);
    for (const id of ids) this.remove(collection, id);
    return ids.length;
  }

  /** The SQL condition for `filter` (see `planFilter`). */
  plan(collection: string, filter: Filter): Plan {
    return planFilter(this.table(collection).paths, filter, () => this.hasLoose(collection));
  }

  /**
   * `plan` for running now: exact too when its only doubt is booleans on paths no document of the
   * collection has ever held a number in. Call inside the transaction that runs the query, so that
   * a write by another connection is seen by both the flags and the rows, or by neither.
   */
  private exactIn(collection: string, plan: Plan): Plan {
    if (!plan.booleans || !this.numbersAbsent(collection, plan.booleans)) return plan;
    return { ...plan, exact: true, booleans: null };
  }

  /** The plan for `filter`, its boolean paths tracked first where that can be done now (outside a transaction). */
  private planTracked(collection: string, filter: Filter): Plan {
    const plan = this.plan(collection, filter);
    if (plan.booleans) this.trackNumberPaths(collection, plan.booleans);
    return plan;
  }

  private hasLoose(collection: string): boolean {
    return this.statement(`SELECT 1 FROM ${tableOf(collection)} WHERE loose IS NOT NULL LIMIT 1`).get() !== undefined;
  }

  /** Every match of `filter`, unsorted. */
  select(collection: string, filter: Filter): Document[] {
    const plan = this.exactIn(collection, this.plan(collection, filter));
    const rows = this.statement(`SELECT doc FROM ${tableOf(collection)} WHERE ${plan.sql}`).all(...plan.params) as {
      doc: string;
    }[];
    const out: Document[] = [];
    for (const row of rows) {
      const doc = JSON.parse(row.doc) as Document;
      if (plan.exact || matches(doc, filter)) out.push(doc);
    }
    return out;
  }

  find(collection: string, filter: Filter, options: FindOptions): Document[] {
    const found = this.findWhole(collection, filter, options);
    const fields = options.fields;
    if (!fields || found.picked) return found.docs;
    return found.docs.map((d) => pickFields(d, fields));
  }

  /** The documents found, whole, or already cut to `options.fields` (`picked`) where that was cheaper. */
  private findWhole(collection: string, filter: Filter, options: FindOptions): { docs: Document[]; picked: boolean } {
    const sort = options.sort && Object.keys(options.sort).length ? options.sort : undefined;
    const skip = options.skip ?? 0;
    const limit = options.limit ?? 0;
    const plan = this.planTracked(collection, filter);
    const paths = sort ? Object.keys(sort).filter((p) => p !== '_id') : [];
    if (paths.every((p) => SIMPLE_PATH.test(p)) && (paths.length === 0 || this.trackSortKeys(collection, paths))) {
      const order = sort
        ? ` ORDER BY ${Object.entries(sort)
            .map(([p, d]) => `${extract(p)} ${d === -1 ? 'DESC' : 'ASC'}`)
            .join(', ')}`
        : '';
      const page =
        paths.length === 0
          ? plan.booleans
            ? this.readTransaction(() =>
                this.inSqlOrder(collection, filter, this.exactIn(collection, plan), order, skip, limit, options.fields),
              )
            : this.inSqlOrder(collection, filter, plan, order, skip, limit, options.fields)
          : this.readTransaction(() =>
              this.sortKeysPlain(collection, paths)
                ? this.inSqlOrder(
                    collection,
                    filter,
                    this.exactIn(collection, plan),
                    order,
                    skip,
                    limit,
                    options.fields,
                  )
                : null,
            );
      if (page) return page;
    }
    // a sort path SQLite orders differently from MongoDB (a boolean, an object or an array was stored there) or cannot reach
    const all = this.select(collection, filter);
    if (sort) all.sort(compareBy(sort));
    return { docs: all.slice(skip, limit ? skip + limit : undefined), picked: false };
  }

  /**
   * The page in SQLite's order. An exact plan leaves `LIMIT` and `OFFSET` to SQLite: the skipped
   * rows are stepped over in the index and never read, copied or parsed. Otherwise every candidate
   * is checked with `matches()`, from the start, until the page is full.
   */
  private inSqlOrder(
    collection: string,
    filter: Filter,
    plan: Plan,
    order: string,
    skip: number,
    limit: number,
    fields?: readonly string[],
  ): { docs: Document[]; picked: boolean } {
    const select = `SELECT doc FROM ${tableOf(collection)} WHERE ${plan.sql}${order}`;
    if (plan.exact) {
      const stmt = this.statement(`${select} LIMIT ? OFFSET ?`);
      // a point lookup (the commonest find) costs less read with `get` than with `all`
      if (limit === 1) {
        const row = stmt.get(...plan.params, 1, skip) as { doc: string } | undefined;
        return { docs: row ? [JSON.parse(row.doc) as Document] : [], picked: false };
      }
      // The text alone per row (no row object kept around it), parsed in place, and cut to `fields`
      // as it is parsed: a page of 5,000 keeps one object per document alive, not two (what lives
      // through the young generation's collections is what a large page pays for per document).
      const docs = this.statement(`${select} LIMIT ? OFFSET ?`).column(...plan.params, limit || -1, skip);
      if (fields)
        for (let i = 0; i < docs.length; i++) docs[i] = pickFields(JSON.parse(docs[i] as string) as Document, fields);
      else for (let i = 0; i < docs.length; i++) docs[i] = JSON.parse(docs[i] as string);
      return { docs: docs as Document[], picked: fields !== undefined };
    }
    const out: Document[] = [];
    let skipped = 0;
    for (const row of this.statement(select).iterate(...plan.params) as Iterable<{ doc: string }>) {
      const doc = JSON.parse(row.doc) as Document;
      if (!matches(doc, filter)) continue;
      if (skipped < skip) skipped++;
      else if (out.push(doc) === limit) break;
    }
    return { docs: out, picked: false };
  }

  /** `run` in one read transaction: what it reads is one state of the file, whatever other connections write meanwhile. */
  private readTransaction<T>(run: () => T): T {
    return this.db.transaction(run);
  }

  /**
   * Whether SQLite orders every one of `paths` (tracked sort paths of `collection`) as MongoDB
   * does: no document of the collection has ever held a boolean, an object or an array there.
   */
  private sortKeysPlain(collection: string, paths: string[]): boolean {
    return this.sortKeys.allClear(collection, paths);
  }

  /**
   * Makes `_sort_keys` say, for each of `paths` (sort paths of `collection`), whether a document
   * of the collection has ever held a boolean, an object or an array there (`mixed`, sticky).
   * False when it cannot be done now (inside a write transaction).
   */
  private trackSortKeys(collection: string, paths: string[]): boolean {
    return this.sortKeys.track(collection, paths);
  }

  /**
   * Whether no document of `collection` has ever held a number in any of `paths` (tracked in
   * `_number_paths`): a boolean compared there in SQL then selects booleans only.
   */
  private numbersAbsent(collection: string, paths: string[]): boolean {
    return this.numberPaths.allClear(collection, paths);
  }

  /** Makes `_number_paths` say whether a number was ever stored in each of `paths` (skipped inside a transaction). */
  private trackNumberPaths(collection: string, paths: string[]): void {
    this.numberPaths.track(collection, paths);
  }

  count(collection: string, filter: Filter): number {
    const tracked = this.planTracked(collection, filter);
    return this.readTransaction(() => {
      const plan = this.exactIn(collection, tracked);
      if (plan.exact)
        return (
          this.statement(`SELECT count(*) AS n FROM ${tableOf(collection)} WHERE ${plan.sql}`).get(...plan.params) as {
            n: number;
          }
        ).n;
      return this.select(collection, filter).length;
    });
  }

  ensureIndex(collection: string, spec: SortSpec, options: IndexOptions): void {
    ensureSqliteIndex(this.db, this, collection, spec, options);
  }

  dropIndex(collection: string, spec: SortSpec, options: IndexOptions): void {
    dropSqliteIndex(this.db, this, collection, spec, options);
  }

  /**
   * How SQLite runs the query `find(collection, filter, options)` sends when SQL orders the page
   * (EXPLAIN QUERY PLAN, one line per step): for tests that a read model's query uses the index
   * it was given, not one that only serves its order.
   */
  explainFind(collection: string, filter: Filter, options: FindOptions = {}): string[] {
    const plan = this.plan(collection, filter);
    const sort = options.sort && Object.keys(options.sort).length ? options.sort : undefined;
    const order = sort
      ? ` ORDER BY ${Object.entries(sort)
          .map(([p, d]) => `${extract(p)} ${d === -1 ? 'DESC' : 'ASC'}`)
          .join(', ')}`
      : '';
    const sql = `EXPLAIN QUERY PLAN SELECT doc FROM ${tableOf(collection)} WHERE ${plan.sql}${order} LIMIT ? OFFSET ?`;
    return (
      this.db.prepare(sql).all(...plan.params, options.limit || -1, options.skip ?? 0) as { detail: string }[]
    ).map((r) => r.detail);
  }

  async ping(): Promise<void> {
    this.statement('SELECT 1').get();
  }

  async close(): Promise<void> {
    await this.walCheckpoints?.close();
    this.statements.clear();
    if (this.db.open) this.db.close();
  }
}

/** The file holds personal data: owner-only (0600), its -wal and -shm files too (SQLite gives them the main file's mode). */
function makePrivate(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  try {
    chmodSync(file, 0o600);
  } catch {
    // another user's: leave it
  }
}
