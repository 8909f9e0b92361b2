/**
 * The DocumentStore port: collections of JSON documents for read models.
 *
 * Filters are a subset of MongoDB's query language, so the MongoDB adapter passes them through:
 *   { field: value }                       equality (dotted paths allowed; matches array members)
 *   { field: { $eq|$ne|$gt|$gte|$lt|$lte: v } }
 *   { field: { $in: [..] } }, { field: { $nin: [..] } }, { field: { $exists: bool } }
 *   { field: { $regex: 'text', $options: 'i' } }
 *   { $and: [f, ..] }, { $or: [f, ..] }, { $nor: [f, ..] }
 * Comparison follows MongoDB for same-typed values (numbers, strings, booleans); `null` equals a
 * missing field. Strings compare by code point (the order of their UTF-8 bytes, MongoDB's and
 * SQLite's binary order), not by UTF-16 code unit: '\u{1F600}' sorts after '\uffff'.
 *
 * Documents are JSON without arrays directly inside arrays (FerretDB refuses them; every adapter
 * refuses them with InvalidDocumentError so no adapter accepts what another would not). NUL
 * characters are refused at the HTTP edge: PostgreSQL under FerretDB cannot store them.
 *
 * Projections write through `commit`: a batch of writes applied together with the runner's
 * checkpoint, atomically, and only if the checkpoint is still the version the batch started from
 * (optimistic concurrency between replicas of one service sharing a database).
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
  /**
   * Only these top-level fields of each document found (`_id` only when named; a field the
   * document lacks is left out): a page of many documents read for a few of their fields (a
   * listing) is made of those, not of whole documents copied. The filter and the sort still see
   * whole documents. The caller types what it gets.
   */
  fields?: readonly string[];
}

export interface IndexOptions {
  unique?: boolean;
  /**
   * Only documents that hold a value (not null, not missing) in every field of the index are in
   * it: for a field most documents leave empty and queries ask for one value of (a write of a
   * document without it adds no entry). Such an index answers equality and range queries on the
   * field, never `null`. Another index than the same spec without `sparse` (both may exist).
   */
  sparse?: boolean;
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
  /**
   * Removes the index `ensureIndex(spec, options)` made, if there is one (idempotent): for an
   * index a read model no longer declares, which a store made by an older build still keeps and
   * writes to on every upsert. Queries stay right, whatever indexes remain.
   */
  dropIndex(spec: SortSpec, options?: IndexOptions): Promise<void>;
}

/** One write of a committed batch. */
export type Write =
  /** `checked`: the writer (a unit of work) refused what `documentProblem` refuses when it took the document, and holds the only reference: commit need not walk it again */
  | { kind: 'put'; collection: string; doc: Document; checked?: true }
  | { kind: 'delete'; collection: string; id: string }
  | { kind: 'deleteMany'; collection: string; filter: Filter }
  /** every document of every collection goes (checkpoints stay; indexes stay) */
  | { kind: 'clear' };

/** A runner's checkpoint: `state` is the runner's business; `version` counts its commits (0 = none yet). */
export interface Checkpoint {
  version: number;
  state: Record<string, unknown>;
}

export interface CommitResult {
  /** false: the checkpoint was no longer at the expected version (another writer went first); nothing was written */
  committed: boolean;
  /** puts a unique index refused even after the rest of the batch was applied (the document keeps its old state) */
  rejected: { collection: string; id: string; reason: string }[];
  /**
   * true: the checkpoint already stood where this commit would take it, moved there by another
   * writer (a replica that applied the same events) or by an earlier attempt of this one; nothing
   * of `writes` was written by this call. The documents the store holds are that writer's, which
   * may differ from `writes` (it read them at another moment): a caller that keeps what it wrote
   * (a cache) must not take `writes` for what the store holds.
   */
  adopted?: true;
}

export interface DocumentStore {
  collection<T extends Document = Document>(name: string): Collection<T>;
  /** Drops every collection, checkpoints included. */
  dropAll(): Promise<void>;
  /** The checkpoint named `name`, or null before its first commit. */
  readCheckpoint(name: string): Promise<Checkpoint | null>;
  /**
   * Applies `writes` in order and sets checkpoint `name` to `state` with version
   * `expectedVersion + 1`, all or nothing (a crash leaves either none or all of it; a store
   * without transactions redoes an unfinished commit before the checkpoint is read again), and
   * only if the checkpoint's version is still `expectedVersion` (0: it must not exist yet).
   * Writes are ordered: every `clear` and `deleteMany` first, in their order, then puts and deletes,
   * at most one per document. A put that would duplicate a unique key is retried once after the
   * others (an order of renames may need it) and then reported in `rejected`, not thrown.
   */
  commit(name: string, expectedVersion: number, state: Record<string, unknown>, writes: Write[]): Promise<CommitResult>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Capability: true when `commit` is one local transaction of this process (SQLite, memory),
   * so a bigger batch costs no more than a few smaller ones; unset for a server (MongoDB).
   */
  readonly localCommits?: boolean;
  /**
   * Capability: true when no other process reads or writes these read models (memory): another
   * replica's write is not in them until this process's own projections apply it.
   */
  readonly privateToProcess?: boolean;
}

/** A document the port does not accept (a nested array): a bug in the caller. */
export class InvalidDocumentError extends Error {
  constructor(
    readonly collection: string,
    readonly id: string,
    reason: string,
  ) {
    super(`invalid document ${id} in ${collection}: ${reason}`);
    this.name = 'InvalidDocumentError';
  }
}

/** Why `value` is not a storable document value, or null when it is. */
export function documentProblem(value: unknown, inArray = false): string | null {
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    if (inArray) return 'an array directly inside an array';
    for (const item of value) {
      const problem = documentProblem(item, true);
      if (problem) return problem;
    }
    return null;
  }
  for (const item of Object.values(value)) {
    const problem = documentProblem(item);
    if (problem) return problem;
  }
  return null;
}

export class DuplicateKeyError extends Error {
  constructor(
    readonly collection: string,
    readonly key: string,
  ) {
    super(`duplicate key in ${collection}: ${key}`);
    this.name = 'DuplicateKeyError';
  }
}
