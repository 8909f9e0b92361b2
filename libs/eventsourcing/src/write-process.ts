/**
 * Multi-step writes (one documented pattern, docs/decisions.md "Multi-step writes").
 *
 * A write that spans streams (reserve a name, allocate bytes, create the aggregate, release an old
 * name) first records itself in its own stream `process-<service>-<id>` (`ProcessStarted`, with
 * everything needed to finish or undo it), then runs its steps, then records `ProcessCompleted`
 * (or `ProcessCompensated` after undoing them). Every step is idempotent for the same process.
 *
 * One append in the middle is the **commit point** (e.g. `UserCreated` on the new user's stream,
 * appended with expected revision "no stream"). If the request fails before it, the steps taken are
 * compensated at once. If the process dies (kill -9, power loss), recovery finds the process still
 * pending, decides whether the commit point happened and, if it did not, claims it first (appends
 * a marker at the expected revision, so a write still somehow running can no longer commit); then
 * completes or compensates, exactly as the request would have.
 *
 * A write is declared once as a `Workflow` (workflow.ts) and run by `ProcessLog.run`, the only
 * place that begins, abandons and completes a process; recovery (process-recovery.ts) uses the
 * same declaration.
 */
import { type Event, serviceUnavailable } from '@burrow/contracts';
import { deferDurability, type EventStore, WrongExpectedRevisionError } from '@burrow/event-store';
import { randomUUID } from 'node:crypto';
import { appendEvents } from './append.js';
import type { ProcessDefinition, StepContext, Workflow } from './workflow.js';

export type ProcessStarted = Event<'ProcessStarted', { kind: string; data: object; startedAt: number }>;
/** A value a step learned that recovery will need (merged into the process data). */
export type ProcessNoted = Event<'ProcessNoted', { data: object }>;
export type ProcessCompleted = Event<'ProcessCompleted', { at: number }>;
export type ProcessCompensated = Event<'ProcessCompensated', { at: number; reason: string }>;

// declared with the workflows (workflow.ts), which this file runs and recovers
export type { Outcome, ProcessDefinition } from './workflow.js';

/** Test hook: called at every step boundary (`CreateUser:reserve-email:before`). */
export type FaultHook = (point: string) => void | Promise<void>;

export const processStream = (service: string, id: string) => `process-${service}-${id}`;

export interface ProcessLogOptions {
  now?: () => number;
  faults?: FaultHook;
  /**
   * Called with the position of a process's end record before `end` returns: the service waits
   * for its read models there (read-your-writes), so a reply never precedes the pending-processes
   * read model seeing the write finished. Best effort: a slow read model does not fail the write.
   */
  ended?: (position: number) => Promise<void>;
  /**
   * Read-your-writes: resolves once the service's read models include `position`, and fails
   * (503) when they do not in time. `run` calls it for workflows that wait (`readYourWrites`).
   */
  waitFor?: (position: number) => Promise<void>;
  /** told when a completion that runs after the reply fails (the process stays pending: recovery finishes it) */
  onBackgroundError?: (kind: string, processId: string, error: Error) => void;
  /** completions after the reply running at once in this process; more wait their turn (default 2) */
  backgroundLimit?: number;
  /**
   * How often a completion after the reply records that it is still running (`ProcessNoted`
   * with `activeAt`), so that recovery, which takes a process pending longer than its grace for
   * crashed, leaves it alone (default 20 s: below the smallest grace, 30 s)
   */
  activeEveryMs?: number;
}

/** What `run` returns: the process, its data with what the steps noted, the last position it wrote. */
export interface WorkflowRun<D extends object> {
  id: string;
  data: D;
  /** the commit point's position, or that of what `complete` appended after it */
  position: number | null;
}

/** One service's multi-step writes: starts them, and records how they ended. */
export class ProcessLog {
  private readonly now: () => number;

  constructor(
    readonly store: EventStore,
    readonly service: string,
    private readonly options: ProcessLogOptions = {},
  ) {
    this.now = options.now ?? (() => Math.floor(Date.now() / 1000));
  }

