/**
 * Whether a partner lets its users share, read from the partner's own stream (the latest
 * `PartnerSettingsChanged` that set `sharing_enabled`; on by default). Share rooms are served only
 * while it is on (issue 18, item 5): turning sharing off stops every room of the partner's users
 * until it is turned back on. Read from the event store rather than a read model of the catalog's,
 * so it holds at once, and for settings changed before this check existed (no projection to rebuild).
 */
import { type PartnerSettingsChanged, Streams } from '@burrow/contracts';
import type { EventStore } from '@burrow/event-store';

export async function partnerSharingEnabled(store: EventStore, partnerId: string): Promise<boolean> {
  const events = await store.readStream(Streams.partner(partnerId), { direction: 'backwards' });
  for (const event of events) {
    if (event.type !== 'PartnerSettingsChanged') continue;
    const changes = (event.data as PartnerSettingsChanged['data']).changes as Record<string, unknown>;
    if ('sharing_enabled' in changes) return changes.sharing_enabled !== false;
  }
  return true;
}
