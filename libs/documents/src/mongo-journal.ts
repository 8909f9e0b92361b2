/**
 * The MongoDB adapter's commit journal (see mongo.ts's header): the checkpoint document holding a
 * pending batch, the chunks a large batch is kept in, and how a journal's writer is told gone.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import type { Write } from './port.js';

export const CHECKPOINTS = '_checkpoints';
/** where a large batch's journal is kept, in chunks (see the header) */
export const JOURNAL_CHUNKS = '_journal_chunks';
/** a journal whose writes take more than this (UTF-8 JSON) is kept in chunks of about this size */
export const JOURNAL_INLINE_BYTES = 4 * 1024 * 1024;
/** A journal older than this, written by another process, is taken for abandoned (its writer died). */
export const ABANDONED_AFTER_MS = 30_000;

export interface CheckpointDoc {
  _id: string;
  version: number;
  state: Record<string, unknown>;
  journal?: Journal;
  [key: string]: unknown;
}

export interface Journal {
  version: number;
  state: Record<string, unknown>;
  /** the batch's writes as JSON, or '' when they are kept in `chunks` chunk documents */
  writes: string;
  /** names the chunk documents of this attempt at the batch */
  attempt?: string;
  chunks?: number;
  writer: string;
  at: number;
  host?: string | null;
  pid?: number;
}

export interface JournalChunk {
  _id: string;
  checkpoint: string;
  version: number;
  attempt: string;
  index: number;
  writes: string;
}

/**
 * The batch's writes as JSON pieces of at most about `limit` UTF-8 bytes each (a single write
 * larger than that is a piece of its own: a document is 16 MiB at most, so it still fits).
 */
export function journalPieces(writes: Write[], limit: number = JOURNAL_INLINE_BYTES): string[] {
  const whole = JSON.stringify(writes);
  // UTF-8 takes at most 3 bytes per UTF-16 unit: most batches need no measuring at all
  if (whole.length * 3 <= limit || Buffer.byteLength(whole) <= limit) return [whole];
  const pieces: string[] = [];
  let current: string[] = [];
  let size = 2;
  for (const w of writes) {
    const json = JSON.stringify(w);
    const bytes = Buffer.byteLength(json) + 1;
    if (current.length > 0 && size + bytes > limit) {
      pieces.push(`[${current.join(',')}]`);
      current = [];
      size = 2;
    }
    current.push(json);
    size += bytes;
  }
  if (current.length > 0) pieces.push(`[${current.join(',')}]`);
  return pieces;
}

/**
 * This machine's boot and PID namespace (Linux), so a journal's writer can be told dead: in the
 * same boot and namespace, a process id that no longer exists. Null elsewhere (no fast path).
 */
export const PROCESS_SPACE: string | null = (() => {
  try {
    return `${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}/${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return null;
  }
})();

/** The journal's writer is a process of this machine and PID namespace that exists no more. */
export function journalWriterGone(journal: { host?: string | null; pid?: number }): boolean {
  if (
    !PROCESS_SPACE ||
    journal.host !== PROCESS_SPACE ||
    typeof journal.pid !== 'number' ||
    journal.pid === process.pid
  )
    return false;
  try {
    process.kill(journal.pid, 0);
    return false; // it exists (or its id was taken again): wait for the time limit
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
