/**
 * Production EventStore on PostgreSQL (the `pg` driver), for operators who already run, replicate
 * and back up PostgreSQL.
 *
 * The global order. A position taken from a sequence at insert time commits out of order under
 * concurrent transactions: a reader can pass position 8 while 7's transaction is still open, and
 * never see 7. Here every append takes one transaction-level advisory lock (keyed on the events
 * table), reads the head and writes head+1..head+n, and commits before the lock is released; so
 * positions are allocated in commit order, without holes, and whatever a snapshot sees is a
 * prefix of the log. A subscriber reading `position > checkpoint` can therefore never skip an
 * event that commits later. The cost: appends to one store run one at a time (as in SQLite and in
 * KurrentDB's single writer); the lock is held for one server-side function call and its commit,
 * never across a network round trip (docs/decisions.md, "PostgreSQL event store").
 *
 * Group commit. Since the lock is held through the commit's WAL flush, one append at a time would
 * mean one fsync per append, and concurrent writers (50 uploads at once) queue behind each other's
 * flushes until their callers time out. So the appends a process makes while one of its groups is
 * in flight wait in a queue and go together, as one call of the batch function: one lock, one
 * transaction, one flush for all of them. Each append keeps its own expected-revision check (one
 * that fails is answered alone; the others commit), the group's order is the queue's, and an
 * append in a group is durable when the caller asked for durability (postgres-group-commit.ts).
 *
 * Live subscriptions wait for a NOTIFY sent by the append's transaction (delivered at commit) on
 * one LISTEN connection per store; polling every `pollIntervalMs` is the fallback while that
 * connection is down.
 *
 * A server that stops answering without closing its connections (frozen, or cut off by a network
 * that drops rather than resets) fails queries after `queryTimeoutMs` as unavailable (503): the
 * connection is dropped and the next query opens a new one, so a failover or a thawed server is
 * picked up at once, and nothing waits on a dead socket until TCP gives up (~15 min). The LISTEN
 * connection carries no queries of its own, so it is asked to answer every `listenCheckMs`; one
 * that does not is dropped like a closed one (subscriptions poll, it reconnects).
 *
 * Data is stored as `json`, not `jsonb`: `json` keeps the text exactly (key order, `\u0000`,
 * number spelling), which is what the store must give back.
 */
