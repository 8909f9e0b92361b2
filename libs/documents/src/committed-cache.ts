/**
 * What a writer's consecutive batches know of the store between them (`CommittedCache`), so a
 * rebuild's lookups of documents already committed, or never written, need not ask the store. The
 * unit of work (write-behind.ts) reads through it and the projection runner feeds it commits.
 */
import { IdFilter } from './id-filter.js';
import type { Document, Write } from './port.js';

/**
 * The ids of every document a writer put since it emptied the store, per collection: exact (a
 * set of ids) while few, then a Bloom filter (`IdFilter`), so that during a rebuild a lookup of a
 * document nobody wrote yet is answered "absent" without asking the store, however many documents
 * the rebuild writes. `mayHold` is false only for an id never added; a deleted document's id stays
 * (it is then asked of the store, which answers that it is gone).
 */
class PresentIds {
  private exact: Map<string, Set<string>> | null = new Map();
  private filter: IdFilter | null = null;
  size = 0;

  constructor(private readonly maxExact: number) {}

  add(collection: string, id: string): void {
    if (this.exact) {
      let ids = this.exact.get(collection);
      if (!ids) this.exact.set(collection, (ids = new Set()));
      if (ids.has(id)) return;
      ids.add(id);
      if (++this.size > this.maxExact) {
        this.filter = new IdFilter();
        for (const [c, set] of this.exact) for (const i of set) this.filter.add(c, i);
        this.exact = null;
      }
    } else {
      this.filter!.add(collection, id);
      this.size++;
    }
  }

  /** A document deleted: its id goes while exact (a filter keeps it: a lookup then asks the store). */
  forget(collection: string, id: string): void {
    if (this.exact?.get(collection)?.delete(id)) this.size--;
  }

  mayHold(collection: string, id: string): boolean {
    return this.exact ? this.exact.get(collection)?.has(id) === true : this.filter!.mayHold(collection, id);
  }
}

/**
 * Documents known to be in the store as committed, shared by consecutive batches of one writer.
 * Valid only while nobody else writes: the runner drops it when a commit finds another writer went
 * first. After a build from empty (`startComplete`) it also knows which documents the store holds
 * (`PresentIds`), so a miss of a document never written means "absent" without asking the store.
 */
export class CommittedCache {
  private readonly collections = new Map<string, Map<string, Document | null>>();
  /** while complete: the ids of every document put since the store was emptied (kept when documents are evicted) */
  private present: PresentIds | null = null;
  private size = 0;

  /**
   * Bounded for the server's memory (issue 23: RSS < 512 MiB with 1M users): at most `maxEntries`
   * documents; the ids of a build from empty exactly up to `maxExact`, then in a 4 MiB Bloom
   * filter (a 1M-user rebuild writes ~3M documents: as a set of ids that was ~250 MiB), given up
   * past `maxPresent` ids, where it answers "maybe" too often to be worth it (then every miss asks
   * the store: an SQLite lookup by id).
   */
  constructor(
    private readonly maxEntries = 20_000,
    private readonly maxPresent = 8_000_000,
    private readonly maxExact = 50_000,
  ) {}

  /** The store was just emptied by this writer: every document it will hold passes through here. */
  startComplete(): void {
    this.clear();
    this.present = new PresentIds(this.maxExact);
  }

  /** undefined: unknown (ask the store) */
  lookup(collection: string, id: string): Document | null | undefined {
    const hit = this.collections.get(collection)?.get(id);
    if (hit !== undefined) return hit;
    if (!this.present) return undefined;
    return this.present.mayHold(collection, id) ? undefined : null;
  }

  remember(collection: string, id: string, doc: Document | null): void {
    let docs = this.collections.get(collection);
    if (!docs) this.collections.set(collection, (docs = new Map()));
    if (!docs.has(id)) this.size++;
    docs.set(id, doc);
    if (this.present && doc) {
      this.present.add(collection, id);
      if (this.present.size > this.maxPresent) this.present = null;
    } else if (this.present) this.present.forget(collection, id);
    if (this.size > this.maxEntries) this.evictDocuments();
  }

  /** A committed batch: its writes are now what the store holds. */
  absorb(writes: Write[]): void {
    for (const w of writes) {
      // which unseen documents a filter removed is unknown: start over
      if (w.kind === 'clear' || w.kind === 'deleteMany') this.clear();
      else if (w.kind === 'put') this.remember(w.collection, w.doc._id, w.doc);
      else this.remember(w.collection, w.id, null);
    }
  }

  private evictDocuments(): void {
    this.collections.clear();
    this.size = 0;
  }

  clear(): void {
    this.evictDocuments();
    this.present = null;
  }
}
