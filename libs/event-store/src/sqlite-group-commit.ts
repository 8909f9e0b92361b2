/**
 * Group commit of the SQLite event store's appends (sqlite.ts, issue 37): the first append of a
 * burst commits at once, alone; the appends after it in the burst share one IMMEDIATE transaction,
 * each in a savepoint of its own. A burst is the callbacks of one turn of the event loop and the
 * promise chains they start; it ends after their promise jobs (see `commitNow`).
 */
import type { SqliteDatabase, SqliteStatement } from '@burrow/sqlite';
import type { EventRow } from './sqlite-revisions.js';
import {
  type AppendResult,
  type ExpectedRevision,
  type NewEvent,
  type StreamWrite,
  WrongExpectedRevisionError,
} from './port.js';

/** What the group commit needs of its store. */
export interface GroupCommitHost {
  db(): SqliteDatabase;
  statement(sql: string): SqliteStatement;
  currentRevision(stream: string): number | null;
  /** an append of this connection committed: `stream` is now at `revision`, `newest` its event there (told in commit order) */
  committed(stream: string, revision: number, newest: EventRow | undefined): void;
  /** `full` durability: durable appends wait for the store's WAL sync */
  syncsWal(): boolean;
  /** resolves once a WAL sync that started after this call is done */
  walSynced(): Promise<void>;
  announce(position: number, durable: boolean): void;
}

/** An append (one write, or several streams' all or nothing) waiting for the end of its burst. */
interface QueuedAppend {
  writes: StreamWrite[];
  /** acknowledged after the WAL sync (else at the commit: the deferred view) */
  durable: boolean;
  resolve(results: AppendResult[]): void;
  reject(error: unknown): void;
}

/** The position of an append's last event (its writes are inserted in order, in one transaction). */
export const lastPosition = (results: AppendResult[]): number => results[results.length - 1].position;

export class GroupCommit {
  /** appends called and not yet committed, in call order (see `flush`) */
  private queued: QueuedAppend[] = [];
  /** an append committed in this burst: the next ones queue for `flush` at its end */
  inBurst = false;
  /** append transactions committed */
  transactions = 0;
  /** each write's newest event, as its row, until its commit is told (`tellCommitted`) */
  private readonly newestRows = new WeakMap<AppendResult, EventRow>();

  constructor(private readonly host: GroupCommitHost) {}

  private readonly endBurst = () => {
    this.inBurst = false;
    this.flush();
  };

