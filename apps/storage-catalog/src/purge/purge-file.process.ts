/**
 * Purging versions of one file spans two streams: the file's stream and its user's usage ledger.
 * `FileVersionsPurged` is appended first, expecting the revision the purge was decided on (the
 * commit point: from then on the versions are gone, and the blob reaper may reclaim their blobs);
 * the usage entry of `-bytes` (ref: the process id) follows in `complete`, so a crash between the
 * two is completed by recovery, exactly once. A crash before the commit point is settled by
 * claiming the file stream at that revision (`FilePurgeAbandoned`); the next purger run decides
 * afresh.
 */
import { type FilePurgeAbandoned, type FileVersionsPurged, Streams } from '@burrow/contracts';
import { appendEvents, claimRevision, defineWorkflow, loadAggregate, retryOnConflict } from '@burrow/eventsourcing';
import { fileDecider, type FileState } from '../files/file.js';
import type { StorageContext } from '../shared/context.js';
import { ensureUsage, usageHead } from '../usage/usage.js';

export interface PurgeFileProcess {
  fileId: string;
  userId: string;
  path: string;
  /** the file stream's revision the purge was decided on */
  revision: number;
  /** the usage ledger's revision before the write */
  usageFrom: number | null;
  versions: number[];
  bytes: number;
}

export const purgeFileProcess = (ctx: StorageContext) =>
  defineWorkflow<PurgeFileProcess, { event: FileVersionsPurged }>({
    kind: 'PurgeFile',
    // a purge run writes many and waits once (purger.ts)
    readYourWrites: false,
    // the first step: a purge that did not commit changed nothing, there is nothing to undo
    async commit({ id, data, input }) {
      return (await appendEvents(ctx.store, Streams.file(data.fileId), [input.event], data.revision, { processId: id }))
        .position;
    },
    settle(data, processId) {
      const marker: FilePurgeAbandoned = { type: 'FilePurgeAbandoned', data: { processId, at: ctx.clock.now() } };
      return claimRevision(ctx.store, Streams.file(data.fileId), data.revision, processId, marker);
    },
    async complete(data, processId) {
      await ensureUsage(ctx.store, data.userId, {
        delta: -data.bytes,
        ref: processId,
        reason: `purge ${data.path} v${data.versions.join(',')}`,
        after: data.usageFrom,
      });
    },
  });

export interface PurgedFile {
  position: number | null;
  versions: number;
  bytes: number;
}

/**
 * Purges the versions `choose` picks from the file as its stream stands (an empty list: nothing).
 * A concurrent write to the file (a new version, another purge) makes it decide again on the new
 * state. Null when nothing was purged.
 */
export function purgeFile(
  ctx: StorageContext,
  fileId: string,
  choose: (state: FileState) => number[],
): Promise<PurgedFile | null> {
  const stream = Streams.file(fileId);
  return retryOnConflict('file', async () => {
    const { state, revision } = await loadAggregate(ctx.store, stream, fileDecider);
    if (!state.identity || revision === null) return null;
    const [event] = fileDecider.decide(
      { type: 'PurgeVersions', versions: choose(state), at: ctx.clock.now() },
      state,
    ) as FileVersionsPurged[];
    if (!event) return null;
    const { userId, path } = state.identity;
    const usage = await usageHead(ctx.store, userId);
    const purging = {
      fileId,
      userId,
      path,
      revision,
      usageFrom: usage.revision,
      versions: event.data.versions,
      bytes: event.data.bytes,
    };
    const { position } = await ctx.processes.run(purgeFileProcess(ctx), purging, { event });
    return { position, versions: event.data.versions.length, bytes: event.data.bytes };
  });
}

/** Every stored version. */
export const allStored = (state: FileState): number[] => [...state.stored.keys()];
