/**
 * What a read path derives from one stream (a name's holder, a device's owner and state, a user's
 * credential stamp), remembered per process together with the revision it was read at, so that a
 * hot read (every file download resolves a device and checks a session) costs the stream's newest
 * revision (`EventStore.streamRevision`, an index lookup) instead of reading and parsing events.
 *
 * Streams only grow: the port has no delete, and an event once written at a revision never
 * changes, so facts read at revision r hold as long as the newest revision is still r. Any append,
 * by this process or another replica, moves the revision and the next `get` reads again. A
 * revision other than the remembered one, lower included (a store restored from a backup: done with
 * the services stopped, docs/operations.md, so a process starts empty anyway), is read again too.
 *
 * Facts are shared between callers: the loaders return frozen objects or primitives.
 */
import type { EventStore } from '@burrow/event-store';

/** Facts read from a stream, and the revision of the newest event they reflect. */
export interface StreamFactsRead<T> {
  revision: number;
  facts: T;
}

const DEFAULT_LIMIT = 100_000;

export class StreamFacts<T> {
  /** per store object (each store, each view of one, keeps its own), stream -> facts; in insertion order */
  private readonly byStore = new WeakMap<EventStore, Map<string, StreamFactsRead<T>>>();

  constructor(
    /** streams remembered per store at most (the longest-remembered are forgotten first) */
    private readonly limit = DEFAULT_LIMIT,
  ) {}

  /**
   * The facts of `stream`: the remembered ones while the stream's newest revision is the one they
   * were read at, else `read()`'s (remembered in turn). null when the stream does not exist
   * (`read` is not called). `read` must report the revision of the newest event it saw, not one
   * read before it: facts are never remembered under a revision newer than they are.
   */
  async get(store: EventStore, stream: string, read: () => Promise<StreamFactsRead<T> | null>): Promise<T | null> {
    const top = await store.streamRevision(stream);
    if (top === null) return null;
    let known = this.byStore.get(store);
    if (!known) this.byStore.set(store, (known = new Map()));
    const seen = known.get(stream);
    if (seen?.revision === top) return seen.facts;
    const fresh = await read();
    if (!fresh) {
      known.delete(stream);
      return null;
    }
    known.delete(stream);
    if (known.size >= this.limit) known.delete(known.keys().next().value!);
    known.set(stream, fresh);
    return fresh.facts;
  }
}
