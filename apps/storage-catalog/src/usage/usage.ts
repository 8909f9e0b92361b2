/**
 * A user's stored bytes as a running-total ledger (`usage-<userId>`): every committed version adds
 * its size, every purge takes bytes off. Optimistic concurrency on the ledger makes the quota
 * exact under concurrent uploads ("a commit that would take the user past plan + bonus is
 * refused"), which a check against a read model could not promise. Entries carry the write that
 * made them, so a crashed commit's entry is undone exactly once.
 */
import { quotaExceeded, Streams } from '@burrow/contracts';
import type { EventStore } from '@burrow/event-store';
import { ensureLedgerEntry, ledgerHead, type LedgerHead, undoLedgerEntry } from '@burrow/eventsourcing';

export async function usageHead(store: EventStore, userId: string): Promise<{ total: number; revision: number | null }> {
  return ledgerHead(store, Streams.usage(userId));
}

export function ensureUsage(
  store: EventStore,
  userId: string,
  entry: { delta: number; ref: string; reason: string; after: number | null; limit?: number | null; head?: LedgerHead },
): Promise<void> {
  return ensureLedgerEntry(store, Streams.usage(userId), { ...entry, refusal: () => quotaExceeded() });
}

export function undoUsage(store: EventStore, userId: string, ref: string, after: number | null): Promise<void> {
  return undoLedgerEntry(store, Streams.usage(userId), ref, after);
}
