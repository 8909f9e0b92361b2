/**
 * Uniqueness without trusting a read model: a name is taken by appending `NameReserved` to its own
 * reservation stream with the revision read just before, so of two concurrent claims exactly one
 * wins. `NameReleased` frees it. Both are idempotent for the same owner, which is what lets a
 * crashed multi-step write be completed or compensated later (WriteProcess).
 */
import { conflict, type Event } from '@burrow/contracts';
import type { EventStore } from '@burrow/event-store';
import { appendEvents } from './append.js';
import { retryOnConflict } from './retry.js';
import { StreamFacts } from './stream-facts.js';

export type NameReserved = Event<'NameReserved', { owner: string }>;
export type NameReleased = Event<'NameReleased', { owner: string }>;

/** Case-insensitive key for a name, safe inside a stream name. */
export const nameKey = (name: string) => encodeURIComponent(name.trim().toLowerCase());

const holders = new StreamFacts<string | null>();

/**
 * The current owner of a reservation stream, or null when free. Remembered with the stream's
 * revision (a device's name is resolved on every download): a reserve or release elsewhere moves
 * the revision, so the next call reads the stream again.
 */
export async function reservationHolder(store: EventStore, stream: string): Promise<string | null> {
  const holder = await holders.get(store, stream, async () => {
    const [last] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    return last
      ? { revision: last.revision, facts: last.type === 'NameReserved' ? (last.data.owner as string) : null }
      : null;
  });
  return holder ?? null;
}

/** Takes the name for `owner` (a no-op if it already holds it); 409 naming `conflictField` if taken. */
export function reserveName(store: EventStore, stream: string, owner: string, conflictField: string): Promise<void> {
  return retryOnConflict(conflictField, async () => {
    const [last] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    if (last?.type === 'NameReserved') {
      if (last.data.owner === owner) return;
      throw conflict(`${conflictField} already in use`, [conflictField]);
    }
    await appendEvents(
      store,
      stream,
      [{ type: 'NameReserved', data: { owner } } satisfies NameReserved],
      last ? last.revision : 'no_stream',
    );
  });
}

/** Frees the name if `owner` holds it; otherwise (free, or someone else's) does nothing. */
export function releaseName(store: EventStore, stream: string, owner: string): Promise<void> {
  return retryOnConflict('reservation', async () => {
    const [last] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    if (!last || last.type !== 'NameReserved' || last.data.owner !== owner) return;
    await appendEvents(
      store,
      stream,
      [{ type: 'NameReleased', data: { owner } } satisfies NameReleased],
      last.revision,
    );
  });
}