  /**
   * Runs a write for a request: records it, runs its steps (fault points around each), then the
   * commit point. A failure before the commit point undoes the steps, records that and rethrows;
   * after it, `complete` runs and the process is recorded as completed. Then, unless the workflow
   * leaves it to the caller, waits until the read models show what it wrote.
   */
  async run<D extends object, I>(
    workflow: Workflow<D, I>,
    data: D,
    ...[input]: I extends void ? [] : [I]
  ): Promise<WorkflowRun<D>> {
    const process = await this.begin(workflow, data);
    const step: StepContext<D, I> = { id: process.id, data: process.data, input: input as I, store: process.store };
    let position: number | null;
    try {
      for (const s of workflow.steps) {
        if (s.when && !s.when(process.data)) continue;
        const result = await process.step(s.name, () => s.run(step));
        if (s.noted) await process.note(s.noted(result));
      }
      position = await process.step('commit', () => workflow.commit(step));
    } catch (error) {
      return process.abandon(error);
    }
    if (workflow.completeAfterReply?.(process.data)) {
      if (workflow.readYourWrites && position !== null) await this.waitForPosition(workflow.kind, position);
      this.completeInBackground(process);
      return { id: process.id, data: process.data, position };
    }
    const completed = await process.complete();
    if (completed !== null && (position === null || completed > position)) position = completed;
    if (workflow.readYourWrites && position !== null) {
      if (!this.options.waitFor)
        throw new Error(`the ${this.service} process log has no read models to wait for (${workflow.kind})`);
      await this.options.waitFor(position);
    }
    return { id: process.id, data: process.data, position };
  }

  private async waitForPosition(kind: string, position: number): Promise<void> {
    if (!this.options.waitFor)
      throw new Error(`the ${this.service} process log has no read models to wait for (${kind})`);
    await this.options.waitFor(position);
  }

  /** completions after the reply: running now, and waiting for a turn */
  private running = 0;
  private readonly queued: (() => void)[] = [];
  private readonly inBackground = new Set<string>();

  /** the completions after the reply this log runs or has queued, settled or not */
  private readonly pendingRuns = new Set<Promise<void>>();

  /**
   * Resolves once every completion after the reply this log has started (and any started
   * meanwhile) has finished, well or not: tests that read what the members became.
   */
  async idle(): Promise<void> {
    while (this.pendingRuns.size > 0) await Promise.allSettled([...this.pendingRuns]);
  }

  /** Whether this process is completing `processId` after its reply right now (recovery leaves it be). */
  completingInBackground(processId: string): boolean {
    return this.inBackground.has(processId);
  }

  /**
   * Runs what follows the commit point after the reply, a bounded number at a time, noting every
   * `activeEveryMs` that it is still at work. A failure is reported and leaves the process
   * pending: recovery completes it once it is no longer noted active.
   */
  private completeInBackground<D extends object>(process: RunningProcess<D>): void {
    this.inBackground.add(process.id);
    const run = async () => {
      const everyMs = this.options.activeEveryMs ?? 20_000;
      let noting = Promise.resolve();
      const timer = setInterval(() => {
        // as unknown as: `activeAt` is the runner's own field of every process's data, which no workflow's D declares
        noting = noting
          .then(() => process.note({ activeAt: this.now() } as unknown as Partial<D>))
          .catch(() => undefined);
      }, everyMs);
      timer.unref();
      try {
        await process.complete(async () => {
          clearInterval(timer);
          await noting;
        });
      } catch (error) {
        this.options.onBackgroundError?.(process.definition.kind, process.id, error as Error);
      } finally {
        clearInterval(timer);
        this.inBackground.delete(process.id);
        this.running -= 1;
        this.queued.shift()?.();
      }
    };
    const limit = this.options.backgroundLimit ?? 2;
    const done = new Promise<void>((resolve) => {
      const start = () => {
        this.running += 1;
        void run().finally(resolve);
      };
      if (this.running < limit) start();
      else this.queued.push(start);
    });
    this.pendingRuns.add(done);
    void done.then(() => this.pendingRuns.delete(done));
  }

