/**
 * In-memory DocumentStore (unit tests, and read models rebuilt from the event store at start).
 * Unique indexes are enforced; a sort by an indexed key is not needed for speed at the sizes one
 * process holds, but equality lookups on `_id` are O(1). A commit runs without awaiting anything,
 * so it is atomic for every other caller in the process.
 */
import { applyWrites } from './commit.js';
import { cloneJson, compareBy, getPath, isLoose, matches, pickFields } from './filter.js';
import {
  type Checkpoint,
  type Collection,
  type CommitResult,
  type Document,
  documentProblem,
  type DocumentStore,
  DuplicateKeyError,
  type Filter,
  type FindOptions,
  type IndexOptions,
  InvalidDocumentError,
  type SortSpec,
  type Write,
} from './port.js';

const clone = cloneJson;
const indexKey = (fields: string[], doc: unknown) => JSON.stringify(fields.map((f) => getPath(doc, f) ?? null));
/** A filter value an equality index can answer: not an operator object, not an array. */
const isPlainValue = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
function addLookup(index: { fields: string[]; ids: Map<string, Set<string>>; loose: Set<string> }, doc: Document) {
  if (index.fields.some((f) => isLoose(doc, f))) {
    index.loose.add(doc._id);
    return;
  }
  const key = indexKey(index.fields, doc);
  let ids = index.ids.get(key);
  if (!ids) index.ids.set(key, (ids = new Set()));
  ids.add(doc._id);
}

class MemoryCollection<T extends Document> implements Collection<T> {
  readonly docs = new Map<string, T>();
  /** unique index: fields, and key -> _id of the document holding it */
  private readonly uniqueIndexes: { fields: string[]; owners: Map<string, string> }[] = [];
  /** every index (unique or not): fields, and key -> _ids, for equality lookups without a scan */
  private readonly lookups: { fields: string[]; ids: Map<string, Set<string>>; loose: Set<string> }[] = [];

  constructor(private readonly name: string) {}

  async get(id: string): Promise<T | null> {
    const doc = this.docs.get(id);
    return doc ? clone(doc) : null;
  }

  /** Candidate documents: by _id (one, or `$in` a list), or through the most selective index whose fields the filter pins. */
  private candidates(filter: Filter): Iterable<T> {
    const id = filter._id;
    if (typeof id === 'string') {
      const doc = this.docs.get(id);
      return doc ? [doc] : [];
    }
    const ids = (id as { $in?: unknown } | undefined)?.$in;
    if (Array.isArray(ids) && ids.every((i) => typeof i === 'string')) {
      return [...new Set(ids)].map((i) => this.docs.get(i)).filter((doc): doc is T => doc !== undefined);
    }
    let best: Set<string> | undefined;
    for (const index of this.lookups) {
      if (!index.fields.every((f) => f in filter && isPlainValue(filter[f]))) continue;
      const hits = index.ids.get(JSON.stringify(index.fields.map((f) => filter[f] ?? null)));
      // documents whose indexed field holds an array or object are checked every time
      const ids = new Set([...(hits ?? []), ...index.loose]);
      if (!best || ids.size < best.size) best = ids;
    }
    if (!best) return this.docs.values();
    return [...best].map((i) => this.docs.get(i)!).filter(Boolean);
  }

  private select(filter: Filter = {}): T[] {
    const out: T[] = [];
    for (const doc of this.candidates(filter)) if (matches(doc, filter)) out.push(doc);
    return out;
  }

  async find(filter: Filter = {}, options: FindOptions = {}): Promise<T[]> {
    let docs = this.select(filter);
    if (options.sort) docs.sort(compareBy(options.sort));
    const skip = options.skip ?? 0;
    const end = options.limit ? skip + options.limit : undefined;
    docs = docs.slice(skip, end);
    const fields = options.fields;
    return fields ? docs.map((d) => clone(pickFields(d, fields)) as T) : docs.map(clone);
  }

  async findOne(filter: Filter): Promise<T | null> {
    const [doc] = this.select(filter);
    return doc ? clone(doc) : null;
  }

  async count(filter: Filter = {}): Promise<number> {
    if (Object.keys(filter).length === 0) return this.docs.size;
    return this.select(filter).length;
  }

  async upsert(doc: T): Promise<void> {
    this.put(doc);
  }

  /** Synchronous, so a commit applies its whole batch without yielding. */
  put(doc: T): void {
    const problem = documentProblem(doc);
    if (problem) throw new InvalidDocumentError(this.name, doc._id, problem);
    const keys = this.uniqueIndexes.map((index) => indexKey(index.fields, doc));
    this.uniqueIndexes.forEach((index, i) => {
      const owner = index.owners.get(keys[i]);
      if (owner !== undefined && owner !== doc._id) throw new DuplicateKeyError(this.name, keys[i]);
    });
    this.unindex(doc._id);
    this.uniqueIndexes.forEach((index, i) => index.owners.set(keys[i], doc._id));
    const stored = clone(doc);
    for (const index of this.lookups) addLookup(index, stored);
    this.docs.set(doc._id, stored);
  }

