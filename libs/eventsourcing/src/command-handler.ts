/**
 * Runs commands against one aggregate stream: read, fold, decide, append with the expected
 * revision. A concurrency conflict re-reads and retries (the one retry policy); a DomainError from
 * `decide` is thrown unchanged. Several commands (one request that changes several things) are
 * decided in order and appended together.
 */
import { type Decider, decideAll } from '@burrow/contracts';
import type { EventStore, RecordedEvent } from '@burrow/event-store';
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

export async function loadAggregate<S, E extends DomainEvent>(
  store: EventStore,
  stream: string,
  decider: Pick<Decider<S, never, E>, 'initialState' | 'evolve'>,
): Promise<{ state: S; revision: number | null }> {
  const recorded = await store.readStream(stream);
  let state = decider.initialState;
  for (const e of recorded) state = decider.evolve(state, toDomainEvent<E>(e));
  return { state, revision: recorded.length ? recorded[recorded.length - 1].revision : null };
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
    const result = await appendEvents(store, stream, events, revision ?? 'no_stream', options.metadata);
    return { state: events.reduce(decider.evolve, state), events, position: result.position, revision: result.revision };
  });
}
