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
 * its UTF-8 bytes: the port's code point order); should a sort key hold a boolean or an object,
 * where MongoDB's order differs, the query is answered again with a sort in JavaScript.
 *
 * `commit` is one IMMEDIATE transaction: the version check, every write and the new checkpoint,
 * all or nothing, also against other processes sharing the file.
 */
import Database from 'better-sqlite3';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { applyWrites } from './commit.js';
import { compareBy, getPath, isLoose, matches } from './filter.js';
import { type Checkpoint, type Collection, type CommitResult, type Document, documentProblem, type DocumentStore, DuplicateKeyError } from './port.js';
import { type Filter, type FindOptions, type IndexOptions, InvalidDocumentError, type SortSpec, type Write } from './port.js';

export interface SqliteDocumentStoreOptions {
  /** `normal` (default): fsync at WAL checkpoints only; read models are rebuilt from the event log anyway */
  synchronous?: 'normal' | 'full';
  /** SQLite's page cache per connection, MiB (default 32) */
  cacheMiB?: number;
}

const TABLE_PREFIX = 'c:';
const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
const tableOf = (collection: string) => quote(TABLE_PREFIX + collection);
/** Paths SQL can reach: identifiers only (a numeric segment is an array index in MongoDB, a key to json_extract). */
const SIMPLE_PATH = /^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;
const extract = (path: string) => (path === '_id' ? 'id' : `json_extract(doc, '$.${path}')`);

/** A value json_extract compares with: booleans come out of JSON as 1 and 0. */
const sqlValue = (v: unknown): unknown => (v === true ? 1 : v === false ? 0 : v);
const isScalar = (v: unknown) => v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
const isOperatorObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).some((k) => k.startsWith('$'));

interface Plan {
  sql: string;
  params: unknown[];
  /** the SQL selects exactly the matches: no check in JavaScript needed, counts can be counted by SQL */
  exact: boolean;
}

export class SqliteDocumentStore implements DocumentStore {
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  /** tables known to exist, and each collection's indexed paths */
  private readonly tables = new Map<string, { paths: Set<string> }>();

