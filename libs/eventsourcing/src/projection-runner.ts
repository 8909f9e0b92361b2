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
import { serviceUnavailable } from '@burrow/contracts';
import { CommittedCache, type DocumentStore, type Write, WriteBehind } from '@burrow/documents';
import type { EventStore, RecordedEvent, Subscription } from '@burrow/event-store';
import { BATCH_BYTES, CATCH_UP_BATCH, CHECKPOINT_EMPTY_AFTER, LIVE_BATCH } from './batch-limits.js';
import {
  type Projection,
  type ProjectionRunnerOptions,
  type RunnerHealth,
  type RunnerState,
  StoreMismatchError,
} from './projection.js';
import { loadCheckpoint, type RunnerCheckpoint } from './runner-checkpoint.js';
import { StepWatch } from './step-watch.js';
import { CatchUpProgress } from './catch-up-progress.js';

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
  /** the step under way (see `slowStepMs`) */
  private readonly steps: StepWatch;
  /** the event and projection being applied (named by `describeApply` only if it is slow: no string per event) */
  private applying: { event: RecordedEvent | null; projection: string } = { event: null, projection: '' };
  private readonly describeApply = () =>
    `applying ${this.applying.event?.type} at position ${this.applying.event?.position} to ${this.applying.projection}`;
  private readonly waiters: { position: number; resolve: () => void }[] = [];
  private caughtUp: { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void };
  private lastCaughtUpAt = Date.now();
  /** the log lines while catching up */
  private readonly progress: CatchUpProgress;
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
    this.steps = new StepWatch(
      options.slowStepMs ?? 10_000,
      (level, msg, extra) => this.log(level, msg, extra),
      () => this.position,
    );
    this.progress = new CatchUpProgress(
      options.progressEveryMs ?? 5_000,
      () => store.headPosition(),
      () => this.position,
      (level, msg, extra) => this.log(level, msg, extra),
    );
    this.checkpointName = options.checkpoint ?? 'projections';
    this.localCommits = documents.localCommits === true;
    this.prefixes = projections.some((p) => p.prefixes.length === 0)
      ? []
      : [...new Set(projections.flatMap((p) => p.prefixes))];
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
    this.steps.stop();
    for (const end of this.pauses) end();
    this.pauses.clear();
    this.generation++;
    this.setState('stopped');
    this.progress.stop();
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
        const reason =
          this.state === 'retrying'
            ? `read models are not being updated (${this.lastError}); retry`
            : 'read models are behind; retry';
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
      return {
        ok: false,
        state: this.state,
        position: this.position,
        head,
        reason: `event store: ${(error as Error).message}`,
      };
    }
    const base = { state: this.state, position: this.position, head };
    if (this.state !== 'live') {
      const reason =
        this.state === 'retrying'
          ? `read models are not being updated: ${this.lastError}`
          : `read models are ${this.state}`;
      return { ok: false, ...base, reason };
    }
    const lagLimit = this.options.lagLimitMs ?? 15_000;
    const stalled = this.steps.stalledPast(lagLimit);
    if (stalled) return { ok: false, ...base, reason: stalled };
    if (head > this.position && Date.now() - this.lastCaughtUpAt > lagLimit) {
      return { ok: false, ...base, reason: `read models are ${head - this.position} positions behind the event store` };
    }
    return { ok: true, ...base };
  }

  private log(level: 'info' | 'warn' | 'error', msg: string, extra?: object): void {
    this.options.log?.(level, msg, extra);
  }

  private setState(state: RunnerState, error?: Error): void {
    if (error) this.lastError = error.message;
    if (state === this.state) return;
    if (state === 'retrying')
      this.log('warn', 'read models are not being updated; retrying', { error: this.lastError });
    else if (this.state === 'retrying')
      this.log('info', 'read models are being updated again', { position: this.position });
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
      if (!this.stopped) this.steps.start();
      const ready = await this.retrying(generation, () =>
        this.steps.track(
          () => 'loading the checkpoint',
          () => this.load(),
        ),
      );
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
      this.log(
        'info',
        from > 0 ? 'read models resume from their checkpoint' : 'read models are built from the first event',
        { position: from },
      );
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

  /** Indexes, the checkpoint, and the event store's identity against the one it records (runner-checkpoint.ts). */
  private async load(): Promise<true> {
    const loaded = await loadCheckpoint(
      this.store,
      this.documents,
      this.projections,
      this.checkpointName,
      this.options.onStoreMismatch,
      (level, msg, extra) => this.log(level, msg, extra),
    );
    this.storeId = loaded.storeId;
    this.version = loaded.version;
    this.positions = loaded.positions;
    if (loaded.fresh) {
      this.position = 0;
      this.cache.startComplete();
    }
    return true;
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
    const limits = this.progress.active && this.localCommits ? CATCH_UP_BATCH : LIVE_BATCH;
    const maxEvents = this.options.maxBatchEvents ?? limits.events;
    const maxWrites = this.options.maxBatchWrites ?? limits.writes;
    const maxBytes = this.options.maxBatchBytes ?? BATCH_BYTES;
    if (batch.events >= maxEvents || batch.uow.size >= maxWrites || batch.uow.bytes >= maxBytes)
      await this.flush(generation);
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
        const step = this.steps.begin(this.describeApply);
        try {
          await p.apply(event, uow);
        } finally {
          this.steps.end(step);
        }
        // nothing rolls back past this event any more
        uow.release(savepoint);
        return;
      } catch (error) {
        uow.rollback(savepoint);
        const reachable = await this.steps
          .track(
            () => 'pinging the read-model store',
            () => this.documents.ping(),
          )
          .then(
            () => true,
            () => false,
          );
        if (!reachable) {
          this.setState('retrying', error as Error);
          await this.retrying(generation, () =>
            this.steps.track(
              () => 'pinging the read-model store',
              () => this.documents.ping(),
            ),
          );
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
      this.progress.stop(true);
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
      this.steps.track(
        () => `committing ${writes.length} writes (events up to position ${batch.end})`,
        () => this.documents.commit(this.checkpointName, this.version, state as never, writes),
      ),
    );
    if (!result || generation !== this.generation) return;
    if (!result.committed) {
      // another replica committed first: what it wrote is now the truth; resume from its checkpoint
      this.log('info', 'another writer advanced the read models; resuming from its checkpoint', {
        position: batch.end,
      });
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
    if (this.state === 'retrying') this.setState(this.progress.active ? 'catching-up' : 'live');
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

  /** While catching up: a log line every few seconds (catch-up-progress.ts). */
  private startProgress(from: number): void {
    if (this.progress.active) return;
    if (this.state === 'starting') this.state = 'catching-up';
    this.progress.start(from);
  }
}
