/**
 * A running-total ledger: every change appends its delta and the new total with optimistic
 * concurrency, so "the total never exceeds the limit" holds under concurrent writers, which a check
 * against a read model cannot guarantee. Used for a partner's storage allocation.
 *
 * Every entry carries a `ref` (the multi-step write that made it), so recovery can tell whether a
 * crashed write's entry was made, and undo it exactly once (`findEntry`).
 */
import type { Event } from '@burrow/contracts';
import type { EventStore } from '@burrow/event-store';
import { appendEvents } from './append.js';
import { retryOnConflict } from './retry.js';

export type LedgerEntryAppended = Event<
  'BytesAllocated',
  { delta: number; total: number; ref: string; reason: string }
>;

export interface LedgerWrite {
  delta: number;
  /** the write this entry belongs to; `undo:<ref>` for a compensation */
  ref: string;
  reason: string;
  /** refuse positive deltas that would take the total past this (null: no limit) */
  limit?: number | null;
  /** thrown (not appended) when the limit would be passed */
  refusal?: () => Error;
}

export interface LedgerHead {
  total: number;
  /** revision of the last entry, null when the ledger is empty */
  revision: number | null;
}

export async function ledgerHead(store: EventStore, stream: string): Promise<LedgerHead> {
  const [last] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
  return { total: (last?.data.total as number | undefined) ?? 0, revision: last ? last.revision : null };
}

/**
 * The entry `write` makes on `head`, checked against its limit (a positive delta past it throws
 * the refusal): appended expecting `head.revision`, so a head that moved meanwhile fails the append.
 */
export function ledgerEntry(head: LedgerHead, write: LedgerWrite): LedgerEntryAppended {
  if (write.delta > 0 && write.limit !== undefined && write.limit !== null && head.total + write.delta > write.limit) {
    throw write.refusal?.() ?? new Error('ledger limit exceeded');
  }
  return {
    type: 'BytesAllocated',
    data: { delta: write.delta, total: head.total + write.delta, ref: write.ref, reason: write.reason },
  };
}

/** Appends one entry; a zero delta appends nothing. */
export function appendToLedger(store: EventStore, stream: string, write: LedgerWrite): Promise<void> {
  if (write.delta === 0) return Promise.resolve();
  return retryOnConflict('ledger', async () => {
    const head = await ledgerHead(store, stream);
    await appendEvents(store, stream, [ledgerEntry(head, write)], head.revision ?? 'no_stream');
  });
}

/**
 * The entry with this ref appended after `afterRevision` (the head a write saw before it started),
 * or null. Reads forward from there: bounded by the entries written since that write began.
 */
export async function findEntry(
  store: EventStore,
  stream: string,
  ref: string,
  afterRevision: number | null,
): Promise<LedgerEntryAppended['data'] | null> {
  const from = afterRevision === null ? 0 : afterRevision + 1;
  const PAGE = 500;
  for (let revision = from; ; revision += PAGE) {
    const page = await store.readStream(stream, { fromRevision: revision, maxCount: PAGE });
    const hit = page.find((e) => e.data.ref === ref);
    if (hit) return hit.data as LedgerEntryAppended['data'];
    if (page.length < PAGE) return null;
  }
}

export interface EntryWrite {
  delta: number;
  /** the write this entry belongs to (a process id): at most one entry per ref */
  ref: string;
  reason: string;
  /** the ledger revision seen before the write began: entries of `ref` can only be after it */
  after: number | null;
  /** refuse a positive delta that would take the total past this (null or undefined: no limit) */
  limit?: number | null;
  /** what to throw instead of appending past the limit */
  refusal?: () => Error;
  /**
   * The head the write read just before it began (its revision is `after`), when it has it: the
   * first attempt appends on it instead of reading the ledger again. A head that moved since makes
   * that append lose the race (it expects `head.revision`), and the next attempt reads.
   */
  head?: LedgerHead;
}

/**
 * Whether the entry of `ref` may be in the ledger: not when its head is still the revision the
 * write saw before it began (nothing was appended since, so there is nothing to look for).
 */
const mayHaveEntry = (head: LedgerHead, after: number | null) => head.revision !== after;

/**
 * Appends the entry of `ref` unless it is already there: idempotent, so a recovery may redo it.
 * Every attempt re-checks, so two concurrent writers cannot both append it (an entry appended
 * after the head was read moves the head: the append, expecting the revision read, then loses
 * the race and the next attempt finds it).
 */
export function ensureLedgerEntry(store: EventStore, stream: string, w: EntryWrite): Promise<void> {
  if (w.delta === 0) return Promise.resolve();
  const known = w.head && w.head.revision === w.after ? w.head : undefined;
  return retryOnConflict('ledger', async (attempt) => {
    const head = attempt === 1 && known ? known : await ledgerHead(store, stream);
    if (mayHaveEntry(head, w.after) && (await findEntry(store, stream, w.ref, w.after))) return;
    await appendEvents(store, stream, [ledgerEntry(head, w)], head.revision ?? 'no_stream', { processId: w.ref });
  });
}

/** Undoes the entry `ref` made, if it made one and it is not undone yet (idempotent). */
export function undoLedgerEntry(store: EventStore, stream: string, ref: string, after: number | null): Promise<void> {
  return retryOnConflict('ledger', async () => {
    const head = await ledgerHead(store, stream);
    if (!mayHaveEntry(head, after)) return; // nothing appended since the write began: no entry to undo
    const made = await findEntry(store, stream, ref, after);
    if (!made || (await findEntry(store, stream, `undo:${ref}`, after))) return;
    const entry: LedgerEntryAppended = {
      type: 'BytesAllocated',
      data: { delta: -made.delta, total: head.total - made.delta, ref: `undo:${ref}`, reason: `undo ${made.reason}` },
    };
    await appendEvents(store, stream, [entry], head.revision ?? 'no_stream', { processId: ref });
  });
}
