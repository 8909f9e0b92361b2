/**
 * Feeds a service's projections from one catch-up subscription to the event store and tracks how
 * far they have got, so a command handler can wait until its own write is visible
 * (read-your-writes: `waitFor(position)`).
 *
 * Events are applied in batches: the projections read and write through a unit of work
 * (`WriteBehind`), and the runner commits its writes together with the checkpoint
 * (`DocumentStore.commit`), all or nothing and only if nobody else committed since. So
 * - a crash between applying and checkpointing loses the whole batch, which is applied again;
 * - two replicas of a service on one read-model database never both apply an event: the second
 *   commit finds the checkpoint moved, drops its batch and resumes from the new checkpoint;
 * - a rebuild writes each document once per batch, not once per event.
 * The checkpoint records the identity of the event store it was built from: read models of another
 * store (a fresh or replaced one) are rebuilt from scratch, or refused (`onStoreMismatch`).
 *
 * Failures never stop it for good: an unreachable document store or event store is retried with
 * backoff (state `retrying`, reported by `health()`), and the runner resumes where its checkpoint
 * says. A projection that throws on an event while the store answers is a bug: the event is
 * logged and skipped for that projection, and nothing it wrote for that event is kept.
 */
import { type HealthReply, serviceUnavailable } from '@burrow/contracts';
import { CommittedCache, type DocumentStore, type Write, WriteBehind } from '@burrow/documents';
import type { EventStore, RecordedEvent, Subscription } from '@burrow/event-store';
import { setFlagsFromString } from 'node:v8';

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
  const bind = (docs: DocumentStore) => (bound?.docs === docs ? bound.projection : (bound = { docs, projection: build(docs) }).projection);
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

