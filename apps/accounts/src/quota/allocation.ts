/**
 * The partner's storage allocation: a ledger (`allocation-<partnerId>`) of the bytes promised to
 * its users (plan bytes + bonus each). Optimistic concurrency on the ledger keeps
 * "allocated never exceeds bytes_available" true under concurrent requests; entries carry the
 * multi-step write that made them, so recovery can make or undo one exactly once.
 */
import { paymentRequired, type Plan, Streams } from '@burrow/contracts';
import type { EventStore } from '@burrow/event-store';
import { ensureLedgerEntry, ledgerHead, undoLedgerEntry } from '@burrow/eventsourcing';

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

/** Appends the entry for `ref` unless it is already there (idempotent: a recovery may redo it). */
export function ensureAllocation(store: EventStore, w: AllocationWrite): Promise<void> {
  return ensureLedgerEntry(store, Streams.allocation(w.partnerId), {
    ...w,
    refusal: () =>
      paymentRequired(w.refusal ?? 'payment required: allocation would exceed the bytes available to the enterprise'),
  });
}

/** Undoes the entry `ref` made, if it made one and it is not undone yet (idempotent). */
export function undoAllocation(store: EventStore, partnerId: string, ref: string, after: number | null): Promise<void> {
  return undoLedgerEntry(store, Streams.allocation(partnerId), ref, after);
}
