/**
 * The start-up every event-sourced service shares (accounts, the storage catalog; billing, which
 * has no multi-step writes, the first half), written once: the event store and the service's read
 * models opened, the projection runner started on them
 * (read models rebuilt or caught up before the service answers), the log of multi-step writes with
 * the fault hook the crash tests use (BURROW_FAULT_KILL_AT) and read-your-writes on the runner,
 * and the recovery of unfinished writes run and logged the same way. What differs (the service's
 * projections, its workflows, a write that completes after its reply) is passed in.
 */
import type { DocumentStore } from '@burrow/documents';
import type { EventStore } from '@burrow/event-store';
import {
  type FaultHook,
  ProcessLog,
  type ProcessLogOptions,
  type ProcessRecovery,
  type Projection,
  ProjectionRunner,
} from '@burrow/eventsourcing';
import { systemClock } from './clock.js';
import type { Infrastructure } from './infrastructure.js';
import type { Logger } from './logger.js';

export interface ReadModelsCore {
  store: EventStore;
  docs: DocumentStore;
  runner: ProjectionRunner;
}

export interface EventSourcedCore extends ReadModelsCore {
  processes: ProcessLog;
}

/** Opens a service's event store and read models (`service` names its read-model database) and starts its projection runner on them. */
export async function startReadModels(
  infra: Infrastructure,
  service: string,
  log: Logger,
  projections: Projection[],
): Promise<ReadModelsCore> {
  const store = await infra.eventStore();
  const docs = await infra.documents(service);
  const runner = new ProjectionRunner(store, docs, projections, {
    log: (level, msg, extra) => log[level](extra ?? {}, msg),
    onStoreMismatch: infra.config.readModelsOnStoreMismatch,
  });
  await runner.start();
  return { store, docs, runner };
}

/** BURROW_FAULT_KILL_AT: the process kills itself at that step boundary, for the tests that prove recovery; none, no hook. */
export function faultKillAt(point: string | undefined): FaultHook | undefined {
  return point ? (reached) => void (reached === point && process.kill(process.pid, 'SIGKILL')) : undefined;
}

/** What a service's process log needs beyond the shared clock, fault hook and read-your-writes. */
export type EventSourcedOptions = Omit<ProcessLogOptions, 'now' | 'faults' | 'waitFor' | 'ended'> & {
  /** a process's end waits for the read models to show it (ProcessLogOptions.ended), so no reply precedes its pending-process record closing */
  waitForEnds?: boolean;
  /** the store the service's writes append through (its process log, and its handlers by `store`): a view that notes them */
  writes?: (store: EventStore) => EventStore;
};

/** `startReadModels`, then the service's process log (`service` names its processes). */
export async function startEventSourced(
  infra: Infrastructure,
  service: string,
  log: Logger,
  projections: Projection[],
  { waitForEnds, writes, ...processOptions }: EventSourcedOptions = {},
): Promise<EventSourcedCore> {
  const core = await startReadModels(infra, service, log, projections);
  const { docs, runner } = core;
  const store = writes ? writes(core.store) : core.store;
  const processes = new ProcessLog(store, service, {
    now: systemClock.now,
    faults: faultKillAt(infra.config.faultKillAt),
    waitFor: (position) => runner.waitFor(position),
    ...(waitForEnds ? { ended: (position: number) => runner.waitFor(position) } : {}),
    ...processOptions,
  });
  return { store, docs, runner, processes };
}

/** One recovery run that logs what it settled and what it could not yet, and never throws (for the start and the timer). */
export function loggedRecovery(recovery: ProcessRecovery, log: Logger): () => Promise<void> {
  return async () => {
    try {
      const report = await recovery.run();
      if (report.completed.length || report.compensated.length)
        log.warn(report, 'recovered unfinished multi-step writes');
      if (report.failed.length)
        log.error({ failed: report.failed }, 'some unfinished multi-step writes could not be recovered yet');
    } catch (error) {
      log.error({ err: { message: (error as Error).message } }, 'recovery failed');
    }
  };
}
