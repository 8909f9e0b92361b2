/**
 * Embedded EventStore: one SQLite file (WAL), shared safely by several processes on one host.
 *
 * Appends run in an IMMEDIATE transaction, so the revision check and the insert are atomic across
 * processes. Subscriptions poll by global position; `notifyAppended()` (called on local appends and
 * when another process announces one over the bus) makes them poll at once, so the poll interval is
 * only the fallback latency.
 */
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
  type SubscriptionHandlers,
  WrongExpectedRevisionError,
} from './port.js';

interface Row {
  position: number;
  stream: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
  recorded_at: number;
}

const BATCH = 500;

/**
 * How hard a commit waits for the disk. `full` (the default): the write-ahead log is fsynced at
 * every commit, so an acknowledged append survives a power loss or OS crash. `normal`: fsync only
 * at checkpoints; faster, still safe against a process crash, but a power loss can roll back the
 * last commits, which clients were told had succeeded.
 */
export type SqliteSynchronous = 'full' | 'normal';

export interface SqliteEventStoreOptions {
  /** Fallback poll interval for live subscriptions (ms). */
  pollIntervalMs?: number;
  /** default `full` */
  synchronous?: SqliteSynchronous;
  /** Called after every successful local append (e.g. to announce it on the bus). */
  onAppended?: (position: number) => void;
}

