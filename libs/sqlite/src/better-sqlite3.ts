/**
 * The better-sqlite3 12 driver: the fallback where node:sqlite is missing (Node 20). The addon is
 * loaded by `betterSqlite3Driver()` only, never at import: see driver.ts for where that is allowed.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { createRequire } from 'node:module';
import {
  DEFAULT_BUSY_TIMEOUT_MS,
  inTransaction,
  type RunResult,
  type SqliteDatabase,
  type SqliteDriver,
  type SqliteOpenOptions,
  type SqliteStatement,
  TRANSACTION_SQL,
  type TransactionStep,
} from './api.js';

const require = createRequire(import.meta.url);

class BetterStatement<Row> implements SqliteStatement<Row> {
  /** the same SQL in `pluck` mode, for `column()` (a mode of the statement: a statement of its own, made on first use) */
  private plucked: BetterSqlite3.Statement | null = null;

  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly stmt: BetterSqlite3.Statement,
    private readonly sql: string,
  ) {}

  run(...params: unknown[]): RunResult {
    return this.stmt.run(...params) as RunResult;
  }

  get(...params: unknown[]): Row | undefined {
    return this.stmt.get(...params) as Row | undefined;
  }

  all(...params: unknown[]): Row[] {
    return this.stmt.all(...params) as Row[];
  }

  iterate(...params: unknown[]): IterableIterator<Row> {
    return this.stmt.iterate(...params) as IterableIterator<Row>;
  }

  column(...params: unknown[]): unknown[] {
    this.plucked ??= this.db.prepare(this.sql).pluck(true);
    return this.plucked.all(...params);
  }
}

class BetterDatabase implements SqliteDatabase {
  readonly driver = 'better-sqlite3' as const;
  private readonly steps = new Map<string, BetterSqlite3.Statement>();

  constructor(private readonly db: BetterSqlite3.Database) {}

  get open(): boolean {
    return this.db.open;
  }

  get inTransaction(): boolean {
    return this.db.inTransaction;
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  prepare<Row = unknown>(sql: string): SqliteStatement<Row> {
    return new BetterStatement<Row>(this.db, this.db.prepare(sql), sql);
  }

  pragma(text: string): unknown {
    return this.db.pragma(text, { simple: true });
  }

  private readonly step: TransactionStep = (step) => {
    let stmt = this.steps.get(step);
    if (!stmt) this.steps.set(step, (stmt = this.db.prepare(TRANSACTION_SQL[step])));
    stmt.run();
  };

  transaction<T>(body: () => T, mode: 'deferred' | 'immediate' = 'deferred'): T {
    return inTransaction(this, this.step, body, mode);
  }

  close(): void {
    this.steps.clear();
    if (this.db.open) this.db.close();
  }
}

export function betterSqlite3Driver(): SqliteDriver {
  const Database = require('better-sqlite3') as typeof BetterSqlite3;
  return {
    name: 'better-sqlite3',
    open(file: string, options: SqliteOpenOptions = {}): SqliteDatabase {
      return new BetterDatabase(new Database(file, { timeout: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS }));
    },
  };
}
