/**
 * Streams' newest revisions, and their newest events, as one connection to the SQLite event store
 * last read or wrote them (null: no such stream), so that `streamRevision` and the reads a command
 * makes before it appends answer without a query while they are current. The connection's own
 * commits update them as they commit (`set`, told by the group commit), and a commit by any other
 * connection to the file, of this process or another, changes SQLite's `data_version` (which the
 * connection's own commits never change): everything remembered is forgotten before the next
 * answer. A read path's revision check (stream-facts.ts: every download resolves a device) then
 * costs that pragma (~5-15 µs) instead of an index lookup (~20-45 µs, measured in the server).
 *
 * The newest event answers the reads a write makes before it appends (issue 37): a ledger's head
 * (the newest entry: `direction: 'backwards', maxCount: 1`), a cached aggregate's check that its
 * stream has not moved (`fromRevision` its revision: that one event), and a new stream's
 * (nothing: no query for a file's first version). Anything else reads the table.
 */

import type { RecordedEvent, ReadOptions } from './port.js';
import type { SqliteStatement } from '@burrow/sqlite';

/** A row of the `events` table, as SQLite returns it. */
export interface EventRow {
  position: number;
  stream: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
  recorded_at: number;
}

export function toRecorded(row: EventRow): RecordedEvent {
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

/** Streams remembered at most (all are forgotten past it). */
const REMEMBERED = 100_000;
/** Newest events remembered at most (their JSON is held: a few hundred bytes each). */
const REMEMBERED_EVENTS = 10_000;
/** An event whose JSON is longer is not remembered (the reads it serves are of small ones: at most ~40 MiB held). */
export const REMEMBERED_EVENT_CHARS = 4096;

export class RememberedRevisions {
  private readonly revisions = new Map<string, number | null>();
  private readonly newest = new Map<string, EventRow>();
  private dataVersion: number | null = null;

  constructor(
    /** the connection's statement of that SQL (compiled once by the store) */
    private readonly statement: (sql: string) => SqliteStatement,
  ) {}

  /**
   * Takes the `data_version` everything remembered is checked against, before the connection's
   * first commit: one another connection makes after this call is seen (a first `get` after the
   * connection's own commits would have taken their revisions with whatever came between).
   */
  watch(): void {
    this.get('');
  }

  /** The stream's revision: the remembered one, else `read()`'s, remembered. */
  of(stream: string, read: () => number | null): number | null {
    const remembered = this.get(stream);
    if (remembered !== undefined) return remembered;
    const revision = read();
    this.set(stream, revision);
    return revision;
  }

  /** The stream's remembered revision (null: no stream), or undefined when it must be read. */
  get(stream: string): number | null | undefined {
    const version = (this.statement('PRAGMA data_version').get() as { data_version: number }).data_version;
    if (version !== this.dataVersion) {
      this.revisions.clear();
      this.newest.clear();
      this.dataVersion = version;
    }
    return this.revisions.get(stream);
  }

  /** What the connection read (after `get`) or committed; `newest`: the stream's event at `revision`. */
  set(stream: string, revision: number | null, newest?: EventRow): void {
    if (this.revisions.size >= REMEMBERED && !this.revisions.has(stream)) this.revisions.clear();
    this.revisions.set(stream, revision);
    if (newest === undefined || newest.data.length + newest.metadata.length > REMEMBERED_EVENT_CHARS) {
      this.newest.delete(stream);
      return;
    }
    if (this.newest.size >= REMEMBERED_EVENTS && !this.newest.has(stream)) this.newest.clear();
    this.newest.set(stream, newest);
  }

  /**
   * The rows a read of `stream` with `options` returns, when what is remembered says (see the
   * header); undefined: read the table (then `readFromTable`).
   */
  read(stream: string, options: ReadOptions): EventRow[] | undefined {
    const revision = this.get(stream);
    if (revision === undefined) return undefined;
    if (revision === null) return [];
    const { fromRevision: from, maxCount } = options;
    if (maxCount !== undefined && maxCount < 1) return undefined;
    if (options.direction === 'backwards') {
      if (maxCount !== 1 || (from !== undefined && from < revision)) return undefined;
    } else {
      if (from !== undefined && from > revision) return [];
      if (from !== revision) return undefined;
    }
    const newest = this.newest.get(stream);
    return newest?.revision === revision ? [newest] : undefined;
  }

  /** What a read from the table (asked after `read`) showed of the stream's newest event. */
  readFromTable(stream: string, options: ReadOptions, rows: EventRow[]): void {
    if (options.maxCount === 0) return;
    const whole = options.maxCount === undefined || options.maxCount < 0;
    if (options.direction === 'backwards') {
      if (options.fromRevision === undefined && rows.length > 0) this.set(stream, rows[0].revision, rows[0]);
      else if (options.fromRevision === undefined) this.set(stream, null);
    } else if (whole && rows.length > 0) {
      const last = rows[rows.length - 1];
      this.set(stream, last.revision, last);
    } else if (whole && options.fromRevision === undefined) this.set(stream, null);
  }
}
