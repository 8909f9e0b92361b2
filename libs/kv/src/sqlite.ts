/**
 * Durable embedded KeyValueStore: buckets in one SQLite file (standalone mode, for state that must
 * survive a restart the way the NATS JetStream store does: the list of ended sessions). Values are
 * stored as JSON; revisions come from one counter in the file, so two connections to it (two
 * stores, as in the contract's `peer`) never hand out the same revision.
 *
 * Expiry: an entry is dead once its bucket's TTL has passed since its last write; dead entries are
 * never returned, and each write deletes the bucket's dead entries (an index on the write time
 * keeps that cheap). The TTL is the one the bucket was last opened with by this store.
 */
import { type SqliteDatabase, type SqliteDriver, sqliteDriver, type SqliteStatement } from '@burrow/sqlite';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  type BucketOptions,
  checkBucketName,
  checkKey,
  checkTtl,
  type KeyValueStore,
  type KvBucket,
  type KvEntry,
} from './port.js';

export interface SqliteKeyValueStoreOptions {
  /** milliseconds; injectable so tests can move time */
  now?: () => number;
  /** default: the process's (`sqliteDriver()`) */
  driver?: SqliteDriver;
}

interface Row {
  json: string;
  revision: number;
  written_at: number;
}

/** The statements, prepared once and kept for the store's life. */
interface Statements {
  get: SqliteStatement<Row>;
  put: SqliteStatement;
  remove: SqliteStatement;
  sweep: SqliteStatement;
  nextRevision: SqliteStatement<{ value: number }>;
}

class SqliteBucket<T> implements KvBucket<T> {
  constructor(
    readonly name: string,
    public ttlMs: number,
    private readonly store: { now(): number; db: SqliteDatabase; statements: Statements },
  ) {}

  private live(key: string): Row | undefined {
    const row = this.store.statements.get.get(this.name, key);
    return row && this.store.now() - row.written_at < this.ttlMs ? row : undefined;
  }

  /** Writes when `allowed(current live row)`: the new revision, or null. One transaction. */
  private writeIf(key: string, value: T, allowed: (row: Row | undefined) => boolean): number | null {
    const { db, statements } = this.store;
    const json = JSON.stringify(value);
    return db.transaction((): number | null => {
      if (!allowed(this.live(key))) return null;
      const now = this.store.now();
      statements.sweep.run(this.name, now - this.ttlMs);
      const revision = statements.nextRevision.get()!.value;
      statements.put.run(this.name, key, json, revision, now);
      return revision;
    }, 'immediate');
  }

  async get(key: string): Promise<KvEntry<T> | null> {
    checkKey(key);
    const row = this.live(key);
    return row ? { value: JSON.parse(row.json) as T, revision: row.revision } : null;
  }

  async create(key: string, value: T): Promise<number | null> {
    checkKey(key);
    return this.writeIf(key, value, (row) => row === undefined);
  }

  async update(key: string, value: T, revision: number): Promise<number | null> {
    checkKey(key);
    return this.writeIf(key, value, (row) => row?.revision === revision);
  }

  async delete(key: string): Promise<void> {
    checkKey(key);
    this.store.statements.remove.run(this.name, key);
  }
}

export class SqliteKeyValueStore implements KeyValueStore {
  private readonly db: SqliteDatabase;
  private readonly statements: Statements;
  private readonly buckets = new Map<string, SqliteBucket<unknown>>();
  private readonly now: () => number;

  constructor(file: string, options: SqliteKeyValueStoreOptions = {}) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // owner-only from the start: the file names sessions
    closeSync(openSync(file, 'a', 0o600));
    chmodSync(file, 0o600);
    this.db = (options.driver ?? sqliteDriver()).open(file, { busyTimeoutMs: 5000 });
    this.db.pragma('journal_mode = WAL');
    // what better-sqlite3 gave a WAL file by default (its build's SQLITE_DEFAULT_WAL_SYNCHRONOUS), said for every driver
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS kv (
        bucket     TEXT    NOT NULL,
        key        TEXT    NOT NULL,
        json       TEXT    NOT NULL,
        revision   INTEGER NOT NULL,
        written_at INTEGER NOT NULL,
        PRIMARY KEY (bucket, key)
      );
      CREATE INDEX IF NOT EXISTS kv_written ON kv (bucket, written_at);
      CREATE TABLE IF NOT EXISTS kv_revision (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), value INTEGER NOT NULL);
      INSERT OR IGNORE INTO kv_revision (singleton, value) VALUES (1, 0);`);
    this.statements = {
      get: this.db.prepare('SELECT json, revision, written_at FROM kv WHERE bucket = ? AND key = ?'),
      put: this.db.prepare(
        'INSERT OR REPLACE INTO kv (bucket, key, json, revision, written_at) VALUES (?, ?, ?, ?, ?)',
      ),
      remove: this.db.prepare('DELETE FROM kv WHERE bucket = ? AND key = ?'),
      sweep: this.db.prepare('DELETE FROM kv WHERE bucket = ? AND written_at <= ?'),
      nextRevision: this.db.prepare('UPDATE kv_revision SET value = value + 1 WHERE singleton = 1 RETURNING value'),
    };
    this.now = options.now ?? Date.now;
  }

  async bucket<T>(name: string, options: BucketOptions): Promise<KvBucket<T>> {
    checkBucketName(name);
    checkTtl(options);
    let bucket = this.buckets.get(name);
    if (!bucket) {
      bucket = new SqliteBucket<unknown>(name, options.ttlMs, {
        now: this.now,
        db: this.db,
        statements: this.statements,
      });
      this.buckets.set(name, bucket);
    }
    bucket.ttlMs = options.ttlMs;
    return bucket as KvBucket<T>;
  }

  async close(): Promise<void> {
    this.buckets.clear();
    if (this.db.open) this.db.close();
  }
}
