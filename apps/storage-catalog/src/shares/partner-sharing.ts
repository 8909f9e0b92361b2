/**
 * Whether a partner lets its users share, read from the partner's own stream (the latest
 * `PartnerSettingsChanged` that set `sharing_enabled`; on by default). Share rooms are served only
 * while it is on (issue 18, item 5): turning sharing off stops every room of the partner's users
 * until it is turned back on. Read from the event store rather than a read model of the catalog's,
 * so it holds at once (the accounts service makes the change; this service's read models follow a
 * moment later), and for settings changed before this check existed.
 *
 * While the event store is down (issue 39) share rooms keep opening: the answer then comes from
 * this service's read model of the same setting (`partnerSharingProjection`), which holds every
 * change made before the outage (none can be made during it).
 */
import { type PartnerSettingsChanged, StreamPrefixes, Streams, unavailableDependencyOf } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { EventStore } from '@burrow/event-store';
import type { Projection } from '@burrow/eventsourcing';

interface PartnerSharingDoc {
  _id: string;
  sharing_enabled: boolean;
  [key: string]: unknown;
}

const partnerSharingCollection = (docs: DocumentStore) => docs.collection<PartnerSharingDoc>('partner_sharing');

/** The setting a `PartnerSettingsChanged` makes, or undefined when it leaves it alone. */
function sharingSet(event: { type: string; data: unknown }): boolean | undefined {
  if (event.type !== 'PartnerSettingsChanged') return undefined;
  const changes = (event.data as PartnerSettingsChanged['data']).changes as Record<string, unknown>;
  return 'sharing_enabled' in changes ? changes.sharing_enabled !== false : undefined;
}

export async function partnerSharingEnabled(
  ctx: { store: EventStore; docs: DocumentStore },
  partnerId: string,
): Promise<boolean> {
  let events;
  try {
    events = await ctx.store.readStream(Streams.partner(partnerId), { direction: 'backwards' });
  } catch (error) {
    if (unavailableDependencyOf(error) !== 'event store') throw error;
    return (await partnerSharingCollection(ctx.docs).get(partnerId))?.sharing_enabled ?? true;
  }
  for (const event of events) {
    const set = sharingSet(event);
    if (set !== undefined) return set;
  }
  return true;
}

/** Read model of each partner's `sharing_enabled`: what share rooms go by while the event store is down. */
export const partnerSharingProjection = (): Projection => ({
  name: 'partner-sharing',
  prefixes: [StreamPrefixes.partner],
  async apply(event, docs) {
    const set = sharingSet(event);
    if (set !== undefined)
      await partnerSharingCollection(docs).upsert({
        _id: event.stream.slice(StreamPrefixes.partner.length),
        sharing_enabled: set,
      });
  },
});
