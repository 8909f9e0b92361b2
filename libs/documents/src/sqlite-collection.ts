/** One collection of the embedded document store (sqlite.ts): the port's operations, run by the store. */
import type { SqliteStatement } from '@burrow/sqlite';
import {
  type Collection,
  type Document,
  documentProblem,
  type Filter,
  type FindOptions,
  type IndexOptions,
  InvalidDocumentError,
  type SortSpec,
} from './port.js';
import { tableOf } from './sqlite-sql.js';

/** The store's operations a collection calls (SqliteDocumentStore). */
export interface CollectionHost {
  table(collection: string): unknown;
  statement(sql: string): SqliteStatement;
  find(collection: string, filter: Filter, options: FindOptions): Document[];
  count(collection: string, filter: Filter): number;
  put(collection: string, doc: Document): void;
  remove(collection: string, id: string): boolean;
  removeMany(collection: string, filter: Filter): number;
  ensureIndex(collection: string, spec: SortSpec, options: IndexOptions): void;
  dropIndex(collection: string, spec: SortSpec, options: IndexOptions): void;
}

export class SqliteCollection<T extends Document> implements Collection<T> {
  /** a read by id, the commonest read: its SQL made once per collection object */
  private readonly byId: string;

  constructor(
    private readonly name: string,
    private readonly store: CollectionHost,
  ) {
    this.byId = `SELECT doc FROM ${tableOf(name)} WHERE id = ?`;
  }

  async get(id: string): Promise<T | null> {
    this.store.table(this.name);
    const row = this.store.statement(this.byId).get(id) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as T) : null;
  }

  async find(filter: Filter = {}, options: FindOptions = {}): Promise<T[]> {
    return this.store.find(this.name, filter, options) as T[];
  }

  async findOne(filter: Filter): Promise<T | null> {
    return (this.store.find(this.name, filter, { limit: 1 })[0] as T | undefined) ?? null;
  }

  async count(filter: Filter = {}): Promise<number> {
    return this.store.count(this.name, filter);
  }

  async upsert(doc: T): Promise<void> {
    const problem = documentProblem(doc);
    if (problem) throw new InvalidDocumentError(this.name, doc._id, problem);
    this.store.put(this.name, doc);
  }

  async delete(id: string): Promise<boolean> {
    return this.store.remove(this.name, id);
  }

  async deleteMany(filter: Filter): Promise<number> {
    return this.store.removeMany(this.name, filter);
  }

  async ensureIndex(spec: SortSpec, options: IndexOptions = {}): Promise<void> {
    this.store.ensureIndex(this.name, spec, options);
  }

  async dropIndex(spec: SortSpec, options: IndexOptions = {}): Promise<void> {
    this.store.dropIndex(this.name, spec, options);
  }
}
