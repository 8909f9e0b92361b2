/**
 * Runs commands against one aggregate stream: read, fold, decide, append with the expected
 * revision. A concurrency conflict re-reads and retries (the one retry policy); a DomainError from
 * `decide` is thrown unchanged. Several commands (one request that changes several things) are
 * decided in order and appended together.
 */
import { type Decider, decideAll } from '@burrow/contracts';
import { type EventStore, type RecordedEvent, WrongExpectedRevisionError } from '@burrow/event-store';
import { aggregateCacheKey, cacheAggregate, cachedAggregate, forgetAggregate } from './aggregate-cache.js';
import { type AppendMetadata, appendEvents, type DomainEvent } from './append.js';
import { retryOnConflict } from './retry.js';

export const toDomainEvent = <E extends DomainEvent>(e: RecordedEvent): E => ({ type: e.type, data: e.data }) as E;

export interface CommandResult<S, E> {
  state: S;
  events: E[];
  /** global position of the last appended event; null when the command changed nothing */
  position: number | null;
  /** the stream's revision after the command (null: the stream does not exist) */
  revision: number | null;
}

/**
 * The stream's current state and revision. Reads only the events after a state cached by an
 * earlier load (aggregate-cache.ts); the state returned may be that cached object, so the caller
 * must not modify it.
 */
export async function loadAggregate<S, E extends DomainEvent>(
  store: EventStore,
  stream: string,
  decider: Pick<Decider<S, never, E>, 'initialState' | 'evolve'>,
): Promise<{ state: S; revision: number | null }> {
  const key = aggregateCacheKey(await store.storeId(), stream, decider);
  const cached = cachedAggregate<S>(key);
  if (cached) {
    const recorded = await store.readStream(stream, { fromRevision: cached.revision });
    if (cached.confirmedBy(recorded[0]))
      return fold(key, cached.state, recorded.slice(1), decider) ?? { state: cached.state, revision: cached.revision };
    forgetAggregate(key);
  }
  const recorded = await store.readStream(stream);
  return fold(key, decider.initialState, recorded, decider) ?? { state: decider.initialState, revision: null };
}

/** Folds `recorded` onto `state` and caches the result; undefined when there is nothing to fold. */
function fold<S, E extends DomainEvent>(
  key: string,
  state: S,
  recorded: RecordedEvent[],
  decider: Pick<Decider<S, never, E>, 'evolve'>,
): { state: S; revision: number } | undefined {
  if (recorded.length === 0) return undefined;
  for (const e of recorded) state = decider.evolve(state, toDomainEvent<E>(e));
  const last = recorded[recorded.length - 1];
  cacheAggregate(key, state, last);
  return { state, revision: last.revision };
}

export interface CommandOptions {
  metadata?: AppendMetadata;
}

export function handleCommand<S, C, E extends DomainEvent>(
  store: EventStore,
  stream: string,
  decider: Decider<S, C, E>,
  command: C | C[],
  options: CommandOptions = {},
): Promise<CommandResult<S, E>> {
  const commands = Array.isArray(command) ? command : [command];
  return retryOnConflict(stream.split('-')[0], async () => {
    const { state, revision } = await loadAggregate(store, stream, decider);
    const events = decideAll(decider, commands, state);
    if (events.length === 0) return { state, events, position: null, revision };
    let result;
    try {
      result = await appendEvents(store, stream, events, revision ?? 'no_stream', options.metadata);
    } catch (error) {
      // the retry reads the whole stream again rather than trust a state that lost a race
      if (error instanceof WrongExpectedRevisionError)
        forgetAggregate(aggregateCacheKey(await store.storeId(), stream, decider));
      throw error;
    }
    return {
      state: events.reduce(decider.evolve, state),
      events,
      position: result.position,
      revision: result.revision,
    };
  });
}
