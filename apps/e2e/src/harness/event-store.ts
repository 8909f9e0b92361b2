/**
 * The event store of a running target, opened from outside as an operator would: for scenarios
 * that plant events (what a crash or the storage catalog would have left) or inspect what was
 * stored. The target's own store: the SQLite file in its data directory, or the server of its
 * EVENTSTORE_URL.
 */
import {
  type EventStore,
  EsdbEventStore,
  PostgresEventStore,
  type RecordedEvent,
  SqliteEventStore,
} from '@burrow/event-store';
import { join } from 'node:path';

export async function openEventStoreOf(dataDir: string, eventstoreUrl: string | undefined): Promise<EventStore> {
  if (!eventstoreUrl) return SqliteEventStore.open(join(dataDir, 'events.sqlite'));
  return /^postgres(ql)?:/.test(eventstoreUrl)
    ? PostgresEventStore.connect(eventstoreUrl)
    : EsdbEventStore.connect(eventstoreUrl);
}

/** Every event in the store, in position order (a subscription from the start, up to the head). */
export async function allEvents(store: EventStore): Promise<RecordedEvent[]> {
  const head = await store.headPosition();
  const events: RecordedEvent[] = [];
  await new Promise<void>((resolve, reject) => {
    let done = false;
    const sub = store.subscribeToAll(
      { fromPosition: 0, prefixes: [] },
      {
        onEvent: (event) => void events.push(event),
        onCheckpoint: (position) => {
          if (done || position < head) return;
          done = true;
          resolve();
          // not from inside the subscription's own loop (and `sub` may not be assigned yet)
          setImmediate(() => void sub.stop());
        },
        onError: reject,
      },
    );
  });
  return events.filter((e) => e.position <= head);
}
