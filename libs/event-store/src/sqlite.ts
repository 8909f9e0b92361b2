/**
 * Embedded EventStore: one SQLite file (WAL), shared safely by several processes on one host.
 *
 * Appends run in an IMMEDIATE transaction, so the revision check and the insert are atomic across
 * processes. Subscriptions poll by global position; `notifyAppended()` (called on local appends and
 * when another process announces one over the bus) makes them poll at the end of the current turn
 * of the event loop, so the poll interval is only the fallback latency. Wake-ups are coalesced
 * (see `scheduleWake`), and a deferred append is announced with the next durable one (see
 * `announce`): a read model applies the appends of several writes in one batch and one commit.
 *
 * Durability off the main thread: the connection commits with `synchronous=NORMAL` (no fsync inside
 * the commit, which would block the event loop: SQLite's drivers are synchronous), and a durable
 * append is acknowledged only after an `fdatasync` of the write-ahead log in the thread pool.
 * Concurrent durable appends share a sync (see `walSynced`).
 *
 * Group commit: the first append of a burst (the callbacks of one turn of the event loop and the
 * promise chains they set off) commits at once, alone, as every append did before; the appends
 * after it in the burst share one IMMEDIATE transaction, each in a savepoint of its own, so each
 * keeps its exact revision check and one failing append fails only itself (see `flush`). Any read
 * of this store commits what is queued first, so a read made after `append` was called sees the
 * append, as when each append committed inside the call. A lone append pays nothing for it.
 */
import { type SqliteDatabase, type SqliteDriver, sqliteDriver, type SqliteStatement } from '@burrow/sqlite';
import { randomUUID } from 'node:crypto';
import { close as closeFd, fdatasync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  type AppendResult,
  checkWrites,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
  type StreamWrite,
  type SubscriptionHandlers,
} from './port.js';
import { withWrites } from './deferring.js';
import { GroupCommit, lastPosition } from './sqlite-group-commit.js';
import { type EventRow, RememberedRevisions, toRecorded } from './sqlite-revisions.js';
import { makePrivate, useWal, whileBusy } from './sqlite-file.js';

type Row = EventRow;

const BATCH = 500;
/** A subscription catching up gives the event loop a turn at least this often (see `subscribeToAll`). */
const YIELD_EVERY_MS = 100;

/**
 * How hard an append waits for the disk. `full` (the default): the write-ahead log is fsynced
 * after every durable commit and before the append is acknowledged, so an acknowledged append
 * survives a power loss or OS crash. `normal`: fsync only at checkpoints; faster, still safe
 * against a process crash, but a power loss can roll back the last commits, which clients were
 * told had succeeded.
 */
export type SqliteSynchronous = 'full' | 'normal';

export interface SqliteEventStoreOptions {
  /** Fallback poll interval for live subscriptions (ms). */
  pollIntervalMs?: number;
  /** default `full` */
  synchronous?: SqliteSynchronous;
  /**
   * Called after successful local appends (e.g. to announce them on the bus): after each durable
   * one, and for deferred ones with the next durable append or `deferredAnnounceMs` after them.
   */
  onAppended?: (position: number) => void;
  /** The longest a deferred append waits to be announced (ms; default 25, at most the poll interval). */
  deferredAnnounceMs?: number;
  /** default: the process's (`sqliteDriver()`) */
  driver?: SqliteDriver;
}

export class SqliteEventStore implements EventStore {
  private readonly db: SqliteDatabase;
  private readonly waiters = new Set<() => void>();
  private readonly pollIntervalMs: number;
  private readonly id: string;
  private closed = false;
  /** `full` durability: the store fsyncs the write-ahead log itself after durable commits */
  private readonly syncsWal: boolean;
  private readonly walFile: string;

