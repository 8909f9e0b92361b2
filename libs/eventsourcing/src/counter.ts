/**
 * Sequential integer ids (group_id, avatar_id) from a counter stream appended with optimistic
 * concurrency: read the last value, append value + 1 expecting that revision. An id taken by a
 * write that then fails is simply never used (a gap), which nothing depends on.
 */
import type { Event } from '@burrow/contracts';
import type { EventStore } from '@burrow/event-store';
import { appendEvents } from './append.js';
import { retryOnConflict } from './retry.js';

export type IdAllocated = Event<'IdAllocated', { value: number }>;

export function nextId(store: EventStore, stream: string): Promise<number> {
  return retryOnConflict('id counter', async () => {
    const [last] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    const value = ((last?.data.value as number | undefined) ?? 0) + 1;
    await appendEvents(
      store,
      stream,
      [{ type: 'IdAllocated', data: { value } } satisfies IdAllocated],
      last ? last.revision : 'no_stream',
    );
    return value;
  });
}
