/**
 * A user's stored bytes as a running-total ledger (`usage-<userId>`): every committed version adds
 * its size, every purge takes bytes off. Optimistic concurrency on the ledger makes the quota
 * exact under concurrent uploads ("a commit that would take the user past plan + bonus is
 * refused"), which a check against a read model could not promise. Entries carry the write that
 * made them, so a crashed commit's entry is undone exactly once.
 */
import { DEVICES_MAX, quotaExceeded, Streams, unavailableDependencyOf } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { EventStore } from '@burrow/event-store';
import { ensureLedgerEntry, ledgerHead, type LedgerHead, undoLedgerEntry } from '@burrow/eventsourcing';
import { devicesCollection } from '../read-models/devices.projection.js';

export async function usageHead(
  store: EventStore,
  userId: string,
): Promise<{ total: number; revision: number | null }> {
  return ledgerHead(store, Streams.usage(userId));
}

/**
 * For reads (the storage root, WebDAV's quota figures): the user's stored bytes from the ledger,
 * or while the event store does not answer (issue 39) the sum the devices read model holds, every
 * device of the user's, removed ones not purged yet included, as the ledger counts them.
 */
export async function storedBytesToRead(
  ctx: { store: EventStore; docs: DocumentStore },
  userId: string,
): Promise<number> {
  try {
    return (await usageHead(ctx.store, userId)).total;
  } catch (error) {
    if (unavailableDependencyOf(error) !== 'event store') throw error;
    const devices = await devicesCollection(ctx.docs).find({ userId }, { limit: DEVICES_MAX });
    return devices.reduce((sum, d) => sum + d.bytes, 0);
  }
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
