/** One collection of the MongoDB adapter (mongo.ts): the port's operations, each bounded (mongo-bounded.ts). */
import type { Collection as MongoCollection, Filter as MongoFilter } from 'mongodb';
import { bounded, LONG_OPERATION_MS } from './mongo-bounded.js';
import { DUPLICATE_KEY, duplicateKeyOf, isDuplicateKey } from './mongo-driver.js';
import {
  type Collection,
  type Document,
  documentProblem,
  DuplicateKeyError,
  type Filter,
  type FindOptions,
  type IndexOptions,
  InvalidDocumentError,
  type SortSpec,
} from './port.js';

/** Where a collection adapter takes the driver's collection from: the store's current client. */
export interface CollectionSource {
  readonly clientGeneration: number;
  driverCollection(name: string): MongoCollection<Document>;
}

export class MongoCollectionAdapter<T extends Document> implements Collection<T> {
  private generation = -1;
  private current!: MongoCollection<Document>;

  constructor(
    private readonly name: string,
    private readonly source: CollectionSource,
    /** every operation's bound (OPERATION_TIMEOUT_MS) */
    private readonly timeoutMs: number,
  ) {}

  /** the driver's collection, of the store's current client (a replaced client's is dropped) */
  private get coll(): MongoCollection<Document> {
    if (this.generation !== this.source.clientGeneration) {
      this.current = this.source.driverCollection(this.name);
      this.generation = this.source.clientGeneration;
    }
    return this.current;
  }

  private op<R>(what: string, op: Promise<R>): Promise<R> {
    return bounded(`a ${what} of ${this.name}`, op, this.timeoutMs);
  }

  async get(id: string): Promise<T | null> {
    return (await this.op('read', this.coll.findOne({ _id: id }))) as T | null;
  }

  async find(filter: Filter = {}, options: FindOptions = {}): Promise<T[]> {
    let cursor = this.coll.find(filter as MongoFilter<Document>);
    if (options.sort && Object.keys(options.sort).length > 0) cursor = cursor.sort(options.sort);
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit) cursor = cursor.limit(options.limit);
    if (options.fields) cursor = cursor.project(Object.fromEntries([['_id', 0], ...options.fields.map((f) => [f, 1])]));
    return (await this.op('query', cursor.toArray()).catch((error: unknown) => {
      void cursor.close().catch(() => undefined);
      throw error;
    })) as T[];
  }

  async findOne(filter: Filter): Promise<T | null> {
    return (await this.op('read', this.coll.findOne(filter as MongoFilter<Document>))) as T | null;
  }

  async count(filter: Filter = {}): Promise<number> {
    return this.op('count', this.coll.countDocuments(filter as MongoFilter<Document>));
  }

  async upsert(doc: T): Promise<void> {
    const problem = documentProblem(doc);
    if (problem) throw new InvalidDocumentError(this.name, doc._id, problem);
    // Two concurrent upserts of the same new _id can both try to insert; the loser sees a duplicate
    // _id and succeeds on retry as a replace.
    for (let attempt = 0; ; attempt++) {
      try {
        await this.op('write', this.coll.replaceOne({ _id: doc._id }, doc, { upsert: true }));
        return;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        // (FerretDB names no keyPattern: one retry as a replace tells the two cases apart)
        const onId = error.keyPattern ? Object.keys(error.keyPattern).join() === '_id' : error.code === DUPLICATE_KEY;
        if (onId && attempt < 2) continue;
        throw new DuplicateKeyError(this.name, duplicateKeyOf(error));
      }
    }
  }

  async delete(id: string): Promise<boolean> {
    return (await this.op('delete', this.coll.deleteOne({ _id: id }))).deletedCount === 1;
  }

  async deleteMany(filter: Filter): Promise<number> {
    return (
      await bounded(
        `a delete of ${this.name}`,
        this.coll.deleteMany(filter as MongoFilter<Document>),
        this.timeoutMs === 0 ? 0 : LONG_OPERATION_MS,
      )
    ).deletedCount;
  }

  async ensureIndex(spec: SortSpec, options: IndexOptions = {}): Promise<void> {
    try {
      await bounded('an index build', this.coll.createIndex(spec, mongoIndexOptions(spec, options)), LONG_OPERATION_MS);
    } catch (error) {
      if (isDuplicateKey(error)) throw new DuplicateKeyError(this.name, duplicateKeyOf(error));
      throw error;
    }
  }

  async dropIndex(spec: SortSpec, options: IndexOptions = {}): Promise<void> {
    try {
      await bounded('an index drop', this.coll.dropIndex(mongoIndexName(spec, options)), LONG_OPERATION_MS);
    } catch (error) {
      // none by that name (never made, or dropped already), or no collection yet
      const code = (error as { code?: unknown; codeName?: unknown }).code;
      if (
        code === 27 ||
        code === 26 ||
        (error as { codeName?: unknown }).codeName === 'IndexNotFound' ||
        /index not found|ns not found/i.test((error as Error).message)
      )
        return;
      throw error;
    }
  }
}

/** The driver's default name (`a_1_b_-1`), with `_sparse` for a sparse index: it differs from the same spec's full index, so both may exist. */
function mongoIndexName(spec: SortSpec, options: IndexOptions): string {
  return `${Object.entries(spec)
    .map(([f, d]) => `${f}_${d}`)
    .join('_')}${options.sparse ? '_sparse' : ''}`;
}

function mongoIndexOptions(
  spec: SortSpec,
  options: IndexOptions,
): { unique?: boolean; sparse?: boolean; name?: string } {
  return {
    ...(options.unique ? { unique: true } : {}),
    ...(options.sparse ? { sparse: true, name: mongoIndexName(spec, options) } : {}),
  };
}
