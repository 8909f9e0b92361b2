/**
 * Production DocumentStore: MongoDB through the official driver. The port's filter language is a
 * subset of MongoDB's, so filters and sort specs pass through unchanged.
 */
import {
  MongoClient,
  MongoServerError,
  type Collection as MongoCollection,
  type Db,
  type Filter as MongoFilter,
  type Sort,
} from 'mongodb';
import {
  type Collection,
  type Document,
  type DocumentStore,
  DuplicateKeyError,
  type Filter,
  type FindOptions,
  type IndexOptions,
  type SortSpec,
} from './port.js';

export interface MongoDocumentStoreOptions {
  /** How long the driver looks for a usable server before an operation fails (default 5000 ms). */
  serverSelectionTimeoutMs?: number;
}

const DUPLICATE_KEY = 11000;

function isDuplicateKey(error: unknown): error is MongoServerError {
  return error instanceof MongoServerError && error.code === DUPLICATE_KEY;
}

function duplicateKeyOf(error: MongoServerError): string {
  return error.keyValue ? JSON.stringify(error.keyValue) : error.message;
}

class MongoCollectionAdapter<T extends Document> implements Collection<T> {
  constructor(
    private readonly name: string,
    private readonly coll: MongoCollection<Document>,
  ) {}

  async get(id: string): Promise<T | null> {
    return (await this.coll.findOne({ _id: id })) as T | null;
  }

  async find(filter: Filter = {}, options: FindOptions = {}): Promise<T[]> {
    let cursor = this.coll.find(filter as MongoFilter<Document>);
    if (options.sort && Object.keys(options.sort).length > 0) cursor = cursor.sort(options.sort as Sort);
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit) cursor = cursor.limit(options.limit);
    return (await cursor.toArray()) as T[];
  }

  async findOne(filter: Filter): Promise<T | null> {
    return (await this.coll.findOne(filter as MongoFilter<Document>)) as T | null;
  }

  async count(filter: Filter = {}): Promise<number> {
    return this.coll.countDocuments(filter as MongoFilter<Document>);
  }

  async upsert(doc: T): Promise<void> {
    // Two concurrent upserts of the same new _id can both try to insert; the loser sees a duplicate
    // _id and succeeds on retry as a replace.
    for (let attempt = 0; ; attempt++) {
      try {
        await this.coll.replaceOne({ _id: doc._id }, doc, { upsert: true });
        return;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        const onId = error.keyPattern && Object.keys(error.keyPattern).join() === '_id';
        if (onId && attempt < 2) continue;
        throw new DuplicateKeyError(this.name, duplicateKeyOf(error));
      }
    }
  }

  async delete(id: string): Promise<boolean> {
    return (await this.coll.deleteOne({ _id: id })).deletedCount === 1;
  }

  async deleteMany(filter: Filter): Promise<number> {
    return (await this.coll.deleteMany(filter as MongoFilter<Document>)).deletedCount;
  }

  async ensureIndex(spec: SortSpec, options: IndexOptions = {}): Promise<void> {
    try {
      await this.coll.createIndex(spec, options.unique ? { unique: true } : {});
    } catch (error) {
      if (isDuplicateKey(error)) throw new DuplicateKeyError(this.name, duplicateKeyOf(error));
      throw error;
    }
  }
}

export class MongoDocumentStore implements DocumentStore {
  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {}

  /**
   * Connects and checks the server answers a ping. `dbName` defaults to the database named in the
   * URL, else `burrow`.
   */
  static async connect(
    url: string,
    dbName?: string,
    options: MongoDocumentStoreOptions = {},
  ): Promise<MongoDocumentStore> {
    const timeout = options.serverSelectionTimeoutMs ?? 5000;
    const client = new MongoClient(url, {
      serverSelectionTimeoutMS: timeout,
      connectTimeoutMS: timeout,
      // JSON semantics: a field set to undefined is absent, as in the in-memory store.
      ignoreUndefined: true,
    });
    try {
      await client.connect();
      const db = client.db(dbName ?? (urlDatabase(url) || 'burrow'));
      await db.command({ ping: 1 });
      return new MongoDocumentStore(client, db);
    } catch (error) {
      await client.close().catch(() => undefined);
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`MongoDB at ${redact(url)} is not reachable: ${reason}`, { cause: error });
    }
  }

  collection<T extends Document = Document>(name: string): Collection<T> {
    return new MongoCollectionAdapter<T>(name, this.db.collection<Document>(name));
  }

  /** Drops every collection of the database, indexes included. */
  async dropAll(): Promise<void> {
    const collections = await this.db.listCollections({}, { nameOnly: true }).toArray();
    for (const { name } of collections) {
      if (name.startsWith('system.')) continue;
      await this.db.dropCollection(name).catch((error: unknown) => {
        // dropped concurrently: fine
        if (!(error instanceof MongoServerError && error.codeName === 'NamespaceNotFound')) throw error;
      });
    }
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

function urlDatabase(url: string): string {
  const match = /^mongodb(?:\+srv)?:\/\/[^/]*\/([^?]*)/.exec(url);
  return match ? decodeURIComponent(match[1]) : '';
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
