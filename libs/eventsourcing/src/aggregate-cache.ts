/**
 * Folded aggregate states kept per process, so that loading an aggregate reads only the events
 * appended after the state's revision instead of the whole stream (the cost of a command would
 * otherwise grow with the number of changes the stream has had).
 *
 * An entry is keyed by the store's id, the stream and the decider object, and remembers the
 * revision it was folded to together with that event's position, time and type. A load reads the
 * stream from the cached revision itself (inclusive): the first event read must be that same
 * event, else the stream is not what was cached (truncated, deleted and re-created, restored from
 * a backup: its revision went backwards or its events changed) and the whole stream is read and
 * folded again. (A restore is done with the services stopped, docs/operations.md, so a process
 * starts with an empty cache anyway; the check is the second line.) Events appended by other processes or replicas are simply the events after the
 * cached revision. Only states folded from recorded events are kept, never a state built from
 * events just decided (whose data has not been through the store's JSON).
 *
 * A cached state is handed to many commands: every `evolve` and `decide` and every caller must
 * leave it unmodified. With `BURROW_FREEZE_AGGREGATES=1` (the test runner sets it) every state is
 * deep-frozen as it is cached, so a mutation throws in the tests instead of corrupting the cache.
 */
import type { RecordedEvent } from '@burrow/event-store';

export interface AggregateCacheOptions {
  /** streams kept (least recently used dropped first); 0 turns the cache off */
  maxStreams: number;
  /** deep-freeze every cached state (tests): a mutation throws */
  freeze: boolean;
}

export const DEFAULT_AGGREGATE_CACHE_STREAMS = 10_000;

interface Entry {
  state: unknown;
  revision: number;
  position: number;
  recordedAt: number;
  type: string;
}

const options: AggregateCacheOptions = {
  maxStreams: DEFAULT_AGGREGATE_CACHE_STREAMS,
  freeze: process.env.BURROW_FREEZE_AGGREGATES === '1',
};

/** Map keeps insertion order: re-inserting on every hit makes the first key the least recently used. */
const entries = new Map<string, Entry>();

const deciderIds = new WeakMap<object, number>();
let nextDeciderId = 1;

/** Sets the bound (and the freezing); shrinking drops the least recently used entries at once. */
export function configureAggregateCache(changes: Partial<AggregateCacheOptions>): void {
  Object.assign(options, changes);
  evictBeyond(options.maxStreams);
}

export function aggregateCacheSize(): number {
  return entries.size;
}

export function clearAggregateCache(): void {
  entries.clear();
}

export function aggregateCacheKey(storeId: string, stream: string, decider: object): string {
  let id = deciderIds.get(decider);
  if (id === undefined) deciderIds.set(decider, (id = nextDeciderId++));
  return `${id}\u0000${storeId}\u0000${stream}`;
}

export interface CachedState<S> {
  state: S;
  revision: number;
}

/** The cached state, if any; it is only good together with `confirms` on the stream's events read from its revision. */
export function cachedAggregate<S>(
  key: string,
): (CachedState<S> & { confirmedBy(first: RecordedEvent | undefined): boolean }) | undefined {
  if (options.maxStreams <= 0) return undefined;
  const entry = entries.get(key);
  if (!entry) return undefined;
  entries.delete(key);
  entries.set(key, entry);
  return {
    state: entry.state as S,
    revision: entry.revision,
    confirmedBy: (first) =>
      first !== undefined &&
      first.revision === entry.revision &&
      first.position === entry.position &&
      first.recordedAt === entry.recordedAt &&
      first.type === entry.type,
  };
}

/** Keeps `state`, folded up to and including `last` (an event as the store recorded it). */
export function cacheAggregate(key: string, state: unknown, last: RecordedEvent): void {
  if (options.maxStreams <= 0) return;
  if (options.freeze) deepFreeze(state);
  entries.delete(key);
  entries.set(key, {
    state,
    revision: last.revision,
    position: last.position,
    recordedAt: last.recordedAt,
    type: last.type,
  });
  evictBeyond(options.maxStreams);
}

export function forgetAggregate(key: string): void {
  entries.delete(key);
}

function evictBeyond(max: number): void {
  for (const key of entries.keys()) {
    if (entries.size <= Math.max(0, max)) return;
    entries.delete(key);
  }
}

const refuse = (what: string) => () => {
  throw new TypeError(
    `a cached aggregate state was modified (${what}); evolve, decide and their callers must copy instead`,
  );
};

const deepFrozen = new WeakSet<object>();

/** Freezes `value` and everything reachable from it, Maps and Sets included (their mutators throw). */
export function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || deepFrozen.has(value)) return;
  deepFrozen.add(value);
  if (value instanceof Map) {
    Object.defineProperties(value, {
      set: { value: refuse('Map.set') },
      delete: { value: refuse('Map.delete') },
      clear: { value: refuse('Map.clear') },
    });
    Object.freeze(value);
    for (const [k, v] of value) {
      deepFreeze(k);
      deepFreeze(v);
    }
    return;
  }
  if (value instanceof Set) {
    Object.defineProperties(value, {
      add: { value: refuse('Set.add') },
      delete: { value: refuse('Set.delete') },
      clear: { value: refuse('Set.clear') },
    });
    Object.freeze(value);
    for (const v of value) deepFreeze(v);
    return;
  }
  if (ArrayBuffer.isView(value)) return; // typed arrays and Buffers cannot be frozen
  Object.freeze(value);
  for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
}
