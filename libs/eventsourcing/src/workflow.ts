/**
 * A multi-step write declared once (docs/decisions.md "Multi-step writes"): its steps forward,
 * each with what undoes it, the commit point, what follows it, how recovery tells whether it
 * happened, and whether the request waits for the read models. `ProcessLog.run` runs a workflow
 * for a request; `ProcessRecovery` finishes one that crashed, from the same declaration.
 *
 *   processes.run(createUser(ctx), { userId, username, ... }, { passwordHash, plan })
 *
 * The recorded data `D` (in `ProcessStarted`, never a secret) is all that recovery sees; the input
 * `I` is what only the request has (a password hash, the events it decided).
 */
import type { EventStore } from '@burrow/event-store';

export type Outcome = 'committed' | 'abandoned';

/** What recovery needs of a multi-step write; a `Workflow` is one, its `compensate` made of the steps' undos. */
export interface ProcessDefinition<D extends object> {
  /** names the process in its stream and in logs: `CreateUser`, `ChangeUserEmail` */
  kind: string;
  /**
   * Recovery only: did the commit point happen? If not, make sure it never can (claim it), and
   * say 'abandoned'.
   */
  settle(data: D, processId: string): Promise<Outcome>;
  /**
   * What follows the commit point; idempotent. The request runs it too, and waits for the
   * position it returns (its last append), if any.
   */
  complete(data: D, processId: string): Promise<number | null | void>;
  /** Undoes every step that may have run before the commit point; idempotent. */
  compensate(data: D, processId: string): Promise<void>;
  /**
   * The process's start and the appends its steps make through `RunningProcess.store` skip the
   * fsync; its end record (`ProcessCompleted` or `ProcessCompensated`), appended durably before
   * the request replies, makes them durable too. A power loss before the end loses a suffix of
   * the steps: a crash at an earlier step, which recovery settles like any other. For writes made
   * in bulk (user creates), where an fsync per step would be most of the cost.
   */
  deferDurability?: boolean;
  /**
   * With `deferDurability`: the end record skips the fsync too, because the commit point's own
   * append is durable (it is made through the log's store, not `RunningProcess.store`), and a
   * durable append makes every append before it durable. A power loss after the reply loses at
   * most the end record: recovery finds the commit point and completes the process again. One
   * fsync per write instead of two; for writes made by the thousand (file commits).
   */
  deferEnd?: boolean;
}

/** What a step and the commit point are given. */
export interface StepContext<D extends object, I> {
  readonly id: string;
  /** the recorded data, with what earlier steps noted */
  readonly data: D;
  readonly input: I;
  /** what to append through: the log's store, or its deferred view (`deferDurability`) */
  readonly store: EventStore;
}

export interface WorkflowStep<D extends object, I> {
  /** names its fault points, `<kind>:<name>:before` and `:after` */
  name: string;
  /** runs (and is undone) only when this says so, decided from the recorded data; default: always */
  when?(data: D): boolean;
  /** idempotent for the process */
  run(step: StepContext<D, I>): Promise<unknown>;
  /** what the step learned (an allocated id), recorded (`ProcessNoted`) before anything depends on it */
  noted?(result: unknown): Partial<D>;
  /** undoes the step, whether or not it ran; idempotent (recovery does not know how far it got) */
  undo?(data: D, processId: string): Promise<void>;
}

export interface WorkflowDeclaration<D extends object, I> {
  /** names the process in its stream, in logs and in fault points: `CreateUser` */
  kind: string;
  /** the steps before the commit point, in order; undone in reverse order when it is not reached */
  steps?: WorkflowStep<D, I>[];
  /** the commit point: one append, with `{ processId: step.id }` in its metadata; its position */
  commit(step: StepContext<D, I>): Promise<number | null>;
  /** Recovery only: did the commit point happen? If not, make sure it never can (claim it). */
  settle(data: D, processId: string): Promise<Outcome>;
  /** what follows the commit point, idempotent; the position of its last append, if the request is to see it */
  complete?(data: D, processId: string): Promise<number | null | void>;
  /**
   * Read-your-writes: `run` returns once the service's read models show the commit point and
   * what `complete` appended (default). False where the caller writes many and waits once for the
   * last position (a folder move, a purge run, a change composed of several writes).
   */
  readYourWrites?: boolean;
  /** see ProcessDefinition */
  deferDurability?: boolean;
  /** see ProcessDefinition */
  deferEnd?: boolean;
  /**
   * What follows the commit point may take long (every member of a group of thousands): decided
   * from the recorded data, true makes the request answer at the commit point (once the read
   * models show it) while `complete` runs on in this process (ProcessLog.run), recorded as
   * completed when done; a crash meanwhile leaves the process pending, which recovery completes.
   */
  completeAfterReply?(data: D): boolean;
}

export interface Workflow<D extends object, I = void> extends ProcessDefinition<D> {
  readonly steps: WorkflowStep<D, I>[];
  commit(step: StepContext<D, I>): Promise<number | null>;
  readonly readYourWrites: boolean;
  completeAfterReply?(data: D): boolean;
}

/** The declaration as a workflow: compensation undoes the steps that apply, last first. */
export function defineWorkflow<D extends object, I = void>(declaration: WorkflowDeclaration<D, I>): Workflow<D, I> {
  const steps = declaration.steps ?? [];
  return {
    ...declaration,
    steps,
    readYourWrites: declaration.readYourWrites ?? true,
    complete: declaration.complete ?? (async () => undefined),
    async compensate(data, processId) {
      for (const step of [...steps].reverse()) {
        if (step.undo && (step.when?.(data) ?? true)) await step.undo(data, processId);
      }
    },
  };
}