  /** The runner's own primitive (and the write-process tests'); anything else calls `run`. */
  async begin<D extends object>(
    definition: ProcessDefinition<D>,
    data: D,
    id: string = randomUUID(),
  ): Promise<RunningProcess<D>> {
    const started: ProcessStarted = {
      type: 'ProcessStarted',
      data: { kind: definition.kind, data, startedAt: this.now() },
    };
    const store = definition.deferDurability ? deferDurability(this.store) : this.store;
    await appendEvents(store, processStream(this.service, id), [started], 'no_stream', { processId: id });
    return new RunningProcess(this, definition, data, id, store);
  }

  async fault(point: string): Promise<void> {
    await this.options.faults?.(point);
  }

  /**
   * Appends the process's end; false if it had already ended (another recovery got there first).
   * `revision`: the stream's revision the caller knows it is at (the process running it: it wrote
   * every event of it but an end), so it is not read first; an end appended meanwhile by anyone
   * else moved it, and the append then fails as a lost race (false), as after a read.
   */
  async end(
    id: string,
    event: ProcessCompleted | ProcessCompensated,
    store: EventStore = this.store,
    revision?: number,
  ): Promise<boolean> {
    const stream = processStream(this.service, id);
    let expected = revision;
    if (expected === undefined) {
      const [last] = await this.store.readStream(stream, { direction: 'backwards', maxCount: 1 });
      if (!last || last.type === 'ProcessCompleted' || last.type === 'ProcessCompensated') return false;
      expected = last.revision;
    }
    let position: number;
    try {
      ({ position } = await appendEvents(store, stream, [event], expected, { processId: id }));
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) return false;
      throw error;
    }
    await this.options.ended?.(position).catch(() => undefined);
    return true;
  }

  /** 503 when the process has ended meanwhile: recovery settled it while this request stalled. */
  async note(id: string, revision: number, data: object): Promise<void> {
    const noted: ProcessNoted = { type: 'ProcessNoted', data: { data } };
    try {
      await appendEvents(this.store, processStream(this.service, id), [noted], revision, { processId: id });
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError)
        throw serviceUnavailable('this write was settled by crash recovery; retry');
      throw error;
    }
  }

  get clock(): () => number {
    return this.now;
  }
}

export class RunningProcess<D extends object> {
  private revision = 0;

  constructor(
    private readonly log: ProcessLog,
    readonly definition: ProcessDefinition<D>,
    readonly data: D,
    readonly id: string,
    /** what the steps append through: the log's store, or its deferred view (`deferDurability`) */
    readonly store: EventStore,
  ) {}

  /** Records what a step learned (an allocated id) before anything depends on it. */
  async note(values: Partial<D>): Promise<void> {
    await this.log.note(this.id, this.revision, values);
    this.revision += 1;
    Object.assign(this.data, values);
  }

  /** One step: fault hooks around it (tests kill the process there). */
  async step<T>(name: string, run: () => Promise<T>): Promise<T> {
    await this.log.fault(`${this.definition.kind}:${name}:before`);
    const result = await run();
    await this.log.fault(`${this.definition.kind}:${name}:after`);
    return result;
  }

  /**
   * The commit point happened: run what follows it and record the process as completed. The
   * position of what `complete` appended, when it says.
   */
  async complete(beforeEnd?: () => Promise<void>): Promise<number | null> {
    const position = await this.step('complete', () => this.definition.complete(this.data, this.id));
    // no note may follow the end (a completion after the reply notes that it is active)
    await beforeEnd?.();
    await this.log.end(
      this.id,
      { type: 'ProcessCompleted', data: { at: this.log.clock() } },
      this.endStore(),
      this.revision,
    );
    return position ?? null;
  }

  /** where the end record goes: deferred only after a durable commit point (`deferEnd`) */
  private endStore(): EventStore | undefined {
    return this.definition.deferDurability && this.definition.deferEnd ? this.store : undefined;
  }

  /** The request failed before its commit point: undo the steps, record it, rethrow `error`. */
  async abandon(error: unknown): Promise<never> {
    await this.definition.compensate(this.data, this.id);
    await this.log.end(
      this.id,
      {
        type: 'ProcessCompensated',
        data: { at: this.log.clock(), reason: (error as Error)?.message ?? String(error) },
      },
      undefined,
      this.revision,
    );
    throw error;
  }
}
