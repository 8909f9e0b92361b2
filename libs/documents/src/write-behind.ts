/**
 * A unit of work over a DocumentStore: reads see the batch's own writes, writes are kept in memory
 * until the owner commits them together with a checkpoint (`DocumentStore.commit`). The projection
 * runner hands one to its projections per batch of events, so a rebuild writes each document once
 * per batch instead of once per event, and a crash or a second replica can never see half a batch.
 *
 * Reads overlay the pending writes on the store: `get` answers from memory when it can, `find`
 * and `count` ask the store (hiding documents a pending `deleteMany` removes) and merge the
 * pending documents in with the port's own filter and sort semantics (`matches`, `compareBy`).
 * A unique index is only checked when the batch is committed (see `CommitResult.rejected`).
 *
 * `savepoint()` / `rollback()` undo what one event did, so a projection that throws on an event
 * leaves nothing of it behind.
 */
import type { CommittedCache } from './committed-cache.js';
import { copyDocument } from './document-copy.js';
import { cloneJson, compareBy, matches, pickFields } from './filter.js';
import { addToPendingIndex, isIndexable, type PendingIndex } from './pending-index.js';
import {
  type Checkpoint,
  type Collection,
  type CommitResult,
  type Document,
  documentProblem,
  type DocumentStore,
  type Filter,
  type FindOptions,
  type IndexOptions,
  InvalidDocumentError,
  type SortSpec,
  type Write,
} from './port.js';

const clone = cloneJson;

interface Entry {
  doc: Document | null;
  /** written by this batch (else: what the store holds, read earlier) */
  dirty: boolean;
  /** when the entry was made: pending documents are returned in this order */
  rank: number;
  /** the document's size as JSON, about (`copyDocument`); 0 for one read from the store */
  bytes: number;
}

export class WriteBehind implements DocumentStore {
  private readonly collections = new Map<string, WriteBehindCollection<Document>>();
  private readonly undo: (() => void)[] = [];
  /** pending deleteMany filters, in order */
  readonly deletes: { collection: string; filter: Filter }[] = [];
  /** how many documents this batch has written (each collection keeps which, in the order of their first write) */
  dirtyDocuments = 0;
  /** what to do once the batch is committed (wake readers of what it wrote) */
  readonly committed: (() => void)[] = [];

  constructor(
    readonly base: DocumentStore,
    /** what earlier batches of the same writer committed (none: every read asks the store) */
    readonly cache: CommittedCache | null = null,
  ) {}

  collection<T extends Document = Document>(name: string): Collection<T> {
    let c = this.collections.get(name);
    if (!c) {
      c = new WriteBehindCollection(name, this);
      this.collections.set(name, c);
    }
    // as unknown as: one collection object per name serves every document type a caller names (T is the caller's view; the store keeps JSON)
    return c as unknown as Collection<T>;
  }

  /** About how many bytes of JSON the documents the batch holds to write make (`copyDocument`). */
  bytes = 0;

  /** How many documents the batch has written so far. */
  get size(): number {
    return this.dirtyDocuments + this.deletes.length;
  }

  /**
   * The batch as `commit` takes it: deleteMany filters first, then one put or delete per
   * document, collection by collection (each in the order of its documents' first writes). A
   * collection's writes together keep its table's and indexes' pages in the store's cache while
   * they are written: a rebuild's batch in event order goes from table to table at every event.
   * The order across collections means nothing to a commit (a unique index is per collection).
   */
  writes(): Write[] {
    const out: Write[] = this.deletes.map((d) => ({
      kind: 'deleteMany' as const,
      collection: d.collection,
      filter: d.filter,
    }));
    for (const collection of this.collections.values()) collection.pendingWrites(out);
    return out;
  }

  /** Runs `fn` once the batch is committed; never if it is dropped or rolled back past this point. */
  afterCommit(fn: () => void): void {
    this.committed.push(fn);
    this.changed(() => void this.committed.pop());
  }

  savepoint(): number {
    return this.undo.length;
  }

  rollback(savepoint: number): void {
    while (this.undo.length > savepoint) this.undo.pop()!();
  }

