/**
 * The partner's storage allocation: a ledger (`allocation-<partnerId>`) of the bytes promised to
 * its users (plan bytes + bonus each). Optimistic concurrency on the ledger keeps
 * "allocated never exceeds bytes_available" true under concurrent requests; entries carry the
 * multi-step write that made them, so recovery can make or undo one exactly once.
 */
import { paymentRequired, type Plan, Streams } from '@burrow/contracts';
import type { EventStore } from '@burrow/event-store';
import { appendEvents, findEntry, ledgerHead, type LedgerEntryAppended, retryOnConflict } from '@burrow/eventsourcing';

/** Bytes a user takes from the partner's allocation: plan bytes + bonus. */
export const allocationOf = (plan: Plan | undefined, bonus: number) => (plan?.storage_bytes ?? 0) + bonus;

export async function allocatedBytes(store: EventStore, partnerId: string): Promise<number> {
  return (await ledgerHead(store, Streams.allocation(partnerId))).total;
}

/** The ledger revision a write saw before it began: recovery searches for its entries after it. */
export async function allocationRevision(store: EventStore, partnerId: string): Promise<number | null> {
  return (await ledgerHead(store, Streams.allocation(partnerId))).revision;
}

export interface AllocationWrite {
  partnerId: string;
  delta: number;
  /** the process this entry belongs to */
  ref: string;
  reason: string;
  /** refuse a positive delta past this (null: unlimited; undefined: do not check) */
  limit?: number | null;
  /** the 402 reason ("payment required" on create, "quota exceeded" on edit) */
  refusal?: string;
  /** the ledger revision seen before the write began */
  after: number | null;
}

/**
 * Appends the entry for `ref` unless it is already there (idempotent: a recovery may redo it).
 * Every attempt re-checks, so two concurrent recoveries cannot both append.
 */
export function ensureAllocation(store: EventStore, w: AllocationWrite): Promise<void> {
  if (w.delta === 0) return Promise.resolve();
  const stream = Streams.allocation(w.partnerId);
  return retryOnConflict('allocation ledger', async () => {
    const head = await ledgerHead(store, stream);
    if (await findEntry(store, stream, w.ref, w.after)) return;
    if (w.delta > 0 && w.limit !== undefined && w.limit !== null && head.total + w.delta > w.limit) {
      throw paymentRequired(w.refusal ?? 'payment required: allocation would exceed the bytes available to the enterprise');
    }
    const entry: LedgerEntryAppended = { type: 'BytesAllocated', data: { delta: w.delta, total: head.total + w.delta, ref: w.ref, reason: w.reason } };
    await appendEvents(store, stream, [entry], head.revision ?? 'no_stream', { processId: w.ref });
  });
}

/** Undoes the entry `ref` made, if it made one and it is not undone yet (idempotent). */
export function undoAllocation(store: EventStore, partnerId: string, ref: string, after: number | null): Promise<void> {
  const stream = Streams.allocation(partnerId);
  return retryOnConflict('allocation ledger', async () => {
    const head = await ledgerHead(store, stream);
    const made = await findEntry(store, stream, ref, after);
    if (!made || (await findEntry(store, stream, `undo:${ref}`, after))) return;
    const entry: LedgerEntryAppended = { type: 'BytesAllocated', data: { delta: -made.delta, total: head.total - made.delta, ref: `undo:${ref}`, reason: `undo ${made.reason}` } };
    await appendEvents(store, stream, [entry], head.revision ?? 'no_stream', { processId: ref });
  });
}