interface RunnerCheckpoint {
  /** the event store's identity (EventStore.storeId) */
  storeId: string;
  /** per projection: every event up to here is in its read models */
  positions: Record<string, number>;
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
  constructor(readonly expected: string, readonly actual: string) {
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
  constructor(readonly checkpoint: number, readonly head: number) {
    super('', '');
    this.message =
      `the read models include events up to position ${checkpoint}, but the event store ends at ${head} ` +
      '(it lost events, or was restored from an older backup); rebuild them (BURROW_READ_MODELS_ON_STORE_MISMATCH=rebuild)';
    this.name = 'StoreBehindError';
  }
}

const CHECKPOINT_EMPTY_AFTER = 10_000;

/**
 * A batch's documents are also bounded by their size (as JSON, estimated when the unit of work
 * copies them): counts alone let a batch of large documents (files with dead properties, feed
 * entries with long details) hold hundreds of MiB until its commit. 12,500 users' documents make
 * ~6 MiB; 16 MiB of JSON is ~50 MiB of heap.
 */
const BATCH_BYTES = 16 * 2 ** 20;
const LIVE_BATCH = { events: 2_000, writes: 5_000 };
/**
 * While catching up (a rebuild, a restart behind the log) into a store that commits in one local
 * transaction: bigger batches. A commit costs per page it writes (each index's pages a batch
 * touches are written once per commit, however many of the batch's documents they hold), so
 * fewer commits write far fewer pages; the price is a longer commit while the service is not
 * ready anyway, and the batch's documents held in memory until then: 20,000 events / 50,000
 * documents peaked at 1.4-1.6 GiB RSS in a 1M-user rebuild (with the committed cache unbounded
 * then), so 5,000 / 12,500 (docs/performance.md, "Rebuilds, 2026-11-26, second pass"). Not for
 * MongoDB, whose commit is not local: a batch is journaled, then written over the network.
 */
const CATCH_UP_BATCH = { events: 5_000, writes: 12_500 };

/**
 * While a runner of this process catches up, V8's heap may grow to 1.5x what survived its last
 * full collection (`--heap-growing-percent=50`) instead of up to 4x: a rebuild allocates fast and
 * its batches live long enough to reach the old generation, so with V8's own factor the heap of a
 * 1M-user rebuild grew to ~350 MiB of mostly garbage over ~60 MiB live (RSS 508-582 MiB; issue 23:
 * < 512 MiB). Set back to V8's own (0) once no runner catches up: serving is not affected. The
 * flag is read whenever V8 sets its next limit, so changing it at run time takes effect
 * (docs/decisions.md, "Memory during a rebuild is bounded").
 */
const CATCH_UP_HEAP_GROWING_PERCENT = 50;
let runnersCatchingUp = 0;
function boundHeapGrowth(catchingUp: boolean): void {
  runnersCatchingUp += catchingUp ? 1 : -1;
  if (runnersCatchingUp !== (catchingUp ? 1 : 0)) return;
  try {
    setFlagsFromString(`--heap-growing-percent=${catchingUp ? CATCH_UP_HEAP_GROWING_PERCENT : 0}`);
  } catch {
    // a runtime without the flag: V8's own growth
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.());

export class ProjectionRunner {
  private subscription: Subscription | null = null;
  /** the waits of `retrying` under way, ended by `stop()` */
  private readonly pauses = new Set<() => void>();
  /** bumped whenever the subscription is replaced: callbacks of an older one are ignored */
  private generation = 0;
  private stopped = false;
  private state: RunnerState = 'starting';
  private lastError: string | null = null;
  private position = 0;
  private storeId = '';
  private version = 0;
  private positions: Record<string, number> = {};
  private batch: { uow: WriteBehind; events: number; end: number } | null = null;
  private readonly cache = new CommittedCache();
  /** the step under way (see `slowStepMs`): what it is, when it began (0: none), whether it was logged */
  private stepWhat: () => string = () => '';
  private stepSince = 0;
  private stepWarned = false;
  private stepId = 0;
  private watchdog: NodeJS.Timeout | null = null;
  /** the event and projection being applied (named by `describeApply` only if it is slow: no string per event) */
  private applying: { event: RecordedEvent | null; projection: string } = { event: null, projection: '' };
  private readonly describeApply = () => `applying ${this.applying.event?.type} at position ${this.applying.event?.position} to ${this.applying.projection}`;
  private readonly waiters: { position: number; resolve: () => void }[] = [];
  private caughtUp: { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void };
  private lastCaughtUpAt = Date.now();
  private progress: { timer: NodeJS.Timeout; from: number; startedAt: number } | null = null;
  private readonly prefixes: string[];
  private readonly checkpointName: string;
  /** the document store commits a batch in one local transaction (bigger batches while catching up) */
  private readonly localCommits: boolean;

  constructor(
    private readonly store: EventStore,
    private readonly documents: DocumentStore,
    private readonly projections: Projection[],
    private readonly options: ProjectionRunnerOptions = {},
  ) {
    this.checkpointName = options.checkpoint ?? 'projections';
    this.localCommits = documents.localCommits === true;
    this.prefixes = projections.some((p) => p.prefixes.length === 0) ? [] : [...new Set(projections.flatMap((p) => p.prefixes))];
    let resolve!: () => void;
    let reject!: (e: Error) => void;
    const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
    promise.catch(() => undefined);
    this.caughtUp = { promise, resolve, reject };
  }

  /** The position the read models resumed from at start (0: built from the first event); null before. */
  resumedFrom: number | null = null;

  get currentPosition(): number {
    return this.position;
  }

  /**
   * Starts the subscription and resolves once the read models include every event the store held
   * at that point, however long that takes (a rebuild logs its progress). Rejects only on
   * StoreMismatchError with `onStoreMismatch: 'refuse'`, or when stopped first.
   */
  async start(): Promise<void> {
    await this.restart();
    await this.caughtUp.promise;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = null;
    for (const end of this.pauses) end();
    this.pauses.clear();
    this.generation++;
    this.setState('stopped');
    this.stopProgress();
    this.caughtUp.reject(new Error('projection runner stopped'));
    const sub = this.subscription;
    this.subscription = null;
    await sub?.stop();
  }

  /** Resolves once every projection has seen `position`; 503 DomainError after `timeoutMs`. */
  async waitFor(position: number | null, timeoutMs = 10_000): Promise<void> {
    if (position === null || position <= this.position) return;
    // the store may announce the append late (a deferred one, with the next durable append): read now
    this.subscription?.wake?.();
    let timer: NodeJS.Timeout | undefined;
    const reached = new Promise<void>((resolve) => this.waiters.push({ position, resolve }));
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const reason = this.state === 'retrying' ? `read models are not being updated (${this.lastError}); retry` : 'read models are behind; retry';
        reject(serviceUnavailable(reason));
      }, timeoutMs);
    });
    try {
      await Promise.race([reached, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits until the read models include everything in the store right now. */
  async catchUp(timeoutMs = 10_000): Promise<void> {
    await this.waitFor(await this.store.headPosition(), timeoutMs);
  }

  /** For readiness: live, and not stuck behind the event store's head. */
  async health(): Promise<RunnerHealth> {
    let head: number | null = null;
    try {
      head = await this.store.headPosition();
    } catch (error) {
      return { ok: false, state: this.state, position: this.position, head, reason: `event store: ${(error as Error).message}` };
    }
    const base = { state: this.state, position: this.position, head };
    if (this.state !== 'live') {
      const reason = this.state === 'retrying' ? `read models are not being updated: ${this.lastError}` : `read models are ${this.state}`;
      return { ok: false, ...base, reason };
    }
    const lagLimit = this.options.lagLimitMs ?? 15_000;
    if (this.stepSince > 0 && Date.now() - this.stepSince > lagLimit) {
      return { ok: false, ...base, reason: `read models are stalled: ${this.stepWhat()} has not finished after ${Math.round((Date.now() - this.stepSince) / 1000)} s` };
    }
    if (head > this.position && Date.now() - this.lastCaughtUpAt > lagLimit) {
      return { ok: false, ...base, reason: `read models are ${head - this.position} positions behind the event store` };
    }
    return { ok: true, ...base };
  }

  private log(level: 'info' | 'warn' | 'error', msg: string, extra?: object): void {
    this.options.log?.(level, msg, extra);
  }

  /** A step of the runner begins, known by `what` (the watchdog and `health()` name it); returns its id for `endStep`. */
  private beginStep(what: () => string): number {
    this.stepWhat = what;
    this.stepSince = Date.now();
    this.stepWarned = false;
    return ++this.stepId;
  }

  private endStep(id: number): void {
    if (id !== this.stepId || this.stepSince === 0) return;
    if (this.stepWarned) this.log('info', 'a slow read-model step finished', { step: this.stepWhat(), seconds: Math.round((Date.now() - this.stepSince) / 1000) });
    this.stepSince = 0;
  }

  private async track<T>(what: () => string, run: () => Promise<T>): Promise<T> {
    const id = this.beginStep(what);
    try {
      return await run();
    } finally {
      this.endStep(id);
    }
  }

  /** Once a second: a step unfinished for `slowStepMs` is logged once, at warn. */
  private watch(): void {
    if (this.watchdog || this.stopped) return;
    const slow = this.options.slowStepMs ?? 10_000;
    this.watchdog = setInterval(() => {
      if (this.stepSince === 0 || this.stepWarned || Date.now() - this.stepSince < slow) return;
      this.stepWarned = true;
      this.log('warn', 'a read-model step is taking long', { step: this.stepWhat(), seconds: Math.round((Date.now() - this.stepSince) / 1000), position: this.position });
    }, Math.min(1000, slow));
    this.watchdog.unref();
  }

  private setState(state: RunnerState, error?: Error): void {
    if (error) this.lastError = error.message;
    if (state === this.state) return;
    if (state === 'retrying') this.log('warn', 'read models are not being updated; retrying', { error: this.lastError });
    else if (this.state === 'retrying') this.log('info', 'read models are being updated again', { position: this.position });
    this.state = state;
  }

  /**
   * Waits between two tries of `retrying`. The timer keeps the process alive (a service awaiting
   * `start()` while its store is down has nothing else to: an unref'd timer let it exit, and a
   * test awaiting it end with its promise pending); `stop()` ends the wait at once.
   */
  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.pauses.delete(end);
        resolve();
      }, ms);
      const end = () => {
        clearTimeout(timer);
        resolve();
      };
      this.pauses.add(end);
    });
  }

  /** Runs `step` until it succeeds (or the runner is stopped or replaced), waiting longer after each failure. */
  private async retrying<T>(generation: number, step: () => Promise<T>): Promise<T | undefined> {
    let delay = this.options.retryMinMs ?? 250;
    for (;;) {
      if (this.stopped || generation !== this.generation) return undefined;
      try {
        return await step();
      } catch (error) {
        if (error instanceof StoreMismatchError) throw error;
        this.setState('retrying', error as Error);
        await this.pause(delay);
        delay = Math.min(delay * 2, this.options.retryMaxMs ?? 5_000);
      }
    }
  }

  /**
   * (Re)loads the checkpoint and subscribes from it, dropping any batch in progress. Used at start,
   * after another writer committed first, and after the subscription failed.
   */
  private async restart(): Promise<void> {
    const generation = ++this.generation;
    const old = this.subscription;
    this.subscription = null;
    this.batch = null;
    // not awaited: we may be inside one of its callbacks, and it ends once that returns
    void old?.stop().catch(() => undefined);
    try {
      this.watch();
      const ready = await this.retrying(generation, () => this.track(() => 'loading the checkpoint', () => this.load()));
      if (!ready) return;
    } catch (error) {
      this.setState('stopped', error as Error);
      this.log('error', 'read models refused', { error: (error as Error).message });
      this.caughtUp.reject(error as Error);
      throw error;
    }
    if (this.stopped || generation !== this.generation) return;
    const from = this.projections.length ? Math.min(...this.projections.map((p) => this.positions[p.name] ?? 0)) : 0;
    if (this.state === 'starting') {
      this.resumedFrom = from;
      this.log('info', from > 0 ? 'read models resume from their checkpoint' : 'read models are built from the first event', { position: from });
    }
    // what the checkpoint holds is in the read models (another writer's commits included)
    this.advance(from);
    this.batch = this.newBatch(from);
    if (this.state !== 'live') this.startProgress(from);
    this.subscription = this.store.subscribeToAll(
      { fromPosition: from, prefixes: this.prefixes },
      {
        onEvent: (event) => (generation === this.generation ? this.onEvent(event) : undefined),
        onCheckpoint: (position) => (generation === this.generation ? this.onCheckpoint(position) : undefined),
        onError: (error) => {
          if (generation !== this.generation) return;
          this.setState('retrying', error);
          void sleep(this.options.retryMinMs ?? 250).then(() => generation === this.generation && this.resume());
        },
      },
    );
  }

  /** restart() from a callback: its failures are logged and reported by health() already */
  private resume(): void {
    this.restart().catch(() => undefined);
  }

  /** Indexes, the checkpoint, and the event store's identity against the one it records. */
  private async load(): Promise<true> {
    const storeId = await this.store.storeId();
    for (const p of this.projections) await p.init?.(this.documents);
    for (;;) {
      const checkpoint = await this.documents.readCheckpoint(this.checkpointName);
      const recorded = checkpoint?.state as RunnerCheckpoint | undefined;
      // Read models past the store's head were built from events the store no longer holds (its
      // tail lost to a power loss, or the store restored from an older backup): the positions of
      // those events will be given to new ones, which the checkpoint would then skip. Rebuild.
      const ahead = checkpoint && recorded?.storeId === storeId ? await this.aheadOfStore(recorded) : null;
      if (checkpoint && recorded?.storeId === storeId && ahead === null) {
        this.storeId = storeId;
        this.version = checkpoint.version;
        this.positions = { ...recorded.positions };
        return true;
      }
      if (checkpoint && this.options.onStoreMismatch === 'refuse') {
        throw ahead ? new StoreBehindError(ahead.checkpoint, ahead.head) : new StoreMismatchError(String(recorded?.storeId), storeId);
      }
      // No checkpoint (a new database, or one an older version wrote), another store's, or one
      // ahead of the store: start from nothing. Whatever the database holds goes in the same commit.
      if (ahead) this.log('warn', 'read models are ahead of the event store (it lost events, or was restored from a backup): rebuilding them', ahead);
      else if (checkpoint) this.log('warn', 'read models were built from another event store: rebuilding them', { recorded: recorded?.storeId, storeId });
      const state: RunnerCheckpoint = { storeId, positions: {} };
      const result = await this.documents.commit(this.checkpointName, checkpoint?.version ?? 0, state as never, [{ kind: 'clear' }]);
      if (!result.committed) continue; // another replica went first: read what it did
      this.storeId = storeId;
      this.version = (checkpoint?.version ?? 0) + 1;
      this.positions = {};
      this.position = 0;
      this.cache.startComplete();
      return true;
    }
  }

  /** The checkpoint and head when the checkpoint records a position past the store's head. */
  private async aheadOfStore(recorded: RunnerCheckpoint): Promise<{ checkpoint: number; head: number } | null> {
    const checkpoint = Math.max(0, ...Object.values(recorded.positions ?? {}));
    if (checkpoint === 0) return null;
    const head = await this.store.headPosition();
    return checkpoint > head ? { checkpoint, head } : null;
  }

  private newBatch(from: number) {
    return { uow: new WriteBehind(this.documents, this.cache), events: 0, end: from };
  }

  private async onEvent(event: RecordedEvent): Promise<void> {
    const batch = this.batch!;
    const generation = this.generation;
    for (const p of this.projections) {
      if ((this.positions[p.name] ?? 0) >= event.position) continue;
      if (p.prefixes.length && !p.prefixes.some((prefix) => event.stream.startsWith(prefix))) continue;
      await this.applyOne(p, event, batch.uow, generation);
      if (generation !== this.generation) return;
    }
    batch.events++;
    batch.end = event.position;
    const limits = this.progress && this.localCommits ? CATCH_UP_BATCH : LIVE_BATCH;
    const maxEvents = this.options.maxBatchEvents ?? limits.events;
    const maxWrites = this.options.maxBatchWrites ?? limits.writes;
    const maxBytes = this.options.maxBatchBytes ?? BATCH_BYTES;
    if (batch.events >= maxEvents || batch.uow.size >= maxWrites || batch.uow.bytes >= maxBytes) await this.flush(generation);
  }

  /**
   * One projection, one event: a failure while the document store does not answer is an outage
   * (wait for it, then apply again); one while it answers is retried once, then logged and skipped.
   */
  private async applyOne(p: Projection, event: RecordedEvent, uow: WriteBehind, generation: number): Promise<void> {
    const savepoint = uow.savepoint();
    let failures = 0;
    for (;;) {
      try {
        this.applying.event = event;
        this.applying.projection = p.name;
        const step = this.beginStep(this.describeApply);
        try {
          await p.apply(event, uow);
        } finally {
          this.endStep(step);
        }
        // nothing rolls back past this event any more
        uow.release(savepoint);
        return;
      } catch (error) {
        uow.rollback(savepoint);
        const reachable = await this.track(() => 'pinging the read-model store', () => this.documents.ping()).then(() => true, () => false);
        if (!reachable) {
          this.setState('retrying', error as Error);
          await this.retrying(generation, () => this.track(() => 'pinging the read-model store', () => this.documents.ping()));
          if (generation !== this.generation) return;
          continue;
        }
        if (++failures < 2) continue;
        this.log('error', 'projection failed on event', {
          projection: p.name,
          stream: event.stream,
          type: event.type,
          position: event.position,
          error: (error as Error).message,
        });
        return;
      }
    }
  }

  private async onCheckpoint(position: number): Promise<void> {
    const generation = this.generation;
    const batch = this.batch!;
    if (position > batch.end) batch.end = position;
    await this.flush(generation);
    if (generation !== this.generation || this.stopped) return;
    this.lastCaughtUpAt = Date.now();
    if (this.state !== 'live') {
      this.stopProgress(true);
      this.setState('live');
      this.caughtUp.resolve();
    }
  }

  /** Commits the batch with the checkpoint (retrying through outages), then starts the next one. */
  private async flush(generation: number): Promise<void> {
    const batch = this.batch!;
    const lagging = this.projections.some((p) => batch.end - (this.positions[p.name] ?? 0) >= CHECKPOINT_EMPTY_AFTER);
    if (batch.events === 0 && !lagging) {
      // nothing applied: nothing to write; the checkpoint catches up with the next batch
      this.advance(batch.end);
      return;
    }
    // (none of the events concerned these projections, but so many passed that the checkpoint
    // records them: a restart would otherwise read them all again)
    const writes: Write[] = batch.uow.writes();
    const positions = { ...this.positions };
    for (const p of this.projections) positions[p.name] = Math.max(positions[p.name] ?? 0, batch.end);
    const state: RunnerCheckpoint = { storeId: this.storeId, positions };
    const result = await this.retrying(generation, () =>
      this.track(() => `committing ${writes.length} writes (events up to position ${batch.end})`, () => this.documents.commit(this.checkpointName, this.version, state as never, writes)),
    );
    if (!result || generation !== this.generation) return;
    if (!result.committed) {
      // another replica committed first: what it wrote is now the truth; resume from its checkpoint
      this.log('info', 'another writer advanced the read models; resuming from its checkpoint', { position: batch.end });
      this.cache.clear();
      this.resume();
      return;
    }
    for (const r of result.rejected) this.log('error', 'a read-model write was refused by a unique index', r);
    for (const fn of batch.uow.committed) {
      try {
        fn();
      } catch (error) {
        this.log('error', 'an after-commit callback failed', { error: (error as Error).message });
      }
    }
    this.version++;
    this.positions = positions;
    // Adopted: another replica made this very transition (the same events from the same
    // checkpoint) with documents it read at its own moment, and ours may have been read after its
    // batch was in the store (events counted twice): what the store holds is the truth, not ours.
    if (result.adopted) this.cache.clear();
    else this.cache.absorb(writes);
    if (this.state === 'retrying') this.setState(this.progress ? 'catching-up' : 'live');
    this.batch = this.newBatch(batch.end);
    this.advance(batch.end);
  }

  private advance(position: number): void {
    if (position <= this.position) return;
    this.position = position;
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i].position <= position) this.waiters.splice(i, 1)[0].resolve();
    }
  }

  /** While catching up: a log line every few seconds with the position, the head and the rate. */
  private startProgress(from: number): void {
    if (this.progress) return;
    if (this.state === 'starting') this.state = 'catching-up';
    const every = this.options.progressEveryMs ?? 5_000;
    const timer = setInterval(() => {
      void this.store.headPosition().then(
        (head) => {
          if (!this.progress) return;
          const seconds = (Date.now() - this.progress.startedAt) / 1000;
          this.log('info', 'read models catching up', {
            position: this.position,
            head,
            eventsPerSecond: Math.round((this.position - from) / seconds),
          });
        },
        () => undefined,
      );
    }, every);
    timer.unref();
    this.progress = { timer, from, startedAt: Date.now() };
    boundHeapGrowth(true);
  }

  private stopProgress(done = false): void {
    if (!this.progress) return;
    clearInterval(this.progress.timer);
    boundHeapGrowth(false);
    if (done) {
      const seconds = (Date.now() - this.progress.startedAt) / 1000;
      const events = this.position - this.progress.from;
      if (events > 0) this.log('info', 'read models caught up', { position: this.position, seconds, eventsPerSecond: Math.round(events / Math.max(seconds, 0.001)) });
    }
    this.progress = null;
  }
}

/**
 * A service's answer to the gateway's readiness check: its read models answer and are live, and
 * every other store its requests need (`stores`: the login throttle's key-value buckets) answers.
 * An event store that does not answer leaves it ok but `degraded`: reads go on from the read
 * models, which hold everything appended before (nothing can be appended meanwhile); writes answer
 * 503 naming it.
 */
export async function serviceHealth(
  service: string,
  store: EventStore,
  documents: DocumentStore,
  runner: ProjectionRunner,
  stores: Record<string, () => Promise<void>> = {},
): Promise<HealthReply> {
  const position = runner.currentPosition;
  for (const [what, ping] of [['read-model store', () => documents.ping()], ...Object.entries(stores)] as const) {
    try {
      await ping();
    } catch (error) {
      return { service, ok: false, position, reason: `${what}: ${(error as Error).message}` };
    }
  }
  try {
    await store.ping();
  } catch (error) {
    return { service, ok: true, position, degraded: `event store: ${(error as Error).message}; writes answer 503 until it is back, reads go on` };
  }
  const health = await runner.health();
  return { service, ok: health.ok, position: health.position, ...(health.reason ? { reason: health.reason } : {}) };
}
