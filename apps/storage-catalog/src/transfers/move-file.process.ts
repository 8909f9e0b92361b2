/**
 * Moving a file (WebDAV MOVE) spans two streams: the destination gets the source's latest version
 * as its next one (`FileVersionCommitted`, with the source's dead properties; the commit point,
 * appended expecting the revision it was decided on), then the source gives it up
 * (`FileMovedOut`). No byte is copied and the usage ledger is not touched: the version is counted
 * once, where it now is. A crash between the two is finished by recovery (the move-out is
 * idempotent); one before the commit point is claimed like a file commit's.
 */
import { type DeadProperties, type FileCommitAbandoned, fileIdOf, Streams, withChecksums } from '@burrow/contracts';
import {
  appendEvents,
  claimRevision,
  defineWorkflow,
  type DomainEvent,
  handleCommand,
  loadAggregate,
  retryOnConflict,
} from '@burrow/eventsourcing';
import type { DeviceState } from '../devices/device.js';
import type { FileDoc } from '../read-models/catalog.documents.js';
import { fileDecider } from '../files/file.js';
import type { StorageContext } from '../shared/context.js';

export interface MoveFileProcess {
  from: { fileId: string };
  to: { fileId: string; deviceId: string; path: string };
  /** the source version that moves */
  version: number;
  /** the destination stream's revision the new version was decided on (null: a new file) */
  revision: number | null;
}

export const moveFileProcess = (ctx: StorageContext) =>
  defineWorkflow<MoveFileProcess, { events: DomainEvent[] }>({
    kind: 'MoveFile',
    // a folder moves file after file and waits once (transfers.handlers.ts)
    readYourWrites: false,
    // the first step: nothing happened before the commit point, there is nothing to undo
    async commit({ id, data, input }) {
      return (
        await appendEvents(ctx.store, Streams.file(data.to.fileId), input.events, data.revision ?? 'no_stream', {
          processId: id,
        })
      ).position;
    },
    settle(data, processId) {
      const marker: FileCommitAbandoned = { type: 'FileCommitAbandoned', data: { processId, at: ctx.clock.now() } };
      return claimRevision(ctx.store, Streams.file(data.to.fileId), data.revision, processId, marker);
    },
    async complete(data) {
      const to = { deviceId: data.to.deviceId, path: data.to.path };
      await handleCommand(ctx.store, Streams.file(data.from.fileId), fileDecider, {
        type: 'MoveOut',
        version: data.version,
        to,
        at: ctx.clock.now(),
      });
    },
  });

/**
 * Moves the live file `source` (its read-model document) to `path` on `device`. The source's
 * latest version is the one its document shows; a file written again meanwhile is moved as it
 * was decided (its newer version stays where it is).
 */
export async function moveFile(
  ctx: StorageContext,
  source: FileDoc,
  props: DeadProperties,
  device: DeviceState,
  path: string,
): Promise<void> {
  const fileId = fileIdOf(device.deviceId, path);
  const stream = Streams.file(fileId);
  await retryOnConflict('file', async () => {
    const { state, revision } = await loadAggregate(ctx.store, stream, fileDecider);
    const data = {
      fileId,
      deviceId: device.deviceId,
      userId: device.userId,
      partnerId: device.partnerId,
      path,
      size: source.size,
      blob: source.blob,
      crc32: source.crc32,
      ...withChecksums(source),
      mtime: source.mtime,
      ctime: source.ctime,
      at: ctx.clock.now(),
      moved_from: { deviceId: source.deviceId, path: source.path },
    };
    const events = fileDecider.decide({ type: 'CommitVersion', data, props }, state);
    const moving = {
      from: { fileId: source._id },
      to: { fileId, deviceId: device.deviceId, path },
      version: source.version,
      revision,
    };
    await ctx.processes.run(moveFileProcess(ctx), moving, { events });
  });
}
