/**
 * The blob reaper: removes blobs nothing references any more. Purges (`FileVersionsPurged`) and
 * deleted users leave them, and so does an upload whose commit never happened (its put succeeded,
 * then the commit was refused, e.g. 507, or the process died in between). One run walks the whole
 * blob store a page at a time (`list`, in key order) and removes each blob that is
 * 1. older than the grace period (`modifiedMs`, the end of its last put), and
 * 2. referenced by no stored version (the `versions` read model, caught up first), listed as a
 *    preview of no blob (the `previews` read model), and none of the latest appliance configuration
 *    backups of a partner (the `backup_blobs` read model, from the accounts service's streams),
 * with `deleteIfUnchanged(key, cutoff)`, which keeps it if a put touched it meanwhile. A reaped
 * image's previews are discarded on its stream (`PreviewsDiscarded`), so its preview blobs are
 * reaped in turn and content uploaded again gets previews anew. Then it sweeps what interrupted
 * puts left (temporary files, unfinished multipart uploads) older than the grace. Before all that,
 * and whatever their age, it removes the temporaries of puts whose process no longer runs (on this
 * host: `sweepAbandoned`), so that the first run after a crash clears what the crash left.
 *
 * The race with uploads, and why the grace: an upload puts its bytes first and commits the
 * version afterwards (a separate bus call), so between the two a blob is referenced by nothing. A
 * put always leaves the blob's time fresh, even for content already stored, so a blob an upload is
 * about to commit is younger than the grace and kept, whatever the read models say; the grace
 * must exceed the longest time from the end of a put to its commit (a bus timeout, seconds; the
 * default is a day). Content put again while the reaper decides is kept by `deleteIfUnchanged`
 * (atomic on the local folder; on S3 a read then a delete, a window of milliseconds).
 *
 * Runs periodically (`BURROW_BLOB_REAP_INTERVAL_MS`) and on demand (`storage-catalog.blobs.reap`);
 * runs of one process are serialised, runs on several replicas at once are harmless.
 */
import type { BlobReapReport } from '@burrow/contracts';
import { handleCommand } from '@burrow/eventsourcing';
import { Streams } from '@burrow/contracts';
import type { ListedBlob } from '@burrow/blobs';
import { PREVIEW_BLOB_FIELDS, previewsCollection, versionsCollection } from '../read-models/catalog.documents.js';
import { previewDecider } from '../previews/preview.js';
import { backupBlobsCollection } from './backup-blobs.projection.js';
import type { StorageContext } from '../shared/context.js';
import { SerialRuns } from '../shared/serial-runs.js';

export interface BlobReaperOptions {
  /** blobs put less than this long ago are kept */
  graceSeconds: number;
  /** blobs listed per page (default 1000; tests use small pages) */
  pageSize?: number;
  /** the blob store's clock in ms (default Date.now: blob times are the store's wall clock, not the service's) */
  wallClock?: () => number;
}

/** references checked at once */
const CHECKS_IN_FLIGHT = 16;
const FAILURES_LISTED = 100;

const emptyReport = (): BlobReapReport => ({
  listed: 0,
  recent: 0,
  referenced: 0,
  reaped: 0,
  reaped_bytes: 0,
  raced: 0,
  temporaries: 0,
  abandoned: 0,
  failed: [],
});

export class BlobReaper {
  private readonly runs = new SerialRuns();

  constructor(
    private readonly ctx: StorageContext,
    private readonly options: BlobReaperOptions,
  ) {}

  /** Runs once, after any run of this process still going; `graceSeconds` overrides the grace for this run. */
  run(graceSeconds = this.options.graceSeconds): Promise<BlobReapReport> {
    return this.runs.run(() => this.runOnce(graceSeconds));
  }

  /** Stops between two pages; resolves when the run under way has stopped. */
  stop(): Promise<void> {
    return this.runs.stop();
  }

  /** Whether a stored version holds the blob, it is a preview of some blob, or a partner's appliance backup. */
  async referenced(key: string): Promise<boolean> {
    if (await versionsCollection(this.ctx.docs).findOne({ blob: key })) return true;
    if (await backupBlobsCollection(this.ctx.docs).findOne({ blob: key })) return true;
    for (const field of PREVIEW_BLOB_FIELDS)
      if (await previewsCollection(this.ctx.docs).findOne({ [field]: key })) return true;
    return false;
  }

  private async runOnce(graceSeconds: number): Promise<BlobReapReport> {
    const report = emptyReport();
    // first, and whatever the grace: what uploads of processes that no longer run left (a crash)
    report.abandoned = await this.ctx.blobs.sweepAbandoned();
    const cutoffMs = (this.options.wallClock ?? Date.now)() - graceSeconds * 1000;
    // every commit and purge up to now is in the read models; anything later was put after the cutoff
    await this.ctx.runner.catchUp();
    let after: string | undefined;
    do {
      if (this.runs.stopped) return report;
      const page = await this.ctx.blobs.list({ after, limit: this.options.pageSize });
      report.listed += page.blobs.length;
      for (let i = 0; i < page.blobs.length; i += CHECKS_IN_FLIGHT) {
        await Promise.all(
          page.blobs.slice(i, i + CHECKS_IN_FLIGHT).map((blob) => this.consider(blob, cutoffMs, report)),
        );
      }
      after = page.next ?? undefined;
    } while (after !== undefined);
    report.temporaries = await this.ctx.blobs.sweepTemporary(cutoffMs);
    return report;
  }

  private async consider(blob: ListedBlob, cutoffMs: number, report: BlobReapReport): Promise<void> {
    if (blob.modifiedMs > cutoffMs) {
      report.recent += 1;
      return;
    }
    try {
      if (await this.referenced(blob.key)) {
        report.referenced += 1;
        return;
      }
      if (!(await this.ctx.blobs.deleteIfUnchanged(blob.key, cutoffMs))) {
        report.raced += 1;
        return;
      }
      report.reaped += 1;
      report.reaped_bytes += blob.size;
      // what was decided about its previews goes with it (a no-op for a blob never committed; a
      // decision its commit made, "no image", is in the read model only)
      const recorded = (await previewsCollection(this.ctx.docs).get(blob.key)) !== null;
      await handleCommand(this.ctx.store, Streams.preview(blob.key), previewDecider, {
        type: 'DiscardPreviews',
        blob: blob.key,
        at: this.ctx.clock.now(),
        recorded,
      });
    } catch (error) {
      if (report.failed.length < FAILURES_LISTED)
        report.failed.push({ blob: blob.key, error: (error as Error).message });
      this.ctx.log.warn(
        { blob: blob.key, err: { message: (error as Error).message } },
        'reaping a blob failed; the next run tries again',
      );
    }
  }
}