  /** What was done since `savepoint` stays: forgets how to undo it (a batch of many events keeps no undo log). */
  release(savepoint: number): void {
    if (this.undo.length > savepoint) this.undo.length = savepoint;
  }

  /** Records how to undo a change (called by the collections). */
  changed(undo: () => void): void {
    this.undo.push(undo);
  }

  async dropAll(): Promise<void> {
    throw new Error('a unit of work cannot drop collections');
  }

  async readCheckpoint(): Promise<Checkpoint | null> {
    throw new Error('checkpoints are read from the store, not from a unit of work');
  }

  async commit(): Promise<CommitResult> {
    throw new Error('a unit of work is committed by its owner through the store');
  }

  ping(): Promise<void> {
    return this.base.ping();
  }

  async close(): Promise<void> {}
}

class WriteBehindCollection<T extends Document> implements Collection<T> {
  readonly entries = new Map<string, Entry>();
  private nextRank = 0;
  /** the documents this batch wrote (put or deleted) */
  private readonly dirtyIds = new Set<string>();
  private readonly pendingIndexes = new Map<string, PendingIndex>();
  private readonly deletes: Filter[] = [];
  private readonly base: Collection<T>;

  constructor(
    private readonly name: string,
    private readonly uow: WriteBehind,
  ) {
    this.base = uow.base.collection<T>(name);
  }

  /** Appends this collection's writes to `out`, in the order of the documents' first writes (see `WriteBehind.writes`). */
  pendingWrites(out: Write[]): void {
    const collection = this.name;
    for (const id of this.dirtyIds) {
      const doc = this.entries.get(id)!.doc;
      out.push(doc ? { kind: 'put', collection, doc, checked: true } : { kind: 'delete', collection, id });
    }
  }

  /** Sets an entry; a new one ranks last (as a Map orders its keys). */
  private place(id: string, doc: Document | null, dirty: boolean, before = this.entries.get(id), bytes = 0): Entry {
    const entry = { doc, dirty, rank: before?.rank ?? this.nextRank++, bytes };
    this.entries.set(id, entry);
    return entry;
  }

  private set(id: string, doc: T | null, bytes = 0): void {
    const before = this.entries.get(id);
    const wasDirty = before?.dirty ?? false;
    this.place(id, doc, true, before, bytes);
    const grown = bytes - (wasDirty ? before!.bytes : 0);
    this.uow.bytes += grown;
    if (!wasDirty) {
      this.dirtyIds.add(id);
      this.uow.dirtyDocuments++;
    }
    if (doc) for (const [path, index] of this.pendingIndexes) addToPendingIndex(index, path, id, doc);
    this.uow.changed(() => {
      this.uow.bytes -= grown;
      if (before) this.entries.set(id, before);
      else this.entries.delete(id);
      // an index made since holds the document by its later value: add the one restored
      if (before?.dirty && before.doc)
        for (const [path, index] of this.pendingIndexes) addToPendingIndex(index, path, id, before.doc);
      if (!wasDirty) {
        this.dirtyIds.delete(id);
        this.uow.dirtyDocuments--;
      }
    });
  }

  /** The store's filter with the pending deleteMany filters taken out. */
  private storeFilter(filter: Filter): Filter {
    return this.deletes.length ? { $and: [filter, { $nor: [...this.deletes] }] } : filter;
  }

  /**
   * The ids of pending documents that may match `filter`: through an index of the pending
   * documents when the filter has an equality with a scalar at the top level, else all of them.
   */
  private pendingCandidates(filter: Filter): Iterable<string> {
    for (const [path, condition] of Object.entries(filter)) {
      if (path.startsWith('$') || !isIndexable(condition)) continue;
      let index = this.pendingIndexes.get(path);
      if (!index) {
        index = { byValue: new Map(), loose: [] };
        for (const id of this.dirtyIds) {
          const doc = this.entries.get(id)!.doc;
          if (doc) addToPendingIndex(index, path, id, doc);
        }
        this.pendingIndexes.set(path, index);
      }
      const hits = index.byValue.get(condition);
      if (!index.loose.length) return hits ?? [];
      return hits ? new Set([...hits, ...index.loose]) : index.loose;
    }
    return this.dirtyIds;
  }

