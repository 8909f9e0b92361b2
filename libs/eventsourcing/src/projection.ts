/** What a projection is, what the projection runner is given and answers, and how it refuses a store. */
import type { DocumentStore } from '@burrow/documents';
import type { RecordedEvent } from '@burrow/event-store';

export interface Projection {
  name: string;
  /** stream-name prefixes this projection reads */
  prefixes: string[];
  /** Called at every start, before the first event; create indexes here. */
  init?(docs: DocumentStore): Promise<void>;
  /** Applies one event, reading and writing only through `docs` (the batch's unit of work). */
  apply(event: RecordedEvent, docs: DocumentStore): Promise<void>;
}

/**
 * A recorded event's data as the event its type names (`dataOf<UserCreated>(event)`, once
 * `event.type` says so). The event store's port types data as an untyped record; what it holds
 * for a type is what a decider appended for it (events are never rewritten), so a projection may
 * read it as that event. The one place that trust is written, instead of a cast in each projection.
 */
export function dataOf<E extends { data: object }>(event: Pick<RecordedEvent, 'data'>): E['data'] {
  return event.data;
}

/** A recorded event as one of a stream's event types (a union to switch on by `type`), on the same trust as `dataOf`. */
export function eventOf<E extends { type: string; data: object }>(event: Pick<RecordedEvent, 'type' | 'data'>): E {
  return { type: event.type, data: event.data } as E;
}

/**
 * A projection whose code closes over its store (`build(docs)` returns its init and apply): built
 * again for each unit of work the runner hands it, so it reads and writes through it like any
 * other projection.
 */
export function projectionOver(
  name: string,
  prefixes: string[],
  build: (docs: DocumentStore) => { init?(): Promise<void>; apply(event: RecordedEvent): Promise<void> },
): Projection {
  let bound: { docs: DocumentStore; projection: ReturnType<typeof build> } | null = null;
  const bind = (docs: DocumentStore) =>
    bound?.docs === docs ? bound.projection : (bound = { docs, projection: build(docs) }).projection;
  return {
    name,
    prefixes,
    init: async (docs) => bind(docs).init?.(),
    apply: (event, docs) => bind(docs).apply(event),
  };
}

export type RunnerState = 'starting' | 'catching-up' | 'live' | 'retrying' | 'stopped';

export interface ProjectionRunnerOptions {
  log?: (level: 'info' | 'warn' | 'error', msg: string, extra?: object) => void;
  /** the checkpoint's name in the document store (one runner per document store) */
  checkpoint?: string;
  /** read models built from another event store: rebuild them (default) or refuse to start */
  onStoreMismatch?: 'rebuild' | 'refuse';
  /**
   * A batch is committed after this many events, or this many written documents, or when caught
   * up, or when its documents make too many bytes (maxBatchBytes). Unset: 2,000 events or 5,000
   * documents when live; while catching up into SQLite or memory,
   * 5,000 events or 12,500 documents (see CATCH_UP_BATCH).
   */
  maxBatchEvents?: number;
  maxBatchWrites?: number;
  /** ... or once the documents it holds to write make this many bytes as JSON, about (default 16 MiB) */
  maxBatchBytes?: number;
  /** backoff between retries after a failure */
  retryMinMs?: number;
  retryMaxMs?: number;
  /** how often catching up logs its progress */
  progressEveryMs?: number;
  /** behind the store's head for longer than this without catching up: not ready */
  lagLimitMs?: number;
  /**
   * A step (applying an event, committing a batch, loading the checkpoint) still unfinished after
   * this long is logged at warn, naming it (default 10 s); after `lagLimitMs` readiness fails with
   * it as the reason. A read-model operation that never returns would otherwise leave the runner
   * stalled with nothing said.
   */
  slowStepMs?: number;
}

export interface RunnerHealth {
  ok: boolean;
  state: RunnerState;
  position: number;
  head: number | null;
  /** why not ok */
  reason?: string;
}

export class StoreMismatchError extends Error {
  constructor(
    readonly expected: string,
    readonly actual: string,
  ) {
    super(
      `the read models were built from event store ${expected}, not from this one (${actual}); ` +
        'rebuild them (BURROW_READ_MODELS_ON_STORE_MISMATCH=rebuild) or point at the right event store',
    );
    this.name = 'StoreMismatchError';
  }
}

/** positions passed without an event for these projections after which the checkpoint is committed anyway */
/** The read models record events past the event store's head, and `onStoreMismatch` is 'refuse'. */
export class StoreBehindError extends StoreMismatchError {
  constructor(
    readonly checkpoint: number,
    readonly head: number,
  ) {
    super('', '');
    this.message =
      `the read models include events up to position ${checkpoint}, but the event store ends at ${head} ` +
      '(it lost events, or was restored from an older backup); rebuild them (BURROW_READ_MODELS_ON_STORE_MISMATCH=rebuild)';
    this.name = 'StoreBehindError';
  }
}
