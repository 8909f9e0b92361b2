/** The node:sqlite driver (`DatabaseSync`, built into Node 22.5+; used from 22.16, see driver.ts). */
import { createRequire } from 'node:module';
import type * as NodeSqlite from 'node:sqlite';
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
import { resultCodeName } from './result-codes.js';

const require = createRequire(import.meta.url);

/**
 * `require('node:sqlite')` without its ExperimentalWarning: Node 22 prints one on stderr when the
 * module loads (24 and 26 do not), which would land among the JSON log lines and in the stderr
 * that tests read. Only that warning is held back, only while the module loads.
 */
function loadNodeSqlite(): typeof NodeSqlite {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    const type =
      typeof rest[0] === 'string'
        ? rest[0]
        : ((rest[0] as { type?: string } | undefined)?.type ?? (warning as Error).name);
    const text = typeof warning === 'string' ? warning : warning.message;
    if (type === 'ExperimentalWarning' && /sqlite/i.test(text)) return;
    return (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  };
  try {
    return require('node:sqlite') as typeof NodeSqlite;
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** node:sqlite's errors carry `code: 'ERR_SQLITE_ERROR'` and the number in `errcode`: the code gets SQLite's name, as better-sqlite3 gives it. */
function named(error: unknown): unknown {
  const e = error as { code?: unknown; errcode?: unknown };
  if (e && e.code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number') {
    try {
      e.code = resultCodeName(e.errcode);
    } catch {
      // a frozen error keeps its code
    }
  }
  return error;
}

function* namingErrors<T>(rows: IterableIterator<T>): IterableIterator<T> {
  try {
    yield* rows;
  } catch (error) {
    throw named(error);
  }
}

type Params = NodeSqlite.SQLInputValue[];

class NodeStatement<Row> implements SqliteStatement<Row> {
  /** the same SQL returning arrays, for `column()` (made on first use) */
  private arrays: NodeSqlite.StatementSync | null = null;

  constructor(
    private readonly db: NodeDatabase,
    private readonly stmt: NodeSqlite.StatementSync,
    private readonly sql: string,
  ) {}

  run(...params: unknown[]): RunResult {
    try {
      return this.stmt.run(...(params as Params)) as RunResult;
    } catch (error) {
      throw named(error);
    }
  }

  get(...params: unknown[]): Row | undefined {
    try {
      return this.stmt.get(...(params as Params)) as Row | undefined;
    } catch (error) {
      throw named(error);
    }
  }

  all(...params: unknown[]): Row[] {
    try {
      return this.stmt.all(...(params as Params)) as Row[];
    } catch (error) {
      throw named(error);
    }
  }

  iterate(...params: unknown[]): IterableIterator<Row> {
    try {
      return namingErrors(this.stmt.iterate(...(params as Params)) as IterableIterator<Row>);
    } catch (error) {
      throw named(error);
    }
  }

  column(...params: unknown[]): unknown[] {
    if (!this.arrays) {
      this.arrays = this.db.statement(this.sql);
      this.arrays.setReturnArrays(true);
    }
    try {
      const rows = this.arrays.all(...(params as Params)) as unknown[];
      for (let i = 0; i < rows.length; i++) rows[i] = (rows[i] as unknown[])[0];
      return rows;
    } catch (error) {
      throw named(error);
    }
  }
}

class NodeDatabase implements SqliteDatabase {
  readonly driver = 'node:sqlite' as const;
  private readonly steps = new Map<string, NodeSqlite.StatementSync>();

  constructor(private readonly db: NodeSqlite.DatabaseSync) {}

  get open(): boolean {
    return this.db.isOpen;
  }

  get inTransaction(): boolean {
    return this.db.isTransaction;
  }

  /** A node:sqlite statement that, as better-sqlite3's, ignores named parameters it does not use. */
  statement(sql: string): NodeSqlite.StatementSync {
    try {
      const stmt = this.db.prepare(sql);
      stmt.setAllowUnknownNamedParameters(true);
      return stmt;
    } catch (error) {
      throw named(error);
    }
  }

  exec(sql: string): void {
    try {
      this.db.exec(sql);
    } catch (error) {
      throw named(error);
    }
  }

  prepare<Row = unknown>(sql: string): SqliteStatement<Row> {
    return new NodeStatement<Row>(this, this.statement(sql), sql);
  }

  pragma(text: string): unknown {
    const row = this.prepare<Record<string, unknown>>(`PRAGMA ${text}`).get();
    return row === undefined ? undefined : Object.values(row)[0];
  }

  private readonly step: TransactionStep = (step) => {
    let stmt = this.steps.get(step);
    if (!stmt) this.steps.set(step, (stmt = this.statement(TRANSACTION_SQL[step])));
    try {
      stmt.run();
    } catch (error) {
      throw named(error);
    }
  };

  transaction<T>(body: () => T, mode: 'deferred' | 'immediate' = 'deferred'): T {
    return inTransaction(this, this.step, body, mode);
  }

  close(): void {
    this.steps.clear();
    if (this.db.isOpen) this.db.close();
  }
}

export function nodeSqliteDriver(): SqliteDriver {
  const { DatabaseSync } = loadNodeSqlite();
  return {
    name: 'node:sqlite',
    open(file: string, options: SqliteOpenOptions = {}): SqliteDatabase {
      let db: NodeSqlite.DatabaseSync;
      try {
        db = new DatabaseSync(file, { timeout: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS });
      } catch (error) {
        throw named(error);
      }
      const wrapped = new NodeDatabase(db);
      try {
        // better-sqlite3's page cache (its build sets 16 MiB; SQLite's own default is 2 MiB)
        wrapped.exec('PRAGMA cache_size = -16000');
      } catch (error) {
        wrapped.close();
        throw error;
      }
      return wrapped;
    },
  };
}
