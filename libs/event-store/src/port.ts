/**
 * The EventStore port: append with an expected revision, read one stream, and subscribe to the
 * global log from a position with a stream-prefix filter (catch-up first, then live).
 *
 * Positions are global, strictly increasing integers (`0` = before the first event). Revisions
 * count the events of one stream from 0.
 */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number;

export interface NewEvent {
  type: string;
  data: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

export interface RecordedEvent {
  stream: string;
  revision: number;
  position: number;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  /** milliseconds since the epoch, when the store recorded it */
  recordedAt: number;
}

export interface AppendResult {
  /** revision of the last appended event */
  revision: number;
  /** global position of the last appended event */
  position: number;
}

/** One stream's part of an atomic append over several streams (`EventStore.appendAtomically`). */
export interface StreamWrite {
  stream: string;
  events: NewEvent[];
  expected: ExpectedRevision;
}

export interface ReadOptions {
  fromRevision?: number;
  maxCount?: number;
  direction?: 'forwards' | 'backwards';
}

export interface SubscriptionHandlers {
  /** Called for every matching event in position order; awaited before the next one. */
  onEvent(event: RecordedEvent): Promise<void> | void;
  /**
   * Called when everything up to `position` (matching or not) has been delivered. Lets a
   * filtered subscriber advance its checkpoint past events it does not care about.
   */
  onCheckpoint?(position: number): Promise<void> | void;
  onError?(error: Error): void;
}

export interface SubscribeOptions {
  /** exclusive: events with a greater position are delivered */
  fromPosition: number;
  /** stream-name prefixes, e.g. ['group-', 'user-']; empty = every stream */
  prefixes: string[];
}

export interface Subscription {
  stop(): Promise<void>;
  /**
   * Someone waits for events this subscription may not have been told of yet (e.g. a deferred
   * append, announced late): read the store again soon rather than at the next poll. Optional.
   */
  wake?(): void;
}

export interface EventStore {
  append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /**
   * Appends to several streams (each at most once) in one transaction, all or nothing: each write
   * keeps its own expected-revision check, and a check that fails (WrongExpectedRevisionError,
   * naming that write's stream) appends none of them. Durable, visible and announced as `append`
   * is; the results in the order of `writes`. For a write over several streams that would
   * otherwise be a multi-step process (steps, a commit point, recovery). Absent on stores that
   * cannot do it in one transaction (KurrentDB through its Node client): such writes stay
   * multi-step processes.
   */
  appendAtomically?(writes: StreamWrite[]): Promise<AppendResult[]>;
  /**
   * A view of this store whose appends need not wait for the disk: each is committed and visible
   * at once, in order, and becomes durable no later than the next durable append to this store.
   * For the steps of a multi-step write that ends with a durable append before its reply: a
   * power loss before that append loses a suffix of the steps, which is a crash at an earlier
   * step, and recovery settles it. Absent on stores whose every append is durable.
   */
  deferringDurability?(): EventStore;
  /** Events of one stream; an empty list when the stream does not exist. */
  readStream(stream: string, options?: ReadOptions): Promise<RecordedEvent[]>;
  /**
   * The revision of the stream's newest event, null when the stream does not exist: whether a
   * stream changed since a revision seen earlier, without reading (and parsing) an event.
   */
  streamRevision(stream: string): Promise<number | null>;
  subscribeToAll(options: SubscribeOptions, handlers: SubscriptionHandlers): Subscription;
  /** Position of the newest event in the store (0 when empty). */
  headPosition(): Promise<number>;
  /**
   * A stable id of the store's data, assigned when the store is created: the same for every
   * connection and process on this store (and for a backup restored from it), a different one for
   * a fresh or re-created store. Positions are only meaningful with the id of the store they came
   * from: a checkpoint kept beside a read model records it.
   */
  storeId(): Promise<string>;
  /** Throws when the store cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`stream ${stream}: expected revision ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

/** Throws unless `writes` is an append a store may take: at least one write, each with events, each stream once. */
export function checkWrites(writes: readonly StreamWrite[]): void {
  if (writes.length === 0 || writes.some((w) => w.events.length === 0))
    throw new Error('append needs at least one event');
  if (writes.length > 1 && new Set(writes.map((w) => w.stream)).size !== writes.length)
    throw new Error('an atomic append writes to each stream once');
}

/** `store.deferringDurability()` where the store offers it, else the store itself (always durable). */
export const deferDurability = (store: EventStore): EventStore => store.deferringDurability?.() ?? store;
