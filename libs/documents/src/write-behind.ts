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
import { cloneJson, compareBy, getPathValues, matches, pickFields } from './filter.js';
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

/**
 * The unit of work's own copy of a document (as `cloneJson`) and about how many bytes it makes as
 * JSON, in one walk that also does `documentProblem`'s check: null for a document the port refuses
 * (an array directly inside an array).
 */
function copyDocument(doc: Document): { doc: Document; bytes: number } | null {
  copied = 0;
  try {
    return { doc: copyValue(doc, false) as Document, bytes: copied };
  } catch (error) {
    if (error === NESTED_ARRAY) return null;
    throw error;
  }
}
let copied = 0;
const NESTED_ARRAY = new Error('an array directly inside an array');

function copyValue(value: unknown, inArray: boolean): unknown {
  if (value === null || typeof value !== 'object') {
    copied += typeof value === 'string' ? value.length + 2 : 6;
    return value;
  }
  if (Array.isArray(value)) {
    if (inArray) throw NESTED_ARRAY;
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyValue(value[i], true);
    copied += 2 + value.length;
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined) continue;
    copied += key.length + 4;
    out[key] = copyValue(v, false);
  }
  copied += 2;
  return out;
}

interface Entry {
  doc: Document | null;
  /** written by this batch (else: what the store holds, read earlier) */
  dirty: boolean;
  /** when the entry was made: pending documents are returned in this order */
  rank: number;
  /** the document's size as JSON, about (`copyDocument`); 0 for one read from the store */
  bytes: number;
}

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
 * A Bloom filter of (collection, id) keys: 2^25 bits (4 MiB), 5 probes. At 3M keys (a rebuild of
 * 1M users' read models) it answers "maybe" for under 1% of the keys never added, at 6M for ~7%;
 * each such answer costs one lookup by id in the store, what every miss cost before.
 */
class IdFilter {
  private static readonly BITS = 25;
  private static readonly PROBES = 5;
  private readonly words = new Int32Array(1 << (IdFilter.BITS - 5));

  add(collection: string, id: string): void {
    const mask = (1 << IdFilter.BITS) - 1;
    const [first, h2] = hashKey(collection, id);
    for (let i = 0, h1 = first; i < IdFilter.PROBES; i++, h1 = (h1 + h2) | 0) {
      const bit = h1 & mask;
      this.words[bit >>> 5] |= 1 << (bit & 31);
    }
  }

  mayHold(collection: string, id: string): boolean {
    const mask = (1 << IdFilter.BITS) - 1;
    const [first, h2] = hashKey(collection, id);
    for (let i = 0, h1 = first; i < IdFilter.PROBES; i++, h1 = (h1 + h2) | 0) {
      const bit = h1 & mask;
      if ((this.words[bit >>> 5] & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

/** Two 32-bit hashes (FNV-1a and a multiplicative one) of collection, a separator, id: the filter's probes are h1 + i * h2. */
function hashKey(collection: string, id: string): [number, number] {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  for (let i = 0; i < collection.length; i++) {
    const c = collection.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  h1 = Math.imul(h1 ^ 0xffff, 0x01000193);
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  // odd, so the probes step through distinct bits
  return [h1, h2 | 1];
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

export class WriteBehind implements DocumentStore {
  private readonly collections = new Map<string, WriteBehindCollection<Document>>();
  private readonly undo: (() => void)[] = [];
  /** pending deleteMany filters, in order */
  readonly deletes: { collection: string; filter: Filter }[] = [];
  /** documents written by this batch, in the order of their first write (a rollback takes the last ones off) */
  readonly dirty: { collection: string; id: string }[] = [];
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
    return c as unknown as Collection<T>;
  }

  /** About how many bytes of JSON the documents the batch holds to write make (`copyDocument`). */
  bytes = 0;

  /** How many documents the batch has written so far. */
  get size(): number {
    return this.dirty.length + this.deletes.length;
  }

  /** The batch as `commit` takes it: deleteMany filters first, then one put or delete per document. */
  writes(): Write[] {
    const out: Write[] = this.deletes.map((d) => ({ kind: 'deleteMany' as const, collection: d.collection, filter: d.filter }));
    for (const { collection, id } of this.dirty) {
      const doc = this.collections.get(collection)!.entries.get(id)!.doc;
      out.push(doc ? { kind: 'put', collection, doc, checked: true } : { kind: 'delete', collection, id });
    }
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

/** A filter value an index of pending documents can answer (equality with a scalar). */
const isIndexable = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/**
 * The batch's documents by their value at one path, so an equality `find` does not test every
 * pending document (a rebuild's batch holds thousands, and a projection may look up what the same
 * batch wrote on every event). A superset: ids are only ever added (a rewrite or a rollback leaves
 * the old key behind), and every candidate is checked against the entry and the filter. A
 * document whose value there is not a single scalar (missing, null, an array, an object, or
 * reached through an array) is a candidate for every value (`loose`).
 */
interface PendingIndex {
  byValue: Map<string | number | boolean, string[]>;
  loose: string[];
}

function addToPendingIndex(index: PendingIndex, path: string, id: string, doc: Document): void {
  const values = getPathValues(doc, path);
  if (values.length !== 1 || !isIndexable(values[0])) {
    index.loose.push(id);
    return;
  }
  const ids = index.byValue.get(values[0]);
  if (ids) ids.push(id);
  else index.byValue.set(values[0], [id]);
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
      this.uow.dirty.push({ collection: this.name, id });
    }
    if (doc) for (const [path, index] of this.pendingIndexes) addToPendingIndex(index, path, id, doc);
    this.uow.changed(() => {
      this.uow.bytes -= grown;
      if (before) this.entries.set(id, before);
      else this.entries.delete(id);
      // an index made since holds the document by its later value: add the one restored
      if (before?.dirty && before.doc) for (const [path, index] of this.pendingIndexes) addToPendingIndex(index, path, id, before.doc);
      if (!wasDirty) {
        this.dirtyIds.delete(id);
        this.uow.dirty.pop();
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
