/**
 * Composition of the storage-catalog service: it owns devices, files, versions, previews, share
 * rooms, storage usage, purging and reclaiming blobs. Adapters come from the infrastructure;
 * projections feed its read models; multi-step writes are logged and recovered; the purger, the
 * previewer, the blob reaper and (when configured) the blob scrub run in the background; handlers
 * answer on the bus. Used by this app's own process entry (`main.ts`), by the standalone process
 * and, without the background work, by the admin CLI for its storage commands.
 */
import { ProcessRecovery, pendingProcessesProjection, type Projection } from '@burrow/eventsourcing';
import { type Infrastructure, loggedRecovery, startEventSourced, startService, systemClock } from '@burrow/runtime';
import { RpcClient } from '@burrow/transport';
import { type INestMicroservice, Module } from '@nestjs/common';
import { registerDeviceProcess, removeDeviceProcess } from './devices/device-processes.js';
import { DevicesHandlers } from './devices/devices.handlers.js';
import { devicesProjection } from './read-models/devices.projection.js';
import { catalogProjection } from './read-models/catalog.projection.js';
import { commitFileProcess } from './files/commit-file.process.js';
import { FilesHandlers } from './files/files.handlers.js';
import { FoldersHandlers } from './folders/folders.handlers.js';
import { Previewer } from './previews/previewer.js';
import { BlobReaper } from './reaper/blob-reaper.js';
import { BLOB_REAPER, ReaperHandlers } from './reaper/reaper.handlers.js';
import { BlobScrubber, type ScrubReport } from './scrub/blob-scrub.js';
import { BLOB_SCRUBBER, ScrubHandlers } from './scrub/scrub.handlers.js';
import { noPreviews, STORAGE_CONTEXT, type StorageContext } from './shared/context.js';
import { HealthHandlers, storageHealth } from './shared/health.handlers.js';
import { purgeFileProcess } from './purge/purge-file.process.js';
import { PURGER, PurgeHandlers } from './purge/purge.handlers.js';
import { purgePoliciesProjection } from './purge/purge-policies.projection.js';
import { Purger } from './purge/purger.js';
import { userStorageProjection } from './purge/user-storage.projection.js';
import { moveFileProcess } from './transfers/move-file.process.js';
import { TransfersHandlers } from './transfers/transfers.handlers.js';
import { backupBlobsProjection } from './reaper/backup-blobs.projection.js';
import { partnerSharingProjection } from './shares/partner-sharing.js';
import { shareRoomsProjection } from './shares/share-rooms.projection.js';
import { RoomAccessLog } from './shares/room-access-log.js';
import { ROOM_ACCESS_LOG, SharesHandlers } from './shares/shares.handlers.js';
import { storageUsersProjection } from './users/users.projection.js';

@Module({})
class StorageCatalogModule {}

/** how often the previewer looks for pending blobs besides those this replica commits */
const PREVIEW_SCAN_INTERVAL_MS = 60_000;
/** the periodic scrub's first run, after start (a restart must not always begin with reading everything), or after the interval if shorter */
const FIRST_SCRUB_DELAY_MS = 60_000;

export interface StorageCatalogOptions {
  /**
   * Recovery, purges, previews, the reaper and the scrub in the background (default true). The
   * admin CLI, which runs the service for one command in its own process, turns them off.
   */
  background?: boolean;
}

/** The storage catalog's read models, one projection each, fed by one runner. */
export const storageProjections = (): Projection[] => [
  storageUsersProjection(),
  devicesProjection(),
  catalogProjection(),
  shareRoomsProjection(),
  partnerSharingProjection(),
  purgePoliciesProjection(),
  userStorageProjection(),
  backupBlobsProjection(),
  pendingProcessesProjection('storage-catalog'),
];

/** The storage catalog's multi-step writes, by kind (what recovery can finish). */
export const storageProcesses = (ctx: StorageContext) => [
  registerDeviceProcess(ctx),
  removeDeviceProcess(ctx),
  commitFileProcess(ctx),
  moveFileProcess(ctx),
  purgeFileProcess(ctx),
];