  private constructor(
    file: string,
    private readonly options: SqliteEventStoreOptions,
  ) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    makePrivate(file);
    this.syncsWal = options.synchronous !== 'normal';
    this.walFile = `${file}-wal`;
    this.db = (options.driver ?? sqliteDriver()).open(file, { busyTimeoutMs: 5000 });
    useWal(this.db);
    // Both modes commit without an fsync; `full` adds the store's own WAL sync before an
    // acknowledgement (appendSynced). NORMAL still fsyncs the WAL before a checkpoint copies it
    // into the database file and the database file after, so a checkpoint never loses a commit.
    this.db.pragma('synchronous = NORMAL');
    whileBusy(() =>
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
      );`),
    );
    // the first process to open a new file names it; OR IGNORE keeps the name of an older one
    whileBusy(() =>
      this.db
        .prepare('INSERT OR IGNORE INTO store_identity (singleton, id, created_at) VALUES (1, ?, ?)')
        .run(randomUUID(), Date.now()),
    );
    this.id = (this.db.prepare('SELECT id FROM store_identity').get() as { id: string }).id;
    this.revisions.watch(); // from here on, another connection's commit is seen
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.deferredAnnounceMs = Math.min(options.deferredAnnounceMs ?? 25, this.pollIntervalMs);
  }

  static open(file: string, options: SqliteEventStoreOptions = {}): SqliteEventStore {
    return new SqliteEventStore(file, options);
  }

  /**
   * The durability of an acknowledged append: `full` when the write-ahead log is on disk before
   * a durable append is acknowledged (SQLite's NORMAL commit, then the store's own WAL sync),
   * else what SQLite runs with (read back from the connection).
   */
  synchronous(): SqliteSynchronous | 'off' | 'extra' {
    const connection = (['off', 'normal', 'full', 'extra'] as const)[this.db.pragma('synchronous') as number];
    return connection === 'normal' && this.syncsWal ? 'full' : connection;
  }

  /** Wake live subscriptions (another process appended): at the end of this turn of the event loop. */
  notifyAppended(): void {
    this.scheduleWake();
  }

  /**
   * Wake-ups are coalesced: every append announced and notice received in one turn of the event
   * loop (the durable appends of concurrent writes settled by one WAL sync, each followed by its
   * write's end record) wakes the subscriptions once, when the turn's callbacks and their promise
   * chains are done (`setImmediate`), so they read all of it in one go and a read model applies it
   * in one batch and one commit, instead of one commit per append. Costs one hop of the event loop.
   */
  private scheduleWake(): void {
    if (this.wakeScheduled) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      this.wakeNow();
    });
  }
  private wakeScheduled = false;

  private wakeNow(): void {
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
  private readonly statements = new Map<string, SqliteStatement>();
  private statement(sql: string): SqliteStatement {
    let stmt = this.statements.get(sql);
    if (!stmt) this.statements.set(sql, (stmt = this.db.prepare(sql)));
    return stmt;
  }

  private currentRevision(stream: string): number | null {
    return (
      this.statement('SELECT MAX(revision) AS r FROM events WHERE stream = ?').get(stream) as { r: number | null }
    ).r;
  }

  /** Streams' newest revisions, answered without a query while current (sqlite-revisions.ts). */
  private readonly revisions = new RememberedRevisions((sql) => this.statement(sql));

  /** The group commit of appends (sqlite-group-commit.ts). */
  private readonly group = new GroupCommit({
    db: () => this.db,
    statement: (sql) => this.statement(sql),
    currentRevision: (stream) => this.currentRevision(stream),
    // committed by this connection: what it remembers of the stream is its new revision
    committed: (stream, revision, newest) => this.revisions.set(stream, revision, newest),
    syncsWal: () => this.syncsWal,
    walSynced: () => this.walSynced(),
    announce: (position, durable) => this.announce(position, durable),
  });

  /** append transactions committed (for tests: concurrent appends share them) */
  get appendTransactions(): number {
    return this.group.transactions;
  }

  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return (await this.appendSynced([{ stream, events, expected }], true))[0];
  }

  async appendAtomically(writes: StreamWrite[]): Promise<AppendResult[]> {
    return this.appendSynced(writes, true);
  }

  /**
   * Every commit is made without an fsync (synchronous=NORMAL) and is visible to every read made
   * after this call (a read commits what is queued first: `flush`), durable or not, and at the
   * latest when the append's promise settles: command handlers rely on that. A
   * durable append then waits for the WAL sync that covers it before it is announced and
   * acknowledged; with `durable` false (the deferred view) it is announced at once. The
   * write-ahead log is one ordered file and SQLite recovers a prefix of its commits, so the next
   * synced commit, of this process or another sharing the file, makes a deferred one durable too.
   */
  private async appendSynced(writes: StreamWrite[], durable: boolean): Promise<AppendResult[]> {
    checkWrites(writes);
    if (this.group.inBurst) return this.group.commitSoon(writes, durable);
    const result = this.group.commitNow(writes);
    // Announced once durable: a subscriber woken now would find it (committed), but another process
    // told of it must not act on an append a power loss can still roll back before its writer heard.
    if (durable && this.syncsWal) await this.walSynced();
    this.announce(lastPosition(result), durable);
    return result;
  }

  /**
   * A durable append is announced (subscriptions woken, `onAppended`) once acknowledged. A
   * deferred one is announced with the next durable append, or `deferredAnnounceMs` after it if
   * none comes first: the steps of a write before its durable commit point, its end record after
   * it and the previewer's decisions then reach the read models with the commit point's batch
   * instead of each in a batch (and a read-model commit) of its own. Nobody who waits is delayed
   * by it: a subscription reads everything up to the head when woken (what the next durable
   * announcement reports covers every earlier commit), and a projection runner asked to wait for
   * a position it has not reached wakes its subscription itself (`Subscription.wake`).
   */
  private announce(position: number, durable: boolean): void {
    if (!durable) {
      this.deferredPosition = position;
      this.deferredTimer ??= setTimeout(() => {
        this.deferredTimer = null;
        this.announce(this.deferredPosition, true);
      }, this.deferredAnnounceMs);
      return;
    }
    if (this.deferredTimer) clearTimeout(this.deferredTimer);
    this.deferredTimer = null;
    this.scheduleWake();
    // after close() the bus may be gone; the other processes' subscriptions poll
    if (!this.closed) this.options.onAppended?.(Math.max(position, this.deferredPosition));
  }
  private readonly deferredAnnounceMs: number;
  private deferredPosition = 0;
  private deferredTimer: NodeJS.Timeout | null = null;

  /**
   * Group commit of the WAL syncs. A sync covers every commit made before it started (their
   * frames are written to the WAL file when the commit returns), so the waiters queued when a sync
   * starts are resolved by it, and the ones arriving while it runs by the next one, started as
   * soon as it ends. N concurrent durable appends share about two syncs instead of N fsyncs, and
   * the main thread never waits for the disk.
   */
  private walSynced(): Promise<void> {
    this.walFd ??= openSync(this.walFile, 'r');
    return new Promise<void>((resolve, reject) => {
      this.syncWaiters.push({ resolve, reject });
      if (!this.syncing) this.syncing = this.runSyncs();
    });
  }

  private syncWaiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  private syncing: Promise<void> | null = null;
  private syncFailure: Error | null = null;
  /** WAL syncs done (for tests: concurrent appends share them) */
  walSyncs = 0;

  private async runSyncs(): Promise<void> {
    // Suspend before anything else: `syncing` is assigned this promise when this first returns,
    // and the `finally` below must not clear it before that (a loop that finished without an
    // await would leave a settled promise in `syncing`: no later sync would start, and close()
    // would wait on it forever). It waits for the end of the burst (see `commitNow`): the appends
    // queued behind the first are committed then (`endBurst`, a tick queued before this one) and
    // join this sync instead of waiting for the next.
    await new Promise<void>((resolve) => queueMicrotask(() => process.nextTick(resolve)));
    try {
      while (this.syncWaiters.length > 0) {
        const group = this.syncWaiters;
        this.syncWaiters = [];
        try {
          if (this.syncFailure) throw this.syncFailure;
          await this.syncWal();
          this.walSyncs += 1;
          for (const waiter of group) waiter.resolve();
        } catch (error) {
          // EIO on writeback: the commits may not be on disk, and their writers are told so. It
          // sticks: the kernel reports a failed writeback once and may have dropped those pages,
          // so a later sync succeeding says nothing of the frames before it, and SQLite recovers
          // the WAL only up to the first bad frame. Durable appends fail until a restart.
          this.syncFailure ??= error as Error;
          for (const waiter of group) waiter.reject(error as Error);
        }
      }
    } finally {
      this.syncing = null;
    }
  }

  /**
   * fdatasync of the `-wal` file, in the thread pool, through a descriptor opened at the first
   * durable commit (on the main thread, once: the commit has just written to the file, so it
   * exists) and kept to close(). It stays the right file: SQLite deletes the WAL only when the last
   * connection to the database closes (it must get the database file's exclusive lock, and an
   * open WAL-mode connection, ours, keeps a shared one), and otherwise reuses it in place (a
   * checkpoint rewinds or truncates it: same inode), so the descriptor and SQLite's own name the
   * same file for as long as this connection is open, and after close() the unlinked inode is
   * still the file the waiting commits were written to.
   */
  private syncWal(): Promise<void> {
    const fd = this.walFd;
    if (fd === null) return Promise.reject(new Error('no write-ahead log descriptor'));
    return new Promise<void>((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
  }
  private walFd: number | null = null;

  deferringDurability(): EventStore {
    return withWrites(this, (writes) => this.appendSynced(writes, false));
  }

  async readStream(stream: string, options: ReadOptions = {}): Promise<RecordedEvent[]> {
    this.group.flush();
    const remembered = this.revisions.read(stream, options);
    if (remembered) return remembered.map(toRecorded);
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision;
    const where = from === undefined ? '' : backwards ? 'AND revision <= @from' : 'AND revision >= @from';
    const params =
      from === undefined ? { stream, limit: options.maxCount ?? -1 } : { stream, from, limit: options.maxCount ?? -1 };
    const rows = this.statement(
      `SELECT * FROM events WHERE stream = @stream ${where} ORDER BY revision ${backwards ? 'DESC' : 'ASC'} LIMIT @limit`,
    ).all(params) as Row[];
    this.revisions.readFromTable(stream, options, rows);
    return rows.map(toRecorded);
  }

  async streamRevision(stream: string): Promise<number | null> {
    this.group.flush();
    return this.revisions.of(stream, () => this.currentRevision(stream));
  }

  async headPosition(): Promise<number> {
    this.group.flush();
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
      `SELECT * FROM events WHERE position > @after AND position <= @upto ${filterSql} ORDER BY position LIMIT ${BATCH}`,
    );
    const head = this.db.prepare('SELECT MAX(position) AS p FROM events');
    let stopped = false;
    let wake: (() => void) | null = null;
    let position = options.fromPosition;

    let lastYield = performance.now();
    const loop = async () => {
      while (!stopped && !this.closed) {
        const appendsSeen = this.appends;
        this.group.flush();
        // The head first, then what matches at or below it, each statement its own snapshot: every
        // event at or below a head once read is committed (positions are given under the write lock,
        // in commit order), and one committed after is above it, read next time, never skipped. So
        // the head is our checkpoint once those are delivered, even if nothing matched; nothing new
        // (a wake for another's append already read): no query.
        const h = (head.get() as { p: number | null }).p ?? 0;
        const rows = h > position ? (select.all({ ...params, after: position, upto: h }) as Row[]) : [];
        for (const row of rows) {
          if (stopped) return;
          await handlers.onEvent(toRecorded(row));
          position = row.position;
        }
        if (rows.length === BATCH) {
          // A catch-up delivers batch after batch in promise chains alone: without a turn of the
          // event loop now and then, a rebuild held every timer and socket of the process until it
          // was done (no progress log, no /readyz answer). One hop per YIELD_EVERY_MS.
          if (performance.now() - lastYield >= YIELD_EVERY_MS) {
            await new Promise<void>((resolve) => setImmediate(resolve));
            lastYield = performance.now();
          }
          continue;
        }
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
      wake: () => this.scheduleWake(),
      stop: async () => {
        stopped = true;
        const w = wake;
        w?.();
        await running;
      },
    };
  }

  /**
   * Closes the connection at once, as before the WAL sync moved off the main thread (callers may
   * not await this), then settles every durable append still waiting for its sync: the kept
   * descriptor still names the WAL file's inode, so the sync after the close is as good as one
   * before it; and if this was the last connection, SQLite's closing checkpoint has already
   * fsynced the WAL, copied it into the database file and fsynced that. Nothing is left pending:
   * a waiter is resolved by a sync or rejected with its error.
   */
  async close(): Promise<void> {
    if (!this.closing) {
      this.closed = true;
      if (this.deferredTimer) clearTimeout(this.deferredTimer);
      this.deferredTimer = null;
      this.wakeNow();
      // the appends already called are committed (or fail) before the connection goes
      this.group.flush();
      this.db.close();
      this.closing = this.settleSyncs();
    }
    return this.closing;
  }
  private closing: Promise<void> | null = null;

  private async settleSyncs(): Promise<void> {
    while (this.syncing) await this.syncing;
    const fd = this.walFd;
    this.walFd = null;
    if (fd !== null) await new Promise<void>((resolve) => closeFd(fd, () => resolve()));
  }
}
