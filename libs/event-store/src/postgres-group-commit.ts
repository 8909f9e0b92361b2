/**
 * Group commit of the PostgreSQL event store's appends (postgres.ts, "Group commit" in its
 * header): the appends a process makes while one of its groups is in flight wait in a queue and go
 * together, as one call of the batch function; each keeps its own expected-revision check. And
 * which errors are the connection's rather than the statement's (the store's queries ask too).
 */
import { DependencyUnavailableError } from '@burrow/contracts';
import type pg from 'pg';
import {
  type AppendResult,
  checkWrites,
  type ExpectedRevision,
  type NewEvent,
  type StreamWrite,
  WrongExpectedRevisionError,
} from './port.js';
import { APPEND_BATCH } from './postgres-schema.js';

/** bounds on one group: its events and its bytes of JSON (the lock is held while it is written) */
const GROUP_MAX_EVENTS = 2000;
const GROUP_MAX_BYTES = 8 * 1024 * 1024;

/** One stream's part of an append, as the batch function takes it. */
interface PendingWrite {
  stream: string;
  code: number;
  expected: ExpectedRevision;
  types: string[];
  data: string[];
  metadata: string[];
}

/** An append (one write, or several streams' all or nothing) waiting for its group. */
interface PendingAppend {
  writes: PendingWrite[];
  events: number;
  bytes: number;
  durable: boolean;
  resolve(results: AppendResult[]): void;
  reject(error: unknown): void;
}

function expectedCode(expected: ExpectedRevision): number {
  switch (expected) {
    case 'any':
      return -1;
    case 'no_stream':
      return -2;
    case 'stream_exists':
      return -3;
    default:
      if (!Number.isSafeInteger(expected) || expected < 0)
        throw new RangeError(`invalid expected revision ${String(expected)}`);
      return expected;
  }
}

/** An error of the connection (or the pool) rather than one the server gave for this statement. */
function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  // SQLSTATE classes 08 (connection), 57 (operator intervention: shutdown), 53 (resources)
  return typeof code !== 'string' || /^(08|57|53)/.test(code) || !/^[0-9A-Z]{5}$/.test(code);
}

/** A connection failure as what it means to a request: the event store is unavailable (503, retry). */
export const asUnavailable = (error: unknown) =>
  isConnectionError(error) ? new DependencyUnavailableError('event store', error) : error;

export class PostgresGroupCommit {
  /** appends waiting for the group in flight to finish (group commit) */
  private queue: PendingAppend[] = [];
  private flushing = false;

  constructor(
    private readonly pool: pg.Pool,
    /** told the highest position a committed group wrote */
    private readonly committed: (head: number) => void,
  ) {}

  /** Queues an append for the next group; resolves once its group is committed (and flushed, when `durable`). */
  async append(
    stream: string,
    events: NewEvent[],
    expected: ExpectedRevision,
    durable: boolean,
  ): Promise<AppendResult> {
    return (await this.appendWrites([{ stream, events, expected }], durable))[0];
  }

  /** Queues writes to several streams, all or nothing, for the next group (`EventStore.appendAtomically`). */
  appendWrites(writes: StreamWrite[], durable: boolean): Promise<AppendResult[]> {
    let pending: PendingWrite[];
    try {
      checkWrites(writes);
      pending = writes.map(({ stream, events, expected }) => ({
        stream,
        code: expectedCode(expected),
        expected,
        types: events.map((e) => e.type),
        data: events.map((e) => JSON.stringify(e.data)),
        metadata: events.map((e) => JSON.stringify(e.metadata ?? {})),
      }));
    } catch (error) {
      return Promise.reject(error);
    }
    const events = pending.reduce((sum, w) => sum + w.types.length, 0);
    const bytes = pending.reduce(
      (sum, w) => sum + w.data.reduce((a, d) => a + d.length, 0) + w.metadata.reduce((a, m) => a + m.length, 0),
      0,
    );
    return new Promise<AppendResult[]>((resolve, reject) => {
      this.queue.push({ writes: pending, events, bytes, durable, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  /** Sends the queued appends, a group at a time, until the queue is empty. */
  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        let events = 0;
        let bytes = 0;
        let take = 0;
        while (take < this.queue.length) {
          const next = this.queue[take];
          if (take > 0 && (events + next.events > GROUP_MAX_EVENTS || bytes + next.bytes > GROUP_MAX_BYTES)) break;
          events += next.events;
          bytes += next.bytes;
          take++;
        }
        const group = this.queue.splice(0, take);
        await this.appendGroup(group);
      }
    } finally {
      this.flushing = false;
    }
  }

  private async appendGroup(group: PendingAppend[]): Promise<void> {
    let rows: {
      o_item: number;
      o_last_revision: string | null;
      o_last_position: string | null;
      o_actual: string | null;
    }[];
    const writes = group.flatMap((a) => a.writes);
    try {
      ({ rows } = await this.pool.query({
        name: 'burrow-append-batch-writes',
        text: `SELECT o_item, o_last_revision, o_last_position, o_actual FROM ${APPEND_BATCH}($1, $2, $3, $4, $5, $6, $7, $8)`,
        values: [
          writes.map((w) => w.stream),
          writes.map((w) => w.code),
          writes.map((w) => w.types.length),
          writes.flatMap((w) => w.types),
          writes.flatMap((w) => w.data),
          writes.flatMap((w) => w.metadata),
          group.some((a) => a.durable),
          group.map((a) => a.writes.length),
        ],
      }));
    } catch (error) {
      // One append the server refuses (not a wrong revision: those are answered per append) must
      // not fail the others of its group: alone, each gets its own answer.
      if (group.length > 1 && !isConnectionError(error)) {
        for (const a of group) await this.appendGroup([a]);
        return;
      }
      for (const a of group) a.reject(asUnavailable(error));
      return;
    }
    // Committed (and, when any append of the group asked for it, flushed) before anyone hears of it.
    let head = 0;
    rows.sort((x, y) => x.o_item - y.o_item); // one per write, in the writes' order
    let first = 0; // the row of each append's first write
    for (const a of group) {
      const own = rows.slice(first, first + a.writes.length);
      first += a.writes.length;
      const wrong = own.findIndex((row) => row.o_actual !== null);
      if (wrong >= 0 || own.some((row) => row.o_last_position === null)) {
        const w = a.writes[Math.max(wrong, 0)];
        const actual = wrong < 0 || own[wrong].o_actual === 'no_stream' ? 'no_stream' : Number(own[wrong].o_actual);
        a.reject(new WrongExpectedRevisionError(w.stream, w.expected, actual));
        continue;
      }
      const results = own.map((row) => ({
        revision: Number(row.o_last_revision),
        position: Number(row.o_last_position),
      }));
      head = Math.max(head, results[results.length - 1].position);
      a.resolve(results);
    }
    if (head > 0) this.committed(head);
  }
}
