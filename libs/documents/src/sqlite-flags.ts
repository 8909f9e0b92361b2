/**
 * Sticky flags per collection and path the embedded document store keeps in its file (see
 * sqlite.ts's header: `_sort_keys`, `_number_paths`), and this connection's knowledge of them.
 */
import type { SqliteDatabase, SqliteStatement } from '@burrow/sqlite';
import { quote, sqlString, tableOf } from './sqlite-sql.js';

/**
 * A sticky flag per collection and path in its own table, kept by triggers on the collection's
 * table: whether a document of the collection has ever held, there, a value of one of `types`
 * (json_type's names, as an SQL list).
 */
export interface PathFlags {
  table: string;
  column: string;
  types: string;
  /** the names of the triggers that keep it for `collection`: on insert, on update */
  triggers: (collection: string) => [string, string];
}

/** Sort paths SQLite orders otherwise than MongoDB (a boolean, an object or an array was there). */
export const SORT_KEYS: PathFlags = {
  table: '_sort_keys',
  column: 'mixed',
  types: "('true', 'false', 'object', 'array')",
  triggers: (c) => [`k:${c}:insert`, `k:${c}:update`],
};
/** Paths a number was stored in (a boolean compared there as 1 or 0 in SQL would select it too). */
export const NUMBERS: PathFlags = {
  table: '_number_paths',
  column: 'numbers',
  types: "('integer', 'real')",
  triggers: (c) => [`n:${c}:insert`, `n:${c}:update`],
};

/** What the flags need of the store: its cached statements and its collection tables (made on first use). */
export interface FlagsHost {
  statement(sql: string): SqliteStatement;
  table(collection: string): unknown;
}

/** One kind of flags (`PathFlags`) of one connection: read, and tracked on first use. */
export class TrackedPathFlags {
  /** each collection's paths this connection saw tracked in the flags' table */
  private readonly known = new Map<string, Set<string>>();

  constructor(
    private readonly flags: PathFlags,
    private readonly db: SqliteDatabase,
    private readonly host: FlagsHost,
  ) {}

  /** Forgets what this connection saw tracked (the tables were dropped). */
  forget(): void {
    this.known.clear();
  }

  /**
   * Whether every one of `paths` of `collection` is tracked in the flags' table with its flag clear.
   * Read in the caller's read transaction, so that a write by another connection is seen by both
   * the flags and the rows read, or by neither.
   */
  allClear(collection: string, paths: string[]): boolean {
    const state = this.host
      .statement(
        `SELECT count(*) AS tracked, coalesce(sum(${this.flags.column} = 0), 0) AS clear,
        (SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?)) AS triggers
      FROM ${this.flags.table} WHERE collection = ? AND path IN (SELECT value FROM json_each(?))`,
      )
      .get(...this.flags.triggers(collection), collection, JSON.stringify(paths)) as {
      tracked: number;
      clear: number;
      triggers: number;
    };
    // dropped since (dropAll by another connection): tracked again by the next query
    if (state.triggers < 2 || state.tracked < paths.length) this.known.delete(collection);
    return state.triggers === 2 && state.clear === paths.length;
  }

  /**
   * Makes the flags' table say, for each of `paths` of `collection`, whether a document of the
   * collection has ever held a value of its types there (sticky): a scan of the collection the
   * first time a path is tracked in the file, then triggers on the table that set the flag on
   * every insert and update. Triggers, not JavaScript in `put`, because they also run for writes
   * by another process sharing the file or by an older build that knows nothing of the this.flags.
   * False when it cannot be done now (inside a write transaction).
   */
  track(collection: string, paths: string[]): boolean {
    let seen = this.known.get(collection);
    if (!seen) this.known.set(collection, (seen = new Set()));
    const missing = paths.filter((p) => !seen.has(p));
    if (missing.length === 0) return true;
    if (this.db.inTransaction) return false;
    this.db.transaction(() => {
      const t = tableOf(collection);
      this.host.table(collection);
      const [onInsert, onUpdate] = this.flags.triggers(collection);
      const present = (
        this.host
          .statement("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?)")
          .get(onInsert, onUpdate) as { n: number }
      ).n;
      if (present < 2) {
        // flags without their triggers (the table was dropped and made again) say nothing any more
        this.host.statement(`DELETE FROM ${this.flags.table} WHERE collection = ?`).run(collection);
        const flag = `BEGIN UPDATE ${this.flags.table} SET ${this.flags.column} = 1 WHERE collection = ${sqlString(collection)} AND ${this.flags.column} = 0
          AND json_type(new.doc, '$.' || path) IN ${this.flags.types}; END`;
        this.db.exec(`CREATE TRIGGER IF NOT EXISTS ${quote(onInsert)} AFTER INSERT ON ${t} ${flag};
          CREATE TRIGGER IF NOT EXISTS ${quote(onUpdate)} AFTER UPDATE OF doc ON ${t} ${flag};`);
      }
      // a path tracked already (by another connection, or before a restart) is not scanned again
      const tracked = this.host.statement(`SELECT 1 FROM ${this.flags.table} WHERE collection = ? AND path = ?`);
      const scan = this.host
        .statement(`INSERT OR IGNORE INTO ${this.flags.table} (collection, path, ${this.flags.column})
        SELECT ?, ?, EXISTS (SELECT 1 FROM ${t} WHERE json_type(doc, ?) IN ${this.flags.types})`);
      for (const p of missing) if (!tracked.get(collection, p)) scan.run(collection, p, `$.${p}`);
    }, 'immediate');
    for (const p of missing) seen.add(p);
    return true;
  }
}