  private constructor(file: string, options: SqliteDocumentStoreOptions) {
    if (file !== ':memory:') {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      makePrivate(file);
    }
    this.db = new Database(file);
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
      this.db.pragma('busy_timeout = 10000');
      this.db.pragma(`cache_size = ${-1024 * (options.cacheMiB ?? 32)}`);
      this.db.exec(`
        CREATE TABLE IF NOT EXISTS _checkpoints (name TEXT PRIMARY KEY, version INTEGER NOT NULL, state TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS _indexes (collection TEXT NOT NULL, fields TEXT NOT NULL, is_unique INTEGER NOT NULL, PRIMARY KEY (collection, fields));`);
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
  statement(sql: string): Database.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) this.statements.set(sql, (stmt = this.db.prepare(sql)));
    return stmt;
  }

  /** The collection's table (created on first use) and its indexed paths. */
  table(collection: string): { paths: Set<string> } {
    let known = this.tables.get(collection);
    if (known) return known;
    const t = tableOf(collection);
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${t} (id TEXT PRIMARY KEY, doc TEXT NOT NULL, loose INTEGER) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS ${quote(`l:${collection}`)} ON ${t} (loose) WHERE loose IS NOT NULL;`);
    const paths = new Set<string>();
    for (const row of this.statement('SELECT fields FROM _indexes WHERE collection = ?').all(collection) as { fields: string }[]) {
      for (const f of JSON.parse(row.fields) as string[]) paths.add(f);
    }
    known = { paths };
    this.tables.set(collection, known);
    return known;
  }

  collection<T extends Document = Document>(name: string): Collection<T> {
    return new SqliteCollection<T>(name, this);
  }

  private collectionNames(): string[] {
    const rows = this.statement("SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 2) = 'c:'").all() as { name: string }[];
    return rows.map((r) => r.name.slice(TABLE_PREFIX.length));
  }

  async dropAll(): Promise<void> {
    this.db.transaction(() => {
      for (const name of this.collectionNames()) this.db.exec(`DROP TABLE ${tableOf(name)}`);
      this.db.exec('DELETE FROM _checkpoints; DELETE FROM _indexes;');
    })();
    this.tables.clear();
    this.statements.clear();
  }

  async readCheckpoint(name: string): Promise<Checkpoint | null> {
    const row = this.statement('SELECT version, state FROM _checkpoints WHERE name = ?').get(name) as { version: number; state: string } | undefined;
    return row ? { version: row.version, state: JSON.parse(row.state) } : null;
  }

  private readonly commitTx = (name: string, expectedVersion: number, state: Record<string, unknown>, writes: Write[]): CommitResult => {
    const row = this.statement('SELECT version FROM _checkpoints WHERE name = ?').get(name) as { version: number } | undefined;
    if ((row?.version ?? 0) !== expectedVersion) return { committed: false, rejected: [] };
    const rejected = applyWrites(writes, {
      clear: () => {
        for (const c of this.collectionNames()) this.statement(`DELETE FROM ${tableOf(c)}`).run();
      },
      deleteMany: (collection, filter) => void this.removeMany(collection, filter),
      put: (collection, doc) => this.put(collection, doc),
      delete: (collection, id) => void this.remove(collection, id),
    });
    this.statement('INSERT INTO _checkpoints (name, version, state) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET version = excluded.version, state = excluded.state')
      .run(name, expectedVersion + 1, JSON.stringify(state));
    return { committed: true, rejected };
  };
  private commitTransaction: Database.Transaction<SqliteDocumentStore['commitTx']> | null = null;

  async commit(name: string, expectedVersion: number, state: Record<string, unknown>, writes: Write[]): Promise<CommitResult> {
    this.commitTransaction ??= this.db.transaction(this.commitTx);
    return this.commitTransaction.immediate(name, expectedVersion, state, writes);
  }

  /** Inserts or replaces; DuplicateKeyError when a unique index refuses it (the statement alone is undone). */
  put(collection: string, doc: Document): void {
    const { paths } = this.table(collection);
    let loose: number | null = null;
    for (const p of paths) if (isLoose(doc, p)) loose = 1;
    try {
      this.statement(`INSERT INTO ${tableOf(collection)} (id, doc, loose) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, loose = excluded.loose`)
        .run(doc._id, JSON.stringify(doc), loose);
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
    if (plan.exact) return this.statement(`DELETE FROM ${tableOf(collection)} WHERE ${plan.sql}`).run(...plan.params).changes;
    const ids = this.select(collection, filter).map((d) => d._id);
    for (const id of ids) this.remove(collection, id);
    return ids.length;
  }

  /**
   * The SQL condition for `filter`: necessary for a match (a superset of the matches), pushed down
   * only for `_id` and indexed paths, where the loose flag covers the documents SQL cannot judge.
   */
  plan(collection: string, filter: Filter): Plan {
    const { paths } = this.table(collection);
    const terms: string[] = [];
    const params: unknown[] = [];
    let exact = true;
    let needsLoose = false;
    for (const [key, condition] of Object.entries(filter)) {
      const term = key.startsWith('$') || !(key === '_id' || (paths.has(key) && SIMPLE_PATH.test(key))) ? null : fieldTerm(key, condition);
      if (!term) {
        exact = false;
        continue;
      }
      terms.push(term.sql);
      params.push(...term.params);
      if (!term.exact) exact = false;
      if (key !== '_id') needsLoose = true;
    }
    if (terms.length === 0) return { sql: '1', params, exact };
    let sql = terms.join(' AND ');
    if (needsLoose && this.hasLoose(collection)) {
      sql = `(${sql}) OR loose IS NOT NULL`;
      exact = false;
    }
    return { sql, params, exact };
  }

  private hasLoose(collection: string): boolean {
    return this.statement(`SELECT 1 FROM ${tableOf(collection)} WHERE loose IS NOT NULL LIMIT 1`).get() !== undefined;
  }

  /** Every match of `filter`, unsorted. */
  select(collection: string, filter: Filter): Document[] {
    const plan = this.plan(collection, filter);
    const rows = this.statement(`SELECT doc FROM ${tableOf(collection)} WHERE ${plan.sql}`).all(...plan.params) as { doc: string }[];
    const out: Document[] = [];
    for (const row of rows) {
      const doc = JSON.parse(row.doc) as Document;
      if (plan.exact || matches(doc, filter)) out.push(doc);
    }
    return out;
  }

  find(collection: string, filter: Filter, options: FindOptions): Document[] {
    const sort = options.sort && Object.keys(options.sort).length ? options.sort : undefined;
    const skip = options.skip ?? 0;
    const wanted = options.limit ? skip + options.limit : Infinity;
    const plan = this.plan(collection, filter);
    const sortable = !sort || Object.keys(sort).every((p) => p === '_id' || SIMPLE_PATH.test(p));
    if (sortable) {
      const order = sort ? ` ORDER BY ${Object.entries(sort).map(([p, d]) => `${extract(p)} ${d === -1 ? 'DESC' : 'ASC'}`).join(', ')}` : '';
      const bounded = plan.exact && Number.isFinite(wanted);
      const limit = bounded ? ` LIMIT ${wanted}` : '';
      const out: Document[] = [];
      let orderHolds = true;
      const stmt = this.statement(`SELECT doc FROM ${tableOf(collection)} WHERE ${plan.sql}${order}${limit}`);
      // SQL bounds the rows: read them at once (an iterator's setup and per-row calls cost more than
      // the query on a point lookup, the commonest find); otherwise stream and stop at `wanted`
      const rows = (bounded ? (wanted === 1 ? [stmt.get(...plan.params)].filter(Boolean) : stmt.all(...plan.params)) : stmt.iterate(...plan.params)) as Iterable<{ doc: string }>;
      for (const row of rows) {
        const doc = JSON.parse(row.doc) as Document;
        if (sort && !Object.keys(sort).every((p) => { const v = getPath(doc, p); return v === undefined || v === null || typeof v === 'string' || typeof v === 'number'; })) {
          orderHolds = false;
          break;
        }
        if (!plan.exact && !matches(doc, filter)) continue;
        out.push(doc);
        if (out.length >= wanted) break;
      }
      if (orderHolds) return out.slice(skip);
    }
    // a sort key SQLite orders differently from MongoDB (booleans, objects) or cannot reach
    const all = this.select(collection, filter);
    if (sort) all.sort(compareBy(sort));
    return all.slice(skip, Number.isFinite(wanted) ? wanted : undefined);
  }

  count(collection: string, filter: Filter): number {
    const plan = this.plan(collection, filter);
    if (plan.exact) return (this.statement(`SELECT count(*) AS n FROM ${tableOf(collection)} WHERE ${plan.sql}`).get(...plan.params) as { n: number }).n;
    return this.select(collection, filter).length;
  }

  ensureIndex(collection: string, spec: SortSpec, options: IndexOptions): void {
    const fields = Object.keys(spec);
    const t = tableOf(collection);
    const known = this.table(collection);
    const name = quote(`i:${collection}:${JSON.stringify(spec)}${options.unique ? ':unique' : ''}`);
    const columns = fields.map((f) => `${extract(f)}${spec[f] === -1 ? ' DESC' : ''}`).join(', ');
    this.db.transaction(() => {
      try {
        this.db.exec(`CREATE ${options.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${name} ON ${t} (${columns})`);
      } catch (error) {
        throw duplicateKey(collection, error);
      }
      const added = fields.filter((f) => !known.paths.has(f));
      this.statement('INSERT OR IGNORE INTO _indexes (collection, fields, is_unique) VALUES (?, ?, ?)').run(collection, JSON.stringify(fields), options.unique ? 1 : 0);
      if (added.length === 0) return;
      for (const f of added) known.paths.add(f);
      // documents stored before this path was indexed: flag the ones SQL cannot judge on it
      const flag = this.statement(`UPDATE ${t} SET loose = 1 WHERE id = ?`);
      for (const row of this.statement(`SELECT id, doc FROM ${t} WHERE loose IS NULL`).all() as { id: string; doc: string }[]) {
        const doc = JSON.parse(row.doc);
        if (added.some((f) => isLoose(doc, f))) flag.run(row.id);
      }
    })();
  }

  async ping(): Promise<void> {
    this.statement('SELECT 1').get();
  }

  async close(): Promise<void> {
    this.statements.clear();
    if (this.db.open) this.db.close();
  }
}

/** A condition on one field as SQL, or null when SQL cannot narrow it. */
function fieldTerm(path: string, condition: unknown): { sql: string; params: unknown[]; exact: boolean } | null {
  const x = extract(path);
  const isId = path === '_id';
  if (!isOperatorObject(condition)) {
    if (condition === null) return isId ? null : { sql: `${x} IS NULL`, params: [], exact: false };
    if (!isScalar(condition)) return null;
    return { sql: `${x} = ?`, params: [sqlValue(condition)], exact: typeof condition === 'string' };
  }
  const terms: string[] = [];
  const params: unknown[] = [];
  let exact = true;
  for (const [op, operand] of Object.entries(condition)) {
    switch (op) {
      case '$eq':
        if (operand === null) {
          if (isId) return null;
          terms.push(`${x} IS NULL`);
          exact = false;
        } else if (isScalar(operand)) {
          terms.push(`${x} = ?`);
          params.push(sqlValue(operand));
          if (typeof operand !== 'string') exact = false;
        } else return null;
        break;
      case '$gt': case '$gte': case '$lt': case '$lte': {
        const sqlOp = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }[op];
        if (typeof operand === 'string') {
          terms.push(`(${x} ${sqlOp} ? AND typeof(${x}) = 'text')`);
          params.push(operand);
        } else if (typeof operand === 'number') {
          // booleans come out as integers: checked in JavaScript
          terms.push(`(${x} ${sqlOp} ? AND typeof(${x}) IN ('integer', 'real'))`);
          params.push(operand);
          exact = false;
        } else return null;
        break;
      }
      case '$in': {
        if (!Array.isArray(operand) || !operand.every((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) {
          exact = false;
          break;
        }
        terms.push(`${x} IN (SELECT value FROM json_each(?))`);
        params.push(JSON.stringify(operand.map(sqlValue)));
        if (!operand.every((v) => typeof v === 'string')) exact = false;
        break;
      }
      default:
        // $ne, $nin, $exists, $regex: judged in JavaScript
        exact = false;
    }
  }
  if (terms.length === 0) return null;
  return { sql: terms.join(' AND '), params, exact };
}

function duplicateKey(collection: string, error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return new DuplicateKeyError(collection, (error as Error).message);
  return error;
}

class SqliteCollection<T extends Document> implements Collection<T> {
  constructor(
    private readonly name: string,
    private readonly store: SqliteDocumentStore,
  ) {}

  async get(id: string): Promise<T | null> {
    this.store.table(this.name);
    const row = this.store.statement(`SELECT doc FROM ${tableOf(this.name)} WHERE id = ?`).get(id) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as T) : null;
  }

  async find(filter: Filter = {}, options: FindOptions = {}): Promise<T[]> {
    return this.store.find(this.name, filter, options) as T[];
  }

  async findOne(filter: Filter): Promise<T | null> {
    return (this.store.find(this.name, filter, { limit: 1 })[0] as T | undefined) ?? null;
  }

  async count(filter: Filter = {}): Promise<number> {
    return this.store.count(this.name, filter);
  }

  async upsert(doc: T): Promise<void> {
    const problem = documentProblem(doc);
    if (problem) throw new InvalidDocumentError(this.name, doc._id, problem);
    this.store.put(this.name, doc);
  }

  async delete(id: string): Promise<boolean> {
    return this.store.remove(this.name, id);
  }

  async deleteMany(filter: Filter): Promise<number> {
    return this.store.removeMany(this.name, filter);
  }

  async ensureIndex(spec: SortSpec, options: IndexOptions = {}): Promise<void> {
    this.store.ensureIndex(this.name, spec, options);
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