  private unindex(id: string): void {
    const old = this.docs.get(id);
    if (!old) return;
    for (const index of this.uniqueIndexes) index.owners.delete(indexKey(index.fields, old));
    for (const index of this.lookups) {
      index.loose.delete(id);
      const key = indexKey(index.fields, old);
      const ids = index.ids.get(key);
      ids?.delete(id);
      if (ids && ids.size === 0) index.ids.delete(key);
    }
  }

  async delete(id: string): Promise<boolean> {
    return this.remove(id);
  }

  remove(id: string): boolean {
    this.unindex(id);
    return this.docs.delete(id);
  }

  async deleteMany(filter: Filter): Promise<number> {
    return this.removeMany(filter);
  }

  removeMany(filter: Filter): number {
    const victims = this.select(filter);
    for (const doc of victims) {
      this.unindex(doc._id);
      this.docs.delete(doc._id);
    }
    return victims.length;
  }

  async ensureIndex(spec: SortSpec, options: IndexOptions = {}): Promise<void> {
    const fields = Object.keys(spec);
    // Only single values are indexed; an array-valued field would need one entry per member.
    if (!this.lookups.some((index) => index.fields.join() === fields.join())) {
      const index = { fields, ids: new Map<string, Set<string>>(), loose: new Set<string>() };
      for (const doc of this.docs.values()) addLookup(index, doc);
      this.lookups.push(index);
    }
    if (!options.unique) return;
    if (this.uniqueIndexes.some((index) => index.fields.join() === fields.join())) return;
    const owners = new Map<string, string>();
    for (const doc of this.docs.values()) {
      const key = indexKey(fields, doc);
      if (owners.has(key)) throw new DuplicateKeyError(this.name, key);
      owners.set(key, doc._id);
    }
    this.uniqueIndexes.push({ fields, owners });
  }

  /**
   * A unique index's constraint goes. Lookups are kept per field list, sparse or not, and serve
   * any index on those fields (another may still be declared): a lookup no index needs is only
   * memory, so they stay.
   */
  async dropIndex(spec: SortSpec, options: IndexOptions = {}): Promise<void> {
    if (!options.unique) return;
    const fields = Object.keys(spec).join();
    const at = this.uniqueIndexes.findIndex((index) => index.fields.join() === fields);
    if (at >= 0) this.uniqueIndexes.splice(at, 1);
  }

  clear(): void {
    this.docs.clear();
    for (const index of this.uniqueIndexes) index.owners.clear();
    for (const index of this.lookups) {
      index.ids.clear();
      index.loose.clear();
    }
  }
}

export class MemoryDocumentStore implements DocumentStore {
  private readonly collections = new Map<string, MemoryCollection<Document>>();
  private readonly checkpoints = new Map<string, Checkpoint>();
  /** a commit is a synchronous change of this process's maps */
  readonly localCommits = true;
  readonly privateToProcess = true;

  collection<T extends Document = Document>(name: string): Collection<T> {
    // as unknown as: one collection object per name serves every document type a caller names (T is the caller's view; the store keeps JSON)
    return this.memoryCollection(name) as unknown as Collection<T>;
  }

  private memoryCollection(name: string): MemoryCollection<Document> {
    let c = this.collections.get(name);
    if (!c) {
      c = new MemoryCollection(name);
      this.collections.set(name, c);
    }
    return c;
  }

  async dropAll(): Promise<void> {
    for (const c of this.collections.values()) c.clear();
    this.checkpoints.clear();
  }

  async readCheckpoint(name: string): Promise<Checkpoint | null> {
    const checkpoint = this.checkpoints.get(name);
    return checkpoint ? clone(checkpoint) : null;
  }

  async commit(
    name: string,
    expectedVersion: number,
    state: Record<string, unknown>,
    writes: Write[],
  ): Promise<CommitResult> {
    if ((this.checkpoints.get(name)?.version ?? 0) !== expectedVersion) return { committed: false, rejected: [] };
    // synchronous: nothing else runs until the batch and the checkpoint are both in
    const rejected = applyWrites(writes, {
      clear: () => {
        for (const c of this.collections.values()) c.clear();
      },
      deleteMany: (collection, filter) => void this.memoryCollection(collection).removeMany(filter),
      put: (collection, doc) => this.memoryCollection(collection).put(doc),
      delete: (collection, id) => void this.memoryCollection(collection).remove(id),
    });
    this.checkpoints.set(name, { version: expectedVersion + 1, state: clone(state) });
    return { committed: true, rejected };
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
