/**
 * Streams' newest revisions as one connection to the SQLite event store last read or wrote them
 * (null: no such stream), so that `streamRevision` answers without a query while they are current.
 * The connection's own commits update them as they commit (`set`, told by the group commit), and a
 * commit by any other connection to the file, of this process or another, changes SQLite's
 * `data_version` (which the connection's own commits never change): every remembered revision is
 * forgotten before the next answer. A read path's revision check (stream-facts.ts: every download
 * resolves a device) then costs that pragma (~5-15 µs) instead of an index lookup (~20-45 µs, measured
 * in the server).
 */

import type { SqliteStatement } from '@burrow/sqlite';

/** Streams remembered at most (all are forgotten past it). */
const REMEMBERED = 100_000;

export class RememberedRevisions {
  private readonly revisions = new Map<string, number | null>();
  private dataVersion: number | null = null;

  constructor(
    /** the connection's statement of that SQL (compiled once by the store) */
    private readonly statement: (sql: string) => SqliteStatement,
  ) {}

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
      this.dataVersion = version;
    }
    return this.revisions.get(stream);
  }

  /** What the connection read (after `get`) or committed. */
  set(stream: string, revision: number | null): void {
    if (this.revisions.size >= REMEMBERED && !this.revisions.has(stream)) this.revisions.clear();
    this.revisions.set(stream, revision);
  }
}
