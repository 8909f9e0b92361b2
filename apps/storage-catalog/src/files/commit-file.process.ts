/**
 * Committing a file version spans two streams: the user's usage ledger (the quota, exact under
 * concurrency) and the file's stream. The usage entry is taken first (507 if the quota is full),
 * then `FileVersionCommitted` is appended expecting the revision the version number was decided on
 * (the commit point). A lost race on the file stream undoes the usage entry and retries; a crash
 * is settled by recovery, which claims the file stream at that revision so the commit can no
 * longer land, then undoes the usage entry.
 */
import { type FileCommitAbandoned, Streams } from '@burrow/contracts';
import { claimRevision, type ProcessDefinition } from '@burrow/eventsourcing';
import type { StorageContext } from '../shared/context.js';
import { undoUsage } from '../usage/usage.js';

export interface CommitFileProcess {
  fileId: string;
  userId: string;
  /** the file stream's revision the version was decided on (null: a new file) */
  revision: number | null;
  /** the usage ledger's revision before the write */
  usageFrom: number | null;
}

export const commitFileProcess = (ctx: StorageContext): ProcessDefinition<CommitFileProcess> => ({
  kind: 'CommitFile',
  settle(data, processId) {
    const marker: FileCommitAbandoned = { type: 'FileCommitAbandoned', data: { processId, at: ctx.clock.now() } };
    return claimRevision(ctx.store, Streams.file(data.fileId), data.revision, processId, marker);
  },
  async complete() {},
  async compensate(data, processId) {
    await undoUsage(ctx.store, data.userId, processId, data.usageFrom);
  },
});
