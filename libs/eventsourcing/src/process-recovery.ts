/**
 * Recovery of multi-step writes (write-process.ts): the read model of a service's unfinished
 * processes, the run that settles those a crash left (completes or compensates them), and the
 * claims a workflow's `settle` makes to decide whether its commit point happened.
 */
import type { Event } from '@burrow/contracts';
import type { Collection, DocumentStore } from '@burrow/documents';
import { type EventStore, WrongExpectedRevisionError } from '@burrow/event-store';
import { appendEvents } from './append.js';
import type { Projection } from './projection.js';
import type { Outcome, ProcessDefinition } from './workflow.js';
import type { ProcessLog, ProcessNoted, ProcessStarted } from './write-process.js';

export interface PendingProcessDoc {
  _id: string;
  kind: string;
  data: object;
  startedAt: number;
  [key: string]: unknown;
}

export const pendingProcessesCollection = (docs: DocumentStore): Collection<PendingProcessDoc> =>
  docs.collection<PendingProcessDoc>('pending_processes');

/** Read model of this service's unfinished multi-step writes (what recovery looks at). */
export const pendingProcessesProjection = (service: string): Projection => ({
  name: 'pending-processes',
  prefixes: [`process-${service}-`],
  async init(docs) {
    await pendingProcessesCollection(docs).ensureIndex({ startedAt: 1 });
  },
  async apply(event, docs) {
    const id = event.stream.slice(`process-${service}-`.length);
    const pending = pendingProcessesCollection(docs);
    if (event.type === 'ProcessStarted') {
      const d = event.data as ProcessStarted['data'];
      await pending.upsert({ _id: id, kind: d.kind, data: d.data, startedAt: d.startedAt });
    } else if (event.type === 'ProcessNoted') {
      const doc = await pending.get(id);
      if (doc) await pending.upsert({ ...doc, data: { ...doc.data, ...(event.data as ProcessNoted['data']).data } });
    } else {
      await pending.delete(id);
    }
  },
});

export interface RecoveredProcess {
  id: string;
  kind: string;
}

export interface RecoveryReport {
  completed: RecoveredProcess[];
  compensated: RecoveredProcess[];
  failed: (RecoveredProcess & { error: string })[];
}

/**
 * Finishes what crashed: every pending process older than `graceSeconds` (a request still running
 * elsewhere is younger) is settled, then completed or compensated. Idempotent, so several replicas
 * may run it at once.
 */
export class ProcessRecovery {
  private readonly definitions = new Map<string, ProcessDefinition<object>>();

  constructor(
    private readonly log: ProcessLog,
    private readonly docs: DocumentStore,
    definitions: ProcessDefinition<never>[],
    readonly graceSeconds: number,
  ) {
    for (const d of definitions) this.definitions.set(d.kind, d);
  }

  /** Pending processes, oldest first (for the admin CLI too). */
  async pending(limit = 1000): Promise<PendingProcessDoc[]> {
    return pendingProcessesCollection(this.docs).find({}, { sort: { startedAt: 1, _id: 1 }, limit });
  }

  /** The clock processes are timed by (unix seconds). */
  now(): number {
    return this.log.clock();
  }

  /**
   * Settles up to 1000 processes pending for at least `graceSeconds` (the operator may ask for a
   * shorter grace than the configured one, when they know nothing is running).
   */
  private running: Promise<RecoveryReport> | null = null;

  /**
   * One run at a time: a timer that fires while a long run is under way (the members of a big
   * group's plan change) gets that run, not a second one settling the same processes, which would
   * contend with the first on every write (found with a crash midway through a 400-member change:
   * runs every 500 ms piled up and the members barely moved).
   */
  run(graceSeconds = this.graceSeconds): Promise<RecoveryReport> {
    this.running ??= this.runOnce(graceSeconds).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async runOnce(graceSeconds: number): Promise<RecoveryReport> {
    const report: RecoveryReport = { completed: [], compensated: [], failed: [] };
    const cutoff = this.log.clock() - graceSeconds;
    const stale = await pendingProcessesCollection(this.docs).find(
      { startedAt: { $lte: cutoff } },
      { sort: { startedAt: 1, _id: 1 }, limit: 1000 },
    );
    for (const p of stale) {
      const which = { id: p._id, kind: p.kind };
      // still being completed after its reply, here or by another replica that noted so lately
      const activeAt = (p.data as { activeAt?: unknown }).activeAt;
      if (this.log.completingInBackground(p._id) || (typeof activeAt === 'number' && activeAt > cutoff)) continue;
      const definition = this.definitions.get(p.kind);
      if (!definition) {
        report.failed.push({ ...which, error: `no definition for ${p.kind}` });
        continue;
      }
      try {
        const outcome = await definition.settle(p.data, p._id);
        // Only the recovery whose end was recorded reports it: another replica may have got there first.
        if (outcome === 'committed') {
          await definition.complete(p.data, p._id);
          if (await this.log.end(p._id, { type: 'ProcessCompleted', data: { at: this.log.clock() } }))
            report.completed.push(which);
        } else {
          await definition.compensate(p.data, p._id);
          if (
            await this.log.end(p._id, {
              type: 'ProcessCompensated',
              data: { at: this.log.clock(), reason: 'recovered after a crash' },
            })
          )
            report.compensated.push(which);
        }
      } catch (error) {
        report.failed.push({ ...which, error: (error as Error).message });
      }
    }
    return report;
  }
}

/**
 * Settles a process whose commit point creates a stream (expected revision "no stream"): appends
 * `marker` there first, so the create can never happen later ('abandoned'), unless the stream
 * already begins with `committedType` ('committed').
 */
export async function claimNewStream(
  store: EventStore,
  stream: string,
  marker: Event,
  committedType: string,
): Promise<Outcome> {
  try {
    await appendEvents(store, stream, [marker], 'no_stream');
    return 'abandoned';
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
    const [first] = await store.readStream(stream, { maxCount: 1 });
    return first?.type === committedType ? 'committed' : 'abandoned';
  }
}

/**
 * Settles a process whose commit point appends to a stream expecting `revision` (the revision its
 * change was decided on; null: the stream did not exist yet): 'committed' if an event of the
 * process follows it;
 * otherwise appends `marker` at that revision (unless the stream has moved past it already), so a
 * write still somehow running can no longer commit ('abandoned'). The marker carries no process
 * id in its metadata: it is not the process's own write.
 */
export async function claimRevision(
  store: EventStore,
  stream: string,
  revision: number | null,
  processId: string,
  marker: Event,
): Promise<Outcome> {
  for (;;) {
    const after = await store.readStream(stream, { fromRevision: revision === null ? 0 : revision + 1 });
    if (after.some((e) => e.metadata.processId === processId)) return 'committed';
    if (after.length > 0) return 'abandoned';
    try {
      await appendEvents(store, stream, [marker], revision ?? 'no_stream');
      return 'abandoned';
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  }
}