  /** The events appended with the revision check, inside the caller's transaction. */
  private appendTx(stream: string, events: NewEvent[], expected: ExpectedRevision): AppendResult {
    const current = this.host.currentRevision(stream);
    const actual = current ?? 'no_stream';
    const ok =
      expected === 'any' ||
      (expected === 'no_stream' && current === null) ||
      (expected === 'stream_exists' && current !== null) ||
      (typeof expected === 'number' && current === expected);
    if (!ok) throw new WrongExpectedRevisionError(stream, expected, actual);
    const insert = this.host.statement(
      'INSERT INTO events (stream, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    let revision = current ?? -1;
    let position = 0;
    const now = Date.now();
    let data = '';
    let metadata = '';
    for (const e of events) {
      revision += 1;
      data = JSON.stringify(e.data);
      metadata = JSON.stringify(e.metadata ?? {});
      position = Number(insert.run(stream, revision, e.type, data, metadata, now).lastInsertRowid);
    }
    const result = { revision, position };
    const last = events[events.length - 1];
    if (last)
      this.newestRows.set(result, { position, stream, revision, type: last.type, data, metadata, recorded_at: now });
    return result;
  }

  /** Every write of one append, inside the caller's transaction or savepoint: a failing check throws, and the caller rolls back the ones before it. */
  private writesTx(writes: StreamWrite[]): AppendResult[] {
    return writes.map((w) => this.appendTx(w.stream, w.events, w.expected));
  }

  /** The connection committed these writes: it remembers their streams' new revisions. */
  private tellCommitted(writes: StreamWrite[], results: AppendResult[]): void {
    writes.forEach((w, i) => this.host.committed(w.stream, results[i].revision, this.newestRows.get(results[i])));
  }

  /**
   * The first append of a burst: committed now, alone (what a lone append costs: no wait, no
   * queue). The burst ends after the promise jobs this turn has queued, and those they queue,
   * have run (a tick queued from a promise job runs once the promise jobs are drained): every
   * append one callback sets off after this one joins the queue, and no later turn of the event
   * loop waits for it.
   */
  commitNow(writes: StreamWrite[]): AppendResult[] {
    this.inBurst = true;
    queueMicrotask(() => process.nextTick(this.endBurst));
    const results = this.host.db().transaction(() => this.writesTx(writes), 'immediate');
    this.transactions += 1;
    this.tellCommitted(writes, results);
    return results;
  }

  /** Queues an append for the `flush` at the end of the burst (or before a read): settled as the store's `appendSynced` says. */
  commitSoon(writes: StreamWrite[], durable: boolean): Promise<AppendResult[]> {
    return new Promise<AppendResult[]>((resolve, reject) => {
      this.queued.push({ writes, durable, resolve, reject });
    });
  }

  /**
   * Commits every queued append in one IMMEDIATE transaction (one lock, one set of WAL frames: the
   * events' pages and `sqlite_sequence` written once for the group). Each append (every write
   * of an atomic one) runs in a savepoint: a revision check that fails rolls back that append alone
   * and rejects its promise;
   * the others commit. Appends to one stream in one group are checked in call order, each against
   * the revisions the ones before it wrote, as if committed one by one. An error that ends the
   * whole transaction (the disk full: SQLite rolls it back) or a failed COMMIT rejects every
   * append of the group: none of them is in the store. Synchronous: the store's reads call it first.
   *
   * The group's durable appends then wait for one WAL sync, asked for here, at the commit (the
   * log's descriptor is opened while the connection that wrote it is open, even when close()
   * called this), and are announced and acknowledged after it; deferred ones at once.
   */
  flush(): void {
    const group = this.queued;
    if (group.length === 0) return;
    this.queued = [];
    const db = this.host.db();
    let outcomes: ({ ok: AppendResult[] } | { error: unknown })[];
    try {
      outcomes = db.transaction(() => {
        if (group.length === 1) return [{ ok: this.writesTx(group[0].writes) }];
        return group.map(({ writes }) => {
          try {
            return { ok: db.transaction(() => this.writesTx(writes)) };
          } catch (error) {
            // SQLite ended the whole transaction (some errors do): nothing of the group stays
            if (!db.inTransaction) throw error;
            return { error };
          }
        });
      }, 'immediate');
      this.transactions += 1;
    } catch (error) {
      for (const append of group) append.reject(error);
      return;
    }
    group.forEach((append, i) => {
      const outcome = outcomes[i];
      if ('ok' in outcome) this.tellCommitted(append.writes, outcome.ok);
    });
    let synced: Promise<void> | null = null;
    if (this.host.syncsWal() && group.some((append, i) => append.durable && 'ok' in outcomes[i])) {
      try {
        synced = this.host.walSynced();
      } catch (error) {
        synced = Promise.reject(error); // the log could not be opened: not acknowledged
      }
    }
    // settled in call order (announcements in position order): the sync's callbacks run in the order they were attached
    group.forEach((append, i) => {
      const outcome = outcomes[i];
      if (!('ok' in outcome)) append.reject(outcome.error);
      else if (append.durable && synced) {
        // Announced only once durable: a subscriber woken now would still find the event (it is
        // committed), but another process told of it must not act on an append that a power
        // loss can still roll back before its writer was answered.
        synced.then(() => {
          this.host.announce(lastPosition(outcome.ok), true);
          append.resolve(outcome.ok);
        }, append.reject);
      } else {
        this.host.announce(lastPosition(outcome.ok), append.durable);
        append.resolve(outcome.ok);
      }
    });
  }
}