import { randomUUID } from 'node:crypto';
// the driver is loaded when a store connects, not by every process that imports this library
import type pg from 'pg';
import {
  type AppendResult,
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
import { asUnavailable, PostgresGroupCommit } from './postgres-group-commit.js';
import { CHANNEL, COLUMNS, EVENTS, MIGRATION, MIGRATION_LOCK, SCHEMA_VERSION, STORE } from './postgres-schema.js';

const loadPg = async (): Promise<typeof pg> => (await import('pg')).default;

export interface PostgresEventStoreOptions {
  /** Fallback poll interval for live subscriptions while the LISTEN connection is down (ms, default 1000). */
  pollIntervalMs?: number;
  /** How long connect() waits for the server (ms, default 5000). */
  connectTimeoutMs?: number;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** How long a query waits for the server's answer before it fails as unavailable (ms, default 15000). */
  queryTimeoutMs?: number;
  /** How often the LISTEN connection must answer a query to be kept (ms, default 5000). */
  listenCheckMs?: number;
}

/** The schema's creation and upgrades may wait for another process's, and rewrite a large table. */
const MIGRATION_TIMEOUT_MS = 10 * 60_000;

const BATCH = 500;

interface Row {
  position: string;
  stream: string;
  revision: string;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  recorded_ms: number;
}

function toRecorded(row: Row): RecordedEvent {
  return {
    stream: row.stream,
    revision: Number(row.revision),
    position: Number(row.position),
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    recordedAt: row.recorded_ms,
  };
}

/** `postgres://user:secret@host/db` -> `postgres://***@host/db`, for messages. */
function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

export class PostgresEventStore implements EventStore {
  private readonly waiters = new Set<() => void>();
  /**
   * The highest position this store knows exists (its own appends, NOTIFY payloads, heads its
   * subscriptions read). A subscription that has read up to it has nothing new to read, so a
   * notice of an append it has already seen costs no query.
   */
  private knownHead = 0;
  /** bumped when appends may have been missed (LISTEN reconnected, closing): everyone reads again */
  private generation = 0;
  private readonly subscriptions = new Set<Subscription>();
  /** the appends, a group at a time (postgres-group-commit.ts) */
  private readonly group: PostgresGroupCommit;
  private listener: pg.Client | null = null;
  private listenerRetry: NodeJS.Timeout | null = null;
  private closed = false;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly clientConfig: pg.ClientConfig,
    private readonly id: string,
    private readonly pollIntervalMs: number,
    private readonly listenCheckMs: number,
  ) {
    this.group = new PostgresGroupCommit(pool, (head) => this.wake(head));
  }

  /** Connects, creates the tables on first use, and starts listening for appends. */
  static async connect(url: string, options: PostgresEventStoreOptions = {}): Promise<PostgresEventStore> {
    const clientConfig: pg.ClientConfig = {
      connectionString: url,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      query_timeout: options.queryTimeoutMs ?? 15_000,
      // an idle connection to a host that vanished is found out by the kernel within a minute or so
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      application_name: 'burrow',
    };
    const { Pool } = await loadPg();
    const pool = new Pool({ ...clientConfig, max: options.poolSize ?? 10 });
    // An idle connection that the server drops (restart, failover) must not crash the process;
    // the next query gets a fresh one.
    pool.on('error', () => undefined);
    let id: string;
    try {
      id = await PostgresEventStore.migrate(pool);
    } catch (error) {
      await pool.end().catch(() => undefined);
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`PostgreSQL at ${redact(url)} is not reachable: ${reason}`, { cause: error });
    }
    const store = new PostgresEventStore(
      pool,
      clientConfig,
      id,
      options.pollIntervalMs ?? 1000,
      options.listenCheckMs ?? 5000,
    );
    await store.listen();
    return store;
  }

  private static async migrate(pool: pg.Pool): Promise<string> {
    const client = await pool.connect();
    const run = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) =>
      // pg reads a query's own `query_timeout` (its types leave it out)
      client.query<R>({ text, values, query_timeout: MIGRATION_TIMEOUT_MS } as pg.QueryConfig);
    let failed: Error | undefined;
    try {
      await run('BEGIN');
      await run('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await run(MIGRATION);
      await run(`INSERT INTO ${STORE} (id, schema_version) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
        randomUUID(),
        SCHEMA_VERSION,
      ]);
      const { rows } = await run<{ id: string }>(`SELECT id FROM ${STORE}`);
      await run('COMMIT');
      return rows[0].id;
    } catch (error) {
      failed = error as Error;
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      // a connection that failed is not given to anyone else
      client.release(failed);
    }
  }

  /**
   * One connection LISTENs for every subscription of this store. When it drops, subscriptions
   * fall back on polling and it reconnects in the background; a reconnect wakes them all, since
   * notifications sent meanwhile are lost.
   */
  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new (await loadPg()).Client(this.clientConfig);
    const lost = () => {
      if (this.listener !== client) return;
      this.listener = null;
      client.end().catch(() => undefined);
      // a server that stopped answering would hold the socket half-closed: let it go now
      client.connection.stream.destroy();
      this.retryListen();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (message) => this.wake(Number(message.payload) || undefined));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch {
      client.end().catch(() => undefined);
      this.retryListen();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.listener = client;
    this.wake();
    this.checkListener(client);
  }

  /** Asks the LISTEN connection to answer every `listenCheckMs`; one that does not (in `query_timeout`) is lost. */
  private checkListener(client: pg.Client): void {
    const timer = setTimeout(() => {
      if (this.listener !== client) return;
      client.query('SELECT 1').then(
        () => this.checkListener(client),
        (error: Error) => client.emit('error', error),
      );
    }, this.listenCheckMs);
    timer.unref();
  }

  private retryListen(): void {
    if (this.closed || this.listenerRetry) return;
    this.listenerRetry = setTimeout(
      () => {
        this.listenerRetry = null;
        void this.listen();
      },
      Math.min(this.pollIntervalMs, 1000),
    );
    this.listenerRetry.unref();
  }

  /** Wake live subscriptions: the log reaches `position`, or (none given) may have grown. */
  private wake(position?: number): void {
    if (position === undefined) this.generation++;
    else if (position > this.knownHead) this.knownHead = position;
    else return;
    for (const wake of [...this.waiters]) wake();
  }

  async storeId(): Promise<string> {
    return this.id;
  }

  /** A query of the pool; a connection failure comes out as DependencyUnavailableError. */
  private async query<R extends pg.QueryResultRow>(config: pg.QueryConfig | string): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(config);
    } catch (error) {
      throw asUnavailable(error);
    }
  }

  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.group.append(stream, events, expected, true);
  }

  /** The writes go in the next group as one append: checked together, inserted together or not at all. */
  async appendAtomically(writes: StreamWrite[]): Promise<AppendResult[]> {
    return this.group.appendWrites(writes, true);
  }

  deferringDurability(): EventStore {
    return withWrites(this, (writes) => this.group.appendWrites(writes, false));
  }

  async readStream(stream: string, options: ReadOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    if (options.maxCount !== undefined && options.maxCount <= 0) return [];
    const { rows } = await this.query<Row>({
      name: `burrow-read-${backwards ? 'b' : 'f'}`,
      text: `SELECT ${COLUMNS} FROM ${EVENTS} WHERE stream = $1 AND ($2::bigint IS NULL OR revision ${backwards ? '<=' : '>='} $2)
             ORDER BY revision ${backwards ? 'DESC' : 'ASC'} LIMIT $3`,
      values: [stream, options.fromRevision ?? null, options.maxCount ?? null],
    });
    return rows.map(toRecorded);
  }

  async streamRevision(stream: string): Promise<number | null> {
    const { rows } = await this.query<{ r: string | null }>({
      name: 'burrow-stream-revision',
      text: `SELECT max(revision) AS r FROM ${EVENTS} WHERE stream = $1`,
      values: [stream],
    });
    return rows[0].r === null ? null : Number(rows[0].r);
  }

  async headPosition(): Promise<number> {
    const { rows } = await this.query<{ head: string }>(`SELECT coalesce(max(position), 0) AS head FROM ${EVENTS}`);
    return Number(rows[0].head);
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  subscribeToAll(options: SubscribeOptions, handlers: SubscriptionHandlers): Subscription {
    const prefixes = options.prefixes.length > 0 ? options.prefixes : null;
    let position = options.fromPosition;
    let stopped = false;
    let wake: (() => void) | null = null;

    // One statement, so one snapshot: the head and the batch agree. Every event at or below that
    // head is committed (appends commit in position order), so once the matching ones are
    // delivered the head is a safe checkpoint even when nothing matched.
    const read = () =>
      this.query<Row & { head: string }>({
        name: 'burrow-subscribe',
        text: `SELECT h.head, e.* FROM (SELECT coalesce(max(position), 0) AS head FROM ${EVENTS}) h
               LEFT JOIN LATERAL (
                 SELECT ${COLUMNS} FROM ${EVENTS}
                 WHERE position > $1 AND ($2::text[] IS NULL OR EXISTS (SELECT 1 FROM unnest($2::text[]) p WHERE starts_with(stream, p)))
                 ORDER BY position LIMIT ${BATCH}
               ) e ON true`,
        values: [position, prefixes],
      });

    const loop = async () => {
      while (!stopped && !this.closed) {
        const generation = this.generation;
        const { rows } = await read();
        const head = Number(rows[0].head);
        if (head > this.knownHead) this.knownHead = head;
        const events = rows.filter((r) => r.position !== null);
        for (const row of events) {
          if (stopped) return;
          await handlers.onEvent(toRecorded(row));
          position = Number(row.position);
        }
        if (events.length === BATCH) continue;
        if (head > position) position = head;
        await handlers.onCheckpoint?.(position);
        if (stopped || this.closed) return;
        const fresh = () => this.knownHead > position || this.generation !== generation;
        if (fresh()) continue; // appended while we were reading
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            this.waiters.delete(check);
            resolve();
          };
          const check = () => {
            if (fresh() || stopped || this.closed) done();
          };
          // the fallback: a NOTIFY lost while the LISTEN connection was down
          const timer = setTimeout(done, this.pollIntervalMs);
          wake = done;
          this.waiters.add(check);
        });
        wake = null;
      }
    };
    const running = loop().catch((error: Error) => {
      if (stopped) return;
      stopped = true;
      if (handlers.onError) handlers.onError(error);
      else console.error(JSON.stringify({ level: 'error', msg: 'subscription failed', error: error.message }));
    });
    const handle: Subscription = {
      stop: async () => {
        stopped = true;
        this.subscriptions.delete(handle);
        wake?.();
        await running;
      },
    };
    this.subscriptions.add(handle);
    return handle;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.listenerRetry) clearTimeout(this.listenerRetry);
    this.wake();
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => undefined);
    await this.pool.end();
  }
}

/**
 * Creates a database on the server of `serverUrl` (a URL of any database on it) and returns the new
 * database's URL: a test run's own store, or an operator's set-up script. `dropPostgresDatabase`
 * removes one, disconnecting its sessions.
 */
export async function createPostgresDatabase(serverUrl: string, name: string): Promise<string> {
  await onServer(serverUrl, (client) => client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`));
  const url = new URL(serverUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

export async function dropPostgresDatabase(serverUrl: string, name: string): Promise<void> {
  await onServer(serverUrl, (client) =>
    client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`),
  );
}

async function onServer(serverUrl: string, work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new (await loadPg()).Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}
