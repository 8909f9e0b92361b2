/**
 * Production DocumentStore: MongoDB through the official driver, and FerretDB (the MongoDB wire
 * protocol on PostgreSQL or SQLite) the same way. The port's filter language is a subset of
 * MongoDB's, so filters and sort specs pass through unchanged.
 *
 * FerretDB differs in two ways this adapter absorbs: it refuses arrays directly inside arrays
 * (the port refuses them everywhere), and it reports some unique-index violations (on a replace,
 * on createIndex) as error code 1 carrying PostgreSQL's SQLSTATE 23505 instead of code 11000.
 *
 * `commit` without multi-document transactions (FerretDB has none, a standalone MongoDB neither):
 * the batch is first recorded in the checkpoint's own document as a journal, by an update that
 * only matches the expected version with no journal pending (one atomic single-document write
 * claims the transition); then the writes are applied (each one sets a whole document, so applying
 * them again changes nothing); then one update sets the new version and removes the journal. A
 * journal left by a crash is applied again by whoever reads the checkpoint next: at once by the
 * process that wrote it or when its writer is known to be gone (a process of the same machine and
 * PID namespace that no longer exists: the service restarted after kill -9), after
 * ABANDONED_AFTER_MS by any other (a writer elsewhere may still be applying it).
 *
 * A document holds 16 MiB at most, so a batch whose writes take more than JOURNAL_INLINE_BYTES is
 * journaled in chunks: the chunks are inserted into their own collection first, then the claim
 * (still one single-document write) names how many there are. A claim that fails, or a crash
 * before it, leaves chunks no journal names; they are deleted when a later version of the same
 * checkpoint is finished. Without this, a live batch of large documents could never be committed
 * and its runner would retry it for ever.
 */
import { randomUUID } from 'node:crypto';
import type {
  AnyBulkWriteOperation,
  Collection as MongoCollection,
  Db,
  MongoClient,
  Filter as MongoFilter,
} from 'mongodb';
import { checkWrites } from './commit.js';
import { bounded, LONG_OPERATION_MS, OPERATION_TIMEOUT_MS } from './mongo-bounded.js';
import { MongoCollectionAdapter } from './mongo-collection.js';
import { isDuplicateKey, isDuplicateKeyCode, loadMongoDriver, mongo } from './mongo-driver.js';
import {
  ABANDONED_AFTER_MS,
  type CheckpointDoc,
  CHECKPOINTS,
  type Journal,
  type JournalChunk,
  JOURNAL_CHUNKS,
  journalPieces,
  journalWriterGone,
  PROCESS_SPACE,
} from './mongo-journal.js';
import { redact, urlDatabase } from './mongo-url.js';
import {
  type Checkpoint,
  type Collection,
  type CommitResult,
  type Document,
  type DocumentStore,
  DuplicateKeyError,
  type Write,
} from './port.js';

export interface MongoDocumentStoreOptions {
  /** How long the driver looks for a usable server before an operation fails (default 5000 ms). */
  serverSelectionTimeoutMs?: number;
  /**
   * How long one operation may take before it fails as unavailable (default OPERATION_TIMEOUT_MS;
   * 0: no limit). Long by nature, and given more: a read-model batch's bulk write (per write), a
   * rebuild's clearing and index builds.
   */
  operationTimeoutMs?: number;
  /** After how long another process's unfinished commit is taken for abandoned (default 30 s). */
  abandonedJournalMs?: number;
  /** Crash tests: called at the points of a commit; throwing there is what a crash looks like to the database. */
  faults?: (point: 'claimed' | 'written') => void | Promise<void>;
  /** After how long of failing pings a new client is tried (default REPLACE_CLIENT_AFTER_MS). */
  replaceClientAfterMs?: number;
  /** Tests: the size above which a batch's journal is kept in chunks (default JOURNAL_INLINE_BYTES). */
  journalInlineBytes?: number;
}

/**
 * A client whose pings have failed for this long is replaced by a new one, if a new one reaches the
 * database: the driver's server monitor can be wedged the way an operation can (see
 * OPERATION_TIMEOUT_MS), and the client then fails every operation with the server selection error
 * of a dead connection for good, although the database answers again.
 */