export async function startStorageCatalog(
  infra: Infrastructure,
  options: StorageCatalogOptions = {},
): Promise<{ app: INestMicroservice; close(): Promise<void> }> {
  const log = infra.logger('storage-catalog');
  const { store, docs, runner, processes } = await startEventSourced(
    infra,
    'storage-catalog',
    log,
    storageProjections(),
  );
  const client = infra.client('storage-catalog');
  await client.connect();
  const rpc = new RpcClient(client, infra.config.rpcTimeoutMs);
  const ctx: StorageContext = {
    store,
    docs,
    runner,
    processes,
    blobs: await infra.blobs(),
    rpc,
    clock: systemClock,
    log,
    previews: noPreviews,
    deadProperties: infra.config.davProperties,
  };
  const previewer = new Previewer(ctx, { concurrency: infra.config.previewConcurrency });
  ctx.previews = previewer;
  const recovery = new ProcessRecovery(processes, docs, storageProcesses(ctx), infra.config.recoveryGraceSeconds);
  const recover = loggedRecovery(recovery, log);
  /** A background run that logs what it did (failures as warnings) and never throws. */
  const logged =
    <R extends { failed: unknown[] }>(what: string, run: () => Promise<R>, didSomething: (report: R) => boolean) =>
    async () => {
      try {
        const report = await run();
        const fields = report as object;
        if (report.failed.length) log.warn(fields, `${what} finished with failures; the next run tries again`);
        else if (didSomething(report)) log.info(fields, what);
      } catch (error) {
        log.error({ err: { message: (error as Error).message } }, `${what} failed`);
      }
    };
  const purger = new Purger(ctx);
  const purge = logged(
    'purge run',
    () => purger.run(),
    (r) => r.purged_files > 0 || r.cleared_users > 0,
  );
  const reaper = new BlobReaper(ctx, { graceSeconds: infra.config.blobReapGraceSeconds });
  const reap = logged(
    'blob reaper run',
    () => reaper.run(),
    (r) => r.reaped > 0 || r.temporaries > 0 || r.abandoned > 0,
  );
  const scrubber = new BlobScrubber(ctx, { bytesPerSecond: infra.config.blobScrubMbPerSecond * 1_000_000 });
  // problems are logged one by one as they are found; the summary leaves them out
  const scrubRun = logged(
    'blob scrub run',
    async () => {
      const { corrupt, missing, ...summary }: ScrubReport = await scrubber.run();
      return { ...summary, corrupt: corrupt.length, missing: missing.length };
    },
    () => true,
  );
  let scrubbing = false;
  // a run slower than the interval is not queued behind itself
  const scrub = async () => {
    if (scrubbing) return;
    scrubbing = true;
    await scrubRun().finally(() => (scrubbing = false));
  };
  const accessLog = new RoomAccessLog(ctx, infra.config.shareAccessFlushMs);
  const app = await startService(
    'storage-catalog',
    {
      module: StorageCatalogModule,
      controllers: [
        HealthHandlers,
        DevicesHandlers,
        FilesHandlers,
        FoldersHandlers,
        TransfersHandlers,
        SharesHandlers,
        PurgeHandlers,
        ReaperHandlers,
        ScrubHandlers,
      ],
      providers: [
        { provide: STORAGE_CONTEXT, useValue: ctx },
        { provide: PURGER, useValue: purger },
        { provide: BLOB_REAPER, useValue: reaper },
        { provide: BLOB_SCRUBBER, useValue: scrubber },
        { provide: ROOM_ACCESS_LOG, useValue: accessLog },
      ],
    },
    infra,
  );
  await infra.reportHealth('storage-catalog', () => storageHealth(ctx));
  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, run: () => void) => {
    const timer = setInterval(run, ms);
    timer.unref();
    timers.push(timer);
  };
  if (options.background !== false) {
    await recover();
    every(infra.config.recoveryIntervalMs, () => void recover());
    // the first run right after start (a service restarted more often than the interval still purges)
    void purge();
    every(infra.config.purgeIntervalMs, () => void purge());
    // what was pending at the last stop first, then every minute what other replicas left
    previewer.start(PREVIEW_SCAN_INTERVAL_MS);
    accessLog.start();
    void reap();
    every(infra.config.blobReapIntervalMs, () => void reap());
    if (infra.config.blobScrubIntervalMs > 0) {
      const first = setTimeout(() => void scrub(), Math.min(FIRST_SCRUB_DELAY_MS, infra.config.blobScrubIntervalMs));
      first.unref();
      timers.push(first);
      every(infra.config.blobScrubIntervalMs, () => void scrub());
    }
  }
  return {
    app,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      await purger.stop();
      await previewer.stop();
      await reaper.stop();
      await scrubber.stop();
      await accessLog.stop();
      await app.close();
      await runner.stop();
      await rpc.close();
    },
  };
}
