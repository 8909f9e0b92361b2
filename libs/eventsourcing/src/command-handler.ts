/**
 * Runs one command against one aggregate stream: read, fold, decide, append with the expected
 * revision. A concurrency conflict re-reads and retries (bounded, with jitter); a DomainError from
 * `decide` is thrown unchanged.
 */
import { type Decider, serviceUnavailable } from '@burrow/contracts';
import { type EventStore, type RecordedEvent, WrongExpectedRevisionError } from '@burrow/event-store';

export interface DomainEvent {
  type: string;
  data: object;
}

export const SCHEMA_VERSION = 1;

export const toDomainEvent = <E extends DomainEvent>(e: RecordedEvent): E => ({ type: e.type, data: e.data }) as E;

export interface CommandResult<S, E> {
  state: S;
  events: E[];
  /** global position of the last appended event; null when the command changed nothing */
  position: number | null;
}

export interface CommandOptions {
  maxAttempts?: number;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

export async function handleCommand<S, C, E extends DomainEvent>(
  store: EventStore,
  stream: string,
  decider: Decider<S, C, E>,
  command: C,
  options: CommandOptions = {},
): Promise<CommandResult<S, E>> {
  const maxAttempts = options.maxAttempts ?? 25;
  for (let attempt = 1; ; attempt++) {
    const { state, revision } = await loadAggregate(store, stream, decider);
    const events = decider.decide(command, state);
    if (events.length === 0) return { state, events, position: null };
    try {
      const result = await store.append(
        stream,
        events.map((e) => ({ type: e.type, data: e.data as Record<string, unknown>, metadata: { schemaVersion: SCHEMA_VERSION } })),
        revision ?? 'no_stream',
      );
      return { state: events.reduce(decider.evolve, state), events, position: result.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt >= maxAttempts) throw serviceUnavailable(`too much contention on ${stream.split('-')[0]}; retry`);
      await pause(Math.random() * Math.min(50, 2 * attempt));
    }
  }
}