const REPLACE_CLIENT_AFTER_MS = 15_000;
/** A batch's bulk write may take this much longer per write (12,500 writes: about a minute). */
const BULK_MS_PER_WRITE = 5;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class MongoDocumentStore implements DocumentStore {
  /** names this process's journals, so it applies its own at once */
  private readonly writer = randomUUID();

  /** bumped when the client is replaced (collection adapters then take the new one's collections) */
  clientGeneration = 0;
  private failingSince = 0;
  private replacing: Promise<void> | null = null;
  private closed = false;

  private constructor(
    private client: MongoClient,
    private db: Db,
    private readonly url: string,
    private readonly dbName: string,
    private readonly options: MongoDocumentStoreOptions,
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
    const operationTimeout = options.operationTimeoutMs ?? OPERATION_TIMEOUT_MS;
    const name = dbName ?? (urlDatabase(url) || 'burrow');
    try {
      const { client, db } = await MongoDocumentStore.open(url, name, options);
      return new MongoDocumentStore(client, db, url, name, { ...options, operationTimeoutMs: operationTimeout });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`MongoDB at ${redact(url)} is not reachable: ${reason}`, { cause: error });
    }
  }

  /** A connected client whose database answered a ping. */
  private static async open(
    url: string,
    dbName: string,
    options: MongoDocumentStoreOptions,
  ): Promise<{ client: MongoClient; db: Db }> {
    const timeout = options.serverSelectionTimeoutMs ?? 5000;
    await loadMongoDriver();
    const client = new mongo.MongoClient(url, {
      serverSelectionTimeoutMS: timeout,
      connectTimeoutMS: timeout,
      // JSON semantics: a field set to undefined is absent, as in the in-memory store.
      ignoreUndefined: true,
    });
    try {
      await bounded('a connection', client.connect(), timeout + (options.operationTimeoutMs ?? OPERATION_TIMEOUT_MS));
      const db = client.db(dbName);
      await bounded('a ping', db.command({ ping: 1 }), options.operationTimeoutMs ?? OPERATION_TIMEOUT_MS);
      return { client, db };
    } catch (error) {
      void client.close(true).catch(() => undefined);
      throw error;
    }
  }

  driverCollection(name: string): MongoCollection<Document> {
    return this.db.collection<Document>(name);
  }

  /**
   * A new client in place of one whose pings have failed for REPLACE_CLIENT_AFTER_MS, if the new
   * one reaches the database (else the old one stays and this is tried again later).
   */
  private replaceClient(): void {
    if (this.replacing || this.closed) return;
    this.replacing = (async () => {
      try {
        const { client, db } = await MongoDocumentStore.open(this.url, this.dbName, this.options);
        if (this.closed) {
          void client.close(true).catch(() => undefined);
          return;
        }
        const old = this.client;
        this.client = client;
        this.db = db;
        this.clientGeneration += 1;
        this.failingSince = 0;
        void old.close(true).catch(() => undefined);
      } catch {
        // the database does not answer a new client either: an outage, not a wedged client
        this.failingSince = Date.now();
      } finally {
        this.replacing = null;
      }
    })();
  }

  collection<T extends Document = Document>(name: string): Collection<T> {
    return new MongoCollectionAdapter<T>(name, this, this.timeoutMs);
  }

  /** Drops every collection of the database, indexes included. */
  async dropAll(): Promise<void> {
    const collections = await this.long(
      'a listing of collections',
      this.db.listCollections({}, { nameOnly: true }).toArray(),
    );
    for (const { name } of collections) {
      if (name.startsWith('system.')) continue;
      await this.long('a drop', this.db.dropCollection(name)).catch((error: unknown) => {
        // dropped concurrently: fine
        if (!(error instanceof mongo.MongoServerError && error.codeName === 'NamespaceNotFound')) throw error;
      });
    }
  }

  /**
   * Drops the whole database (not part of the port: `dropAll` empties a store that stays in use).
   * For a store made for one test or one bench run: an emptied database still takes a file of its
   * own on FerretDB's SQLite handler, and hundreds of them slowed its listing of databases to minutes.
   */
  async dropDatabase(): Promise<void> {
    await this.long('a drop of the database', this.db.dropDatabase());
  }

  /** Pings failing for a while (while a new client would reach the database) replace the client: see REPLACE_CLIENT_AFTER_MS. */
  async ping(): Promise<void> {
    try {
      await this.op('a ping', this.db.command({ ping: 1 }));
      this.failingSince = 0;
    } catch (error) {
      const now = Date.now();
      if (this.failingSince === 0) this.failingSince = now;
      else if (now - this.failingSince >= (this.options.replaceClientAfterMs ?? REPLACE_CLIENT_AFTER_MS))
        this.replaceClient();
      throw error;
    }
  }

  private checkpoints() {
    return this.db.collection<CheckpointDoc>(CHECKPOINTS);
  }

  async readCheckpoint(name: string): Promise<Checkpoint | null> {
    for (;;) {
      const doc = await this.op('a checkpoint read', this.checkpoints().findOne({ _id: name }));
      if (!doc) return null;
      if (!doc.journal) return { version: doc.version, state: doc.state };
      const abandoned =
        Date.now() - doc.journal.at > (this.options.abandonedJournalMs ?? ABANDONED_AFTER_MS) ||
        journalWriterGone(doc.journal);
      if (doc.journal.writer === this.writer || abandoned) await this.finish(doc);
      else await sleep(100);
    }
  }

  async commit(
    name: string,
    expectedVersion: number,
    state: Record<string, unknown>,
    writes: Write[],
  ): Promise<CommitResult> {
    checkWrites(writes);
    const pieces = journalPieces(writes, this.options.journalInlineBytes);
    const chunked = pieces.length > 1;
    const version = expectedVersion + 1;
    const journal: Journal = {
      version,
      state,
      writes: chunked ? '' : pieces[0],
      writer: this.writer,
      at: Date.now(),
      host: PROCESS_SPACE,
      pid: process.pid,
    };
    if (chunked) {
      journal.attempt = randomUUID();
      journal.chunks = pieces.length;
      const attempt = journal.attempt;
      await bounded(
        'a journal',
        this.chunks().insertMany(
          pieces.map((writes, index) => ({
            _id: `${attempt}:${index}`,
            checkpoint: name,
            version,
            attempt,
            index,
            writes,
          })),
        ),
        this.bulkTimeoutMs(writes.length),
      );
    }
    let claimed: boolean;
    if (expectedVersion === 0) {
      claimed = await this.op(
        'a checkpoint claim',
        this.checkpoints().insertOne({ _id: name, version: 0, state: {}, journal }),
      ).then(
        () => true,
        (error: unknown) => {
          if (isDuplicateKey(error)) return false;
          throw error;
        },
      );
    } else {
      const claim = await this.op(
        'a checkpoint claim',
        this.checkpoints().updateOne(
          { _id: name, version: expectedVersion, journal: { $exists: false } },
          { $set: { journal } },
        ),
      );
      claimed = claim.matchedCount === 1;
    }
    if (!claimed) {
      if (journal.attempt) await this.op('a journal cleanup', this.chunks().deleteMany({ attempt: journal.attempt }));
      // Another writer's transition, or our own from an attempt that failed after claiming: see
      // where the checkpoint ends up. The same state means the same events were applied.
      const now = await this.readCheckpoint(name);
      const same = now?.version === version && JSON.stringify(now.state) === JSON.stringify(state);
      return same ? { committed: true, rejected: [], adopted: true } : { committed: false, rejected: [] };
    }
    await this.options.faults?.('claimed');
    const rejected = await this.applyWrites(writes);
    await this.options.faults?.('written');
    await this.op(
      'a checkpoint update',
      this.checkpoints().updateOne(
        { _id: name, 'journal.version': version, 'journal.writer': this.writer },
        { $set: { version, state }, $unset: { journal: '' } },
      ),
    );
    if (chunked) await this.dropChunks(name, version);
    return { committed: true, rejected };
  }

  private chunks() {
    return this.db.collection<JournalChunk>(JOURNAL_CHUNKS);
  }

  private bulkTimeoutMs(writes: number): number {
    const base = this.timeoutMs;
    return base === 0 ? 0 : base + writes * BULK_MS_PER_WRITE;
  }

  private get timeoutMs(): number {
    return this.options.operationTimeoutMs ?? OPERATION_TIMEOUT_MS;
  }

  /** an operation bounded by the store's timeout */
  private op<T>(what: string, op: Promise<T>): Promise<T> {
    return bounded(what, op, this.timeoutMs);
  }

  private long<T>(what: string, op: Promise<T>): Promise<T> {
    return bounded(what, op, this.timeoutMs === 0 ? 0 : LONG_OPERATION_MS);
  }

  /** The writes of a pending journal, from the journal itself or from its chunks. */
  private async journalWrites(name: string, journal: Journal): Promise<Write[]> {
    if (!journal.chunks) return JSON.parse(journal.writes) as Write[];
    const chunks = await this.long(
      'a journal read',
      this.chunks().find({ attempt: journal.attempt }).sort({ index: 1 }).toArray(),
    );
    if (chunks.length !== journal.chunks || chunks.some((c, i) => c.index !== i)) {
      throw new Error(
        `the journal of read-model checkpoint ${name} (version ${journal.version}) names ${journal.chunks} chunks; ${chunks.length} are stored`,
      );
    }
    return chunks.flatMap((c) => JSON.parse(c.writes) as Write[]);
  }

  /** Chunks of this checkpoint's finished versions, and of attempts that never claimed them. */
  private async dropChunks(name: string, upTo: number): Promise<void> {
    await this.long('a journal cleanup', this.chunks().deleteMany({ checkpoint: name, version: { $lte: upTo } }));
  }

  /** Applies a journal found pending, then moves its checkpoint on. */
  private async finish(doc: CheckpointDoc): Promise<void> {
    const journal = doc.journal!;
    await this.applyWrites(await this.journalWrites(doc._id, journal));
    await this.op(
      'a checkpoint update',
      this.checkpoints().updateOne(
        { _id: doc._id, 'journal.version': journal.version, 'journal.writer': journal.writer },
        { $set: { version: journal.version, state: journal.state }, $unset: { journal: '' } },
      ),
    );
    if (journal.chunks) await this.dropChunks(doc._id, journal.version);
  }

  /** `clear` and `deleteMany` in order, then one unordered bulk write per collection; puts a unique index refused get one more try. */
  private async applyWrites(writes: Write[]): Promise<CommitResult['rejected']> {
    for (const w of writes) {
      if (w.kind === 'clear') {
        const collections = await this.long(
          'a listing of collections',
          this.db.listCollections({}, { nameOnly: true }).toArray(),
        );
        for (const { name } of collections) {
          if (name !== CHECKPOINTS && name !== JOURNAL_CHUNKS && !name.startsWith('system.'))
            await this.long('a clear', this.db.collection(name).deleteMany({}));
        }
      } else if (w.kind === 'deleteMany')
        await this.long(
          'a deleteMany',
          this.db.collection<Document>(w.collection).deleteMany(w.filter as MongoFilter<Document>),
        );
    }
    const byCollection = new Map<string, Extract<Write, { kind: 'put' | 'delete' }>[]>();
    for (const w of writes) {
      if (w.kind !== 'put' && w.kind !== 'delete') continue;
      let list = byCollection.get(w.collection);
      if (!list) byCollection.set(w.collection, (list = []));
      list.push(w);
    }
    const refused: { collection: string; doc: Document }[] = [];
    for (const [collection, list] of byCollection) {
      const ops: AnyBulkWriteOperation<Document>[] = list.map((w) =>
        w.kind === 'put'
          ? { replaceOne: { filter: { _id: w.doc._id }, replacement: w.doc, upsert: true } }
          : { deleteOne: { filter: { _id: w.id } } },
      );
      try {
        await bounded(
          'a bulk write',
          this.db.collection<Document>(collection).bulkWrite(ops, { ordered: false }),
          this.bulkTimeoutMs(ops.length),
        );
      } catch (error) {
        if (!(error instanceof mongo.MongoBulkWriteError)) throw error;
        const failures = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
        if (!failures.every((f) => isDuplicateKeyCode(f.code, f.errmsg))) throw error;
        // A unique index refused some puts. FerretDB stops an unordered bulk write at the first
        // error, so which ones ran is unknown: apply them one by one (whole documents, so those
        // already applied change nothing) and keep the refused ones for the second pass.
        for (const w of list) {
          if (w.kind === 'delete')
            await this.op('a delete', this.db.collection<Document>(collection).deleteOne({ _id: w.id }));
          else {
            try {
              await this.collection(collection).upsert(w.doc);
            } catch (e) {
              if (!(e instanceof DuplicateKeyError)) throw e;
              refused.push({ collection, doc: w.doc });
            }
          }
        }
      }
    }
    const rejected: CommitResult['rejected'] = [];
    for (const { collection, doc } of refused) {
      try {
        await this.collection(collection).upsert(doc);
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
        rejected.push({ collection, id: doc._id, reason: error.message });
      }
    }
    return rejected;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.replacing;
    await this.client.close();
  }

  /** Tests: closes the current client as if it were wedged (every operation fails; the database is fine). */
  async breakClientForTests(): Promise<void> {
    await this.client.close(true);
  }
}
