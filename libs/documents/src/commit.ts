/**
 * The order and the unique-key rule of `DocumentStore.commit`, for adapters that apply a batch one
 * write at a time, synchronously, inside their own transaction (in-memory, SQLite): every `clear` and
 * `deleteMany` first, then puts and deletes; a put refused by a unique index is retried once after
 * the rest of the batch (a batch may hold renames whose one-at-a-time order differs from its
 * order), and reported if refused again.
 */
import {
  type CommitResult,
  type Document,
  documentProblem,
  DuplicateKeyError,
  type Filter,
  InvalidDocumentError,
  type Write,
} from './port.js';

export interface WriteTarget {
  clear(): void;
  deleteMany(collection: string, filter: Filter): void;
  /** throws DuplicateKeyError when a unique index refuses it */
  put(collection: string, doc: Document): void;
  delete(collection: string, id: string): void;
}

/** Throws InvalidDocumentError for the first put the port does not accept, before anything is written. */
export function checkWrites(writes: Write[]): void {
  for (const w of writes) {
    if (w.kind !== 'put' || w.checked) continue;
    const problem = documentProblem(w.doc);
    if (problem) throw new InvalidDocumentError(w.collection, w.doc._id, problem);
  }
}

export function applyWrites(writes: Write[], target: WriteTarget): CommitResult['rejected'] {
  checkWrites(writes);
  for (const w of writes) {
    if (w.kind === 'clear') target.clear();
    else if (w.kind === 'deleteMany') target.deleteMany(w.collection, w.filter);
  }
  const refused: Extract<Write, { kind: 'put' }>[] = [];
  for (const w of writes) {
    if (w.kind === 'delete') target.delete(w.collection, w.id);
    else if (w.kind === 'put') {
      try {
        target.put(w.collection, w.doc);
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
        refused.push(w);
      }
    }
  }
  const rejected: CommitResult['rejected'] = [];
  for (const w of refused) {
    try {
      target.put(w.collection, w.doc);
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      rejected.push({ collection: w.collection, id: w.doc._id, reason: error.message });
    }
  }
  return rejected;
}