  /** The pending documents that match `filter`, in the order of their entries. */
  private pendingMatches(filter: Filter): T[] {
    const found: { rank: number; doc: T }[] = [];
    const seen = new Set<string>();
    for (const id of this.pendingCandidates(filter)) {
      if (seen.has(id) || !this.dirtyIds.has(id)) continue;
      seen.add(id);
      const doc = this.entries.get(id)!.doc as T | null;
      if (doc && matches(doc, filter)) found.push({ rank: this.entries.get(id)!.rank, doc });
    }
    if (found.length > 1) found.sort((a, b) => a.rank - b.rank);
    return found.map((f) => f.doc);
  }

  async get(id: string): Promise<T | null> {
    let entry = this.entries.get(id);
    if (!entry) {
      let doc = this.uow.cache?.lookup(this.name, id) as T | null | undefined;
      if (doc === undefined) {
        doc = await this.base.get(id);
        this.uow.cache?.remember(this.name, id, doc);
      }
      if (doc && this.deletes.some((f) => matches(doc, f))) doc = null;
      // a write may have come in while the store answered
      entry = this.entries.get(id) ?? this.place(id, doc, false);
    }
    return entry.doc ? (clone(entry.doc) as T) : null;
  }

  async find(filter: Filter = {}, options: FindOptions = {}): Promise<T[]> {
    const skip = options.skip ?? 0;
    const limit = options.limit ? skip + options.limit + this.dirtyIds.size : undefined;
    const stored = await this.base.find(this.storeFilter(filter), { sort: options.sort, limit });
    const out = stored.filter((d) => !this.dirtyIds.has(d._id));
    for (const doc of this.pendingMatches(filter)) out.push(clone(doc));
    if (options.sort && Object.keys(options.sort).length > 0) out.sort(compareBy(options.sort));
    const page = out.slice(skip, options.limit ? skip + options.limit : undefined);
    const fields = options.fields;
    return fields ? page.map((d) => pickFields(d, fields) as T) : page;
  }

  async findOne(filter: Filter): Promise<T | null> {
    return (await this.find(filter, { limit: 1 }))[0] ?? null;
  }

  async count(filter: Filter = {}): Promise<number> {
    const ids = [...this.dirtyIds];
    const storeFilter = this.storeFilter(filter);
    const stored = await this.base.count(storeFilter);
    const storedPending = ids.length ? await this.base.count({ $and: [storeFilter, { _id: { $in: ids } }] }) : 0;
    return stored - storedPending + this.pendingMatches(filter).length;
  }

  async upsert(doc: T): Promise<void> {
    const copy = copyDocument(doc);
    if (!copy) throw new InvalidDocumentError(this.name, doc._id, documentProblem(doc) ?? 'invalid');
    this.set(doc._id, copy.doc as T, copy.bytes);
  }

  async delete(id: string): Promise<boolean> {
    const existed = (await this.get(id)) !== null;
    this.set(id, null);
    return existed;
  }

  async deleteMany(filter: Filter): Promise<number> {
    const n = await this.count(filter);
    for (const [id, entry] of this.entries) if (entry.doc && matches(entry.doc, filter)) this.set(id, null);
    const f = clone(filter);
    this.deletes.push(f);
    this.uow.deletes.push({ collection: this.name, filter: f });
    this.uow.changed(() => {
      this.deletes.pop();
      this.uow.deletes.pop();
    });
    return n;
  }

  ensureIndex(spec: SortSpec, options?: IndexOptions): Promise<void> {
    return this.base.ensureIndex(spec, options);
  }

  dropIndex(spec: SortSpec, options?: IndexOptions): Promise<void> {
    return this.base.dropIndex(spec, options);
  }
}

/**
 * Runs `fn` once what was written through `docs` is committed: at once on a plain store, after
 * the batch's commit on a unit of work. For signals that wake readers of the store (a reader woken
 * before the commit would find nothing new).
 */
export function afterCommit(docs: DocumentStore, fn: () => void): void {
  if (docs instanceof WriteBehind) docs.afterCommit(fn);
  else fn();
}
