/**
 * The DocumentStore port: collections of JSON documents for read models.
 *
 * Filters are a subset of MongoDB's query language, so the MongoDB adapter passes them through:
 *   { field: value }                       equality (dotted paths allowed; matches array members)
 *   { field: { $eq|$ne|$gt|$gte|$lt|$lte: v } }
 *   { field: { $in: [..] } }, { field: { $nin: [..] } }, { field: { $exists: bool } }
 *   { field: { $regex: 'text', $options: 'i' } }
 *   { $and: [f, ..] }, { $or: [f, ..] }
 * Comparison follows MongoDB for same-typed values (numbers, strings, booleans); `null` equals a
 * missing field.
 */
export type Filter = Record<string, unknown>;
export type SortSpec = Record<string, 1 | -1>;

export interface Document {
  _id: string;
  [key: string]: unknown;
}

export interface FindOptions {
  sort?: SortSpec;
  skip?: number;
  limit?: number;
}

export interface IndexOptions {
  unique?: boolean;
}

export interface Collection<T extends Document = Document> {
  get(id: string): Promise<T | null>;
  find(filter?: Filter, options?: FindOptions): Promise<T[]>;
  findOne(filter: Filter): Promise<T | null>;
  count(filter?: Filter): Promise<number>;
  /** Insert or replace the whole document with this `_id`. */
  upsert(doc: T): Promise<void>;
  delete(id: string): Promise<boolean>;
  deleteMany(filter: Filter): Promise<number>;
  /** Idempotent. A unique index makes upserts that would duplicate the key throw DuplicateKeyError. */
  ensureIndex(spec: SortSpec, options?: IndexOptions): Promise<void>;
}

export interface DocumentStore {
  collection<T extends Document = Document>(name: string): Collection<T>;
  /** Drops every collection (used when a projection rebuilds from the start). */
  dropAll(): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class DuplicateKeyError extends Error {
  constructor(readonly collection: string, readonly key: string) {
    super(`duplicate key in ${collection}: ${key}`);
    this.name = 'DuplicateKeyError';
  }
}