export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly waiters = new Set<() => void>();
  private readonly pollIntervalMs: number;
  private readonly id: string;
  private closed = false;

  private constructor(
    file: string,
    private readonly options: SqliteEventStoreOptions,
  ) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    makePrivate(file);
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        position    INTEGER PRIMARY KEY AUTOINCREMENT,
        stream      TEXT    NOT NULL,
        revision    INTEGER NOT NULL,
        type        TEXT    NOT NULL,
        data        TEXT    NOT NULL,
        metadata    TEXT    NOT NULL,
        recorded_at INTEGER NOT NULL,
        UNIQUE (stream, revision)
      );
      CREATE TABLE IF NOT EXISTS store_identity (
        singleton  INTEGER PRIMARY KEY CHECK (singleton = 1),
        id         TEXT    NOT NULL,
        created_at INTEGER NOT NULL
      );`);
    // the first process to open a new file names it; OR IGNORE keeps the name of an older one
    this.db.prepare('INSERT OR IGNORE INTO store_identity (singleton, id, created_at) VALUES (1, ?, ?)').run(randomUUID(), Date.now());
    this.id = (this.db.prepare('SELECT id FROM store_identity').get() as { id: string }).id;
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
  }

  static open(file: string, options: SqliteEventStoreOptions = {}): SqliteEventStore {
    return new SqliteEventStore(file, options);
  }

  /** The durability this connection runs with (read back from SQLite). */
  synchronous(): SqliteSynchronous | 'off' | 'extra' {
    return (['off', 'normal', 'full', 'extra'] as const)[this.db.pragma('synchronous', { simple: true }) as number];
  }

  /** Wake live subscriptions now (another process appended). */
  notifyAppended(): void {
    this.appends += 1;
    for (const wake of [...this.waiters]) wake();
  }

  /**
   * Counts `notifyAppended` calls: a subscription compares it before reading and before sleeping,
   * so an append made while it was delivering (no waiter registered yet) is not missed until the
   * next poll.
   */
  private appends = 0;

  setOnAppended(listener: (position: number) => void): void {
    this.options.onAppended = listener;
  }

  /** Statements are compiled once: preparing one costs more than running it. */
  private readonly statements = new Map<string, Database.Statement>();
  private statement(sql: string): Database.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) this.statements.set(sql, (stmt = this.db.prepare(sql)));
    return stmt;
  }

  private currentRevision(stream: string): number | null {
    return (this.statement('SELECT MAX(revision) AS r FROM events WHERE stream = ?').get(stream) as { r: number | null }).r;
  }

  private readonly appendTx = (stream: string, events: NewEvent[], expected: ExpectedRevision): AppendResult => {
    const current = this.currentRevision(stream);
    const actual = current ?? 'no_stream';
    const ok =
      expected === 'any' ||
      (expected === 'no_stream' && current === null) ||
      (expected === 'stream_exists' && current !== null) ||
      (typeof expected === 'number' && current === expected);
    if (!ok) throw new WrongExpectedRevisionError(stream, expected, actual);
    const insert = this.statement('INSERT INTO events (stream, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?)');
    let revision = current ?? -1;
    let position = 0;
    const now = Date.now();
    for (const e of events) {
      revision += 1;
      const info = insert.run(stream, revision, e.type, JSON.stringify(e.data), JSON.stringify(e.metadata ?? {}), now);
      position = Number(info.lastInsertRowid);
    }
    return { revision, position };
  };
  private appendTransaction: Database.Transaction<SqliteEventStore['appendTx']> | null = null;
  private appendImmediate(stream: string, events: NewEvent[], expected: ExpectedRevision): AppendResult {
    this.appendTransaction ??= this.db.transaction(this.appendTx);
    return this.appendTransaction.immediate(stream, events, expected);
  }

  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.appendSynced(stream, events, expected, true);
  }

  /**
   * With `durable` false the commit skips the fsync (synchronous=NORMAL for that one transaction).
   * The write-ahead log is one ordered file and SQLite recovers a prefix of its commits, so the
   * next fsynced commit, of this process or another sharing the file, makes this one durable too.
   */
  private async appendSynced(stream: string, events: NewEvent[], expected: ExpectedRevision, durable: boolean): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const relax = !durable && this.options.synchronous !== 'normal';
    if (relax) this.db.pragma('synchronous = NORMAL');
    let result: AppendResult;
    try {
      // Committed (and, with synchronous=FULL, fsynced) before the caller hears of it, and visible
      // to every read made after this call: command handlers rely on both.
      result = this.appendImmediate(stream, events, expected);
    } finally {
      if (relax) this.db.pragma('synchronous = FULL');
    }
    this.notifyAppended();
    this.options.onAppended?.(result.position);
    return result;
  }

  deferringDurability(): EventStore {
    const store = this;
    return {
      append: (stream, events, expected) => store.appendSynced(stream, events, expected, false),
      readStream: (stream, options) => store.readStream(stream, options),
      streamRevision: (stream) => store.streamRevision(stream),
      subscribeToAll: (options, handlers) => store.subscribeToAll(options, handlers),
      headPosition: () => store.headPosition(),
      storeId: () => store.storeId(),
      ping: () => store.ping(),
      close: () => store.close(),
    };
  }

  async readStream(stream: string, options: ReadOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision;
    const where = from === undefined ? '' : backwards ? 'AND revision <= @from' : 'AND revision >= @from';
    const rows = this.statement(`SELECT * FROM events WHERE stream = @stream ${where} ORDER BY revision ${backwards ? 'DESC' : 'ASC'} LIMIT @limit`)
      .all({ stream, from, limit: options.maxCount ?? -1 }) as Row[];
    return rows.map(toRecorded);
  }

  async streamRevision(stream: string): Promise<number | null> {
    return this.currentRevision(stream);
  }

  async headPosition(): Promise<number> {
    return (this.statement('SELECT MAX(position) AS p FROM events').get() as { p: number | null }).p ?? 0;
  }

  async storeId(): Promise<string> {
    return this.id;
  }

  async ping(): Promise<void> {
    this.statement('SELECT 1').get();
  }

  subscribeToAll(options: SubscribeOptions, handlers: SubscriptionHandlers): Subscription {
    const prefixes = options.prefixes;
    const filterSql = prefixes.length
      ? `AND (${prefixes.map((_, i) => `substr(stream, 1, length(@p${i})) = @p${i}`).join(' OR ')})`
      : '';
    const params: Record<string, unknown> = {};
    prefixes.forEach((p, i) => (params[`p${i}`] = p));
    const select = this.db.prepare(
      `SELECT * FROM events WHERE position > @after ${filterSql} ORDER BY position LIMIT ${BATCH}`,
    );
    const head = this.db.prepare('SELECT MAX(position) AS p FROM events');
    let stopped = false;
    let wake: (() => void) | null = null;
    let position = options.fromPosition;

    const loop = async () => {
      while (!stopped && !this.closed) {
        const appendsSeen = this.appends;
        // Read the head first: every event at or below it is committed, so after delivering the
        // matching ones we may report the head as our checkpoint even if nothing matched.
        const readTx = this.db.transaction(() => {
          const h = (head.get() as { p: number | null }).p ?? 0;
          const rows = select.all({ ...params, after: position }) as Row[];
          return { h, rows };
        });
        const { h, rows } = readTx();
        for (const row of rows) {
          if (stopped) return;
          await handlers.onEvent(toRecorded(row));
          position = row.position;
        }
        if (rows.length === BATCH) continue;
        if (h > position) position = h;
        await handlers.onCheckpoint?.(position);
        if (stopped) return;
        // appended while we were delivering: read again now rather than at the next poll
        if (this.appends !== appendsSeen) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, this.pollIntervalMs);
          function done() {
            clearTimeout(timer);
            resolve();
          }
          wake = done;
          this.waiters.add(done);
        });
        if (wake) this.waiters.delete(wake);
        wake = null;
      }
    };
    const running = loop().catch((error: Error) => {
      if (handlers.onError) handlers.onError(error);
      else console.error(JSON.stringify({ level: 'error', msg: 'subscription failed', error: error.message }));
    });
    return {
      stop: async () => {
        stopped = true;
        const w = wake as (() => void) | null;
        w?.();
        await running;
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.notifyAppended();
    this.db.close();
  }
}

/**
 * The file holds password hashes and personal data: owner-only (0600), set explicitly since the
 * umask filters the mode a file is created with. SQLite gives the -wal and -shm files it creates
 * the main file's mode; ones left by an older version are tightened too.
 */
function makePrivate(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      chmodSync(path, 0o600);
    } catch {
      // absent, or another user's (multi-process under several users): leave it
    }
  }
}

function toRecorded(row: Row): RecordedEvent {
  return {
    stream: row.stream,
    revision: row.revision,
    position: row.position,
    type: row.type,
    data: JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
    recordedAt: row.recorded_at,
  };
}
