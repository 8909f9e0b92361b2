/**
 * Read model of each partner's storage allocation: the total of its ledger (`allocation-<partnerId>`)
 * after the last entry projected. The ledger itself stays the authority (its optimistic concurrency
 * keeps "allocated never exceeds bytes_available"); this copy lets `GET /partner/quota` answer while
 * the event store does not (issue 39: reads need only the read models). Every ledger entry carries
 * the running total, so the document is the latest entry's total; a projection added to a running
 * deployment starts from the first event (positions are per projection) and so holds every ledger.
 */
import { StreamPrefixes } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { Projection } from '@burrow/eventsourcing';

export interface AllocationDoc {
  _id: string;
  total: number;
  /** the ledger revision the total is at */
  revision: number;
  [key: string]: unknown;
}

export const allocationsCollection = (docs: DocumentStore) => docs.collection<AllocationDoc>('partner_allocations');

export const allocationsProjection = (): Projection => ({
  name: 'partner-allocations',
  prefixes: [StreamPrefixes.allocation],
  async apply(event, docs) {
    if (event.type !== 'BytesAllocated') return;
    const total = event.data.total;
    if (typeof total !== 'number') return;
    await allocationsCollection(docs).upsert({
      _id: event.stream.slice(StreamPrefixes.allocation.length),
      total,
      revision: event.revision,
    });
  },
});

/** The partner's allocated bytes as the read models hold them (no entry yet: nothing allocated). */
export async function projectedAllocation(docs: DocumentStore, partnerId: string): Promise<number> {
  return (await allocationsCollection(docs).get(partnerId))?.total ?? 0;
}
