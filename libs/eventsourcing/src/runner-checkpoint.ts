/**
 * The projection runner's checkpoint (projection-runner.ts): what its document holds, and loading
 * it at start: the projections' indexes, the event store's identity against the one it records,
 * read models ahead of the store, and starting from nothing (or refusing) when they do not match.
 */
import type { DocumentStore } from '@burrow/documents';
import type { EventStore } from '@burrow/event-store';
import { type Projection, type ProjectionRunnerOptions, StoreBehindError, StoreMismatchError } from './projection.js';

/** What the checkpoint document holds. */
export interface RunnerCheckpoint {
  /** the event store's identity (EventStore.storeId) */
  storeId: string;
  /** per projection: every event up to here is in its read models */
  positions: Record<string, number>;
}

/** What `loadCheckpoint` found, or started from. */
export interface LoadedCheckpoint {
  storeId: string;
  /** the checkpoint document's version */
  version: number;
  positions: Record<string, number>;
  /** the read models were cleared: they are built from the first event */
  fresh: boolean;
}

/** Indexes, the checkpoint, and the event store's identity against the one it records. */
export async function loadCheckpoint(
  store: EventStore,
  documents: DocumentStore,
  projections: Projection[],
  checkpointName: string,
  onStoreMismatch: ProjectionRunnerOptions['onStoreMismatch'],
  log: (level: 'warn', msg: string, extra?: object) => void,
): Promise<LoadedCheckpoint> {
  const storeId = await store.storeId();
  for (const p of projections) await p.init?.(documents);
  for (;;) {
    const checkpoint = await documents.readCheckpoint(checkpointName);
    const recorded = checkpoint?.state as RunnerCheckpoint | undefined;
    // Read models past the store's head were built from events the store no longer holds (its
    // tail lost to a power loss, or the store restored from an older backup): the positions of
    // those events will be given to new ones, which the checkpoint would then skip. Rebuild.
    const ahead = checkpoint && recorded?.storeId === storeId ? await aheadOfStore(store, recorded) : null;
    if (checkpoint && recorded?.storeId === storeId && ahead === null) {
      return { storeId, version: checkpoint.version, positions: { ...recorded.positions }, fresh: false };
    }
    if (checkpoint && onStoreMismatch === 'refuse') {
      throw ahead
        ? new StoreBehindError(ahead.checkpoint, ahead.head)
        : new StoreMismatchError(String(recorded?.storeId), storeId);
    }
    // No checkpoint (a new database, or one an older version wrote), another store's, or one
    // ahead of the store: start from nothing. Whatever the database holds goes in the same commit.
    if (ahead)
      log(
        'warn',
        'read models are ahead of the event store (it lost events, or was restored from a backup): rebuilding them',
        ahead,
      );
    else if (checkpoint)
      log('warn', 'read models were built from another event store: rebuilding them', {
        recorded: recorded?.storeId,
        storeId,
      });
    const state: RunnerCheckpoint = { storeId, positions: {} };
    const result = await documents.commit(checkpointName, checkpoint?.version ?? 0, state as never, [
      { kind: 'clear' },
    ]);
    if (!result.committed) continue; // another replica went first: read what it did
    return { storeId, version: (checkpoint?.version ?? 0) + 1, positions: {}, fresh: true };
  }
}

/** The checkpoint and head when the checkpoint records a position past the store's head. */
async function aheadOfStore(
  store: EventStore,
  recorded: RunnerCheckpoint,
): Promise<{ checkpoint: number; head: number } | null> {
  const checkpoint = Math.max(0, ...Object.values(recorded.positions ?? {}));
  if (checkpoint === 0) return null;
  const head = await store.headPosition();
  return checkpoint > head ? { checkpoint, head } : null;
}
