/**
 * Sequential integer ids (group_id, avatar_id) from a counter stream appended with optimistic
 * concurrency: read the last value, append value + 1 expecting that revision, retry on conflict.
 */
import { serviceUnavailable } from '@burrow/contracts';
import { type EventStore, WrongExpectedRevisionError } from '@burrow/event-store';

export async function nextId(store: EventStore, stream: string): Promise<number> {
  for (let attempt = 1; attempt <= 100; attempt++) {
    const [last] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    const value = ((last?.data.value as number | undefined) ?? 0) + 1;
    try {
      await store.append(stream, [{ type: 'IdAllocated', data: { value } }], last ? last.revision : 'no_stream');
      return value;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(20, attempt)));
    }
  }
  throw serviceUnavailable('could not allocate an id; retry');
}
