/** The interface the adapters program against (see driver.ts for the drivers and how one is chosen). */
export type SqliteDriverName = 'node:sqlite' | 'better-sqlite3';

/** What a write did (numbers: neither driver is asked for BigInts). */
export interface RunResult {
  changes: number;
  lastInsertRowid: number;
}

/** A prepared statement. Parameters: positional values, or one object of named ones (`@name` as `{ name }`). */
export interface SqliteStatement<Row = unknown> {
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): Row | undefined;
  all(...params: unknown[]): Row[];
  /** Rows one at a time; leaving the loop early ends the query. */
  iterate(...params: unknown[]): IterableIterator<Row>;
  /** The first column of every row, without a row object around each (better-sqlite3's `pluck`). */
  column(...params: unknown[]): unknown[];
}

export interface SqliteDatabase {
  readonly driver: SqliteDriverName;
  readonly open: boolean;
  readonly inTransaction: boolean;
  /** One or more statements, no parameters, no result. */
  exec(sql: string): void;
  prepare<Row = unknown>(sql: string): SqliteStatement<Row>;
  /** `PRAGMA <text>`; the first column of its first row (its value), or undefined. */
  pragma(text: string): unknown;
  /**
   * Runs `body` in a transaction (`BEGIN`, or `BEGIN IMMEDIATE` to take the write lock first):
   * committed when it returns, rolled back when it throws. Inside another transaction, a
   * savepoint: rolled back alone when `body` throws. `body` must not return a promise.
   */
  transaction<T>(body: () => T, mode?: 'deferred' | 'immediate'): T;
  close(): void;
}

export interface SqliteOpenOptions {
  /** how long a statement waits for another connection's lock before SQLITE_BUSY (ms; default 5000) */
  busyTimeoutMs?: number;
}

export interface SqliteDriver {
  readonly name: SqliteDriverName;
  /** Opens (creating) `file`, or `:memory:`. */
  open(file: string, options?: SqliteOpenOptions): SqliteDatabase;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/** Runs one of the transaction statements (`BEGIN`, `COMMIT`, ...), prepared once per connection. */
export type TransactionStep = (
  step: 'begin' | 'begin immediate' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollback to',
) => void;

/** The statements of each step (the savepoint's name is better-sqlite3's, so both drivers nest alike). */
export const TRANSACTION_SQL = {
  begin: 'BEGIN',
  'begin immediate': 'BEGIN IMMEDIATE',
  commit: 'COMMIT',
  rollback: 'ROLLBACK',
  savepoint: 'SAVEPOINT "\t_bs3.\t"',
  release: 'RELEASE "\t_bs3.\t"',
  'rollback to': 'ROLLBACK TO "\t_bs3.\t"',
} as const;

/** `SqliteDatabase.transaction`, the way better-sqlite3's `db.transaction()` does it, for either driver. */
export function inTransaction<T>(
  db: { readonly inTransaction: boolean },
  run: TransactionStep,
  body: () => T,
  mode: 'deferred' | 'immediate',
): T {
  const nested = db.inTransaction;
  run(nested ? 'savepoint' : mode === 'immediate' ? 'begin immediate' : 'begin');
  try {
    const result = body();
    if (result && typeof (result as { then?: unknown }).then === 'function')
      throw new TypeError('a transaction body cannot return a promise');
    run(nested ? 'release' : 'commit');
    return result;
  } catch (error) {
    // SQLite may have rolled back already (a failed COMMIT, some errors roll the transaction back)
    if (db.inTransaction) {
      run(nested ? 'rollback to' : 'rollback');
      if (nested) run('release');
    }
    throw error;
  }
}
