/**
 * The scrub: every blob read whole and checked against its key (the sha256 of its content), and
 * every blob the catalog's versions name checked to be there. A corrupt blob is quarantined
 * (`BlobStore.quarantine`: it then reads as missing, the next upload of its content stores it
 * anew, and its bytes are kept aside for the operator); each problem comes with the files and
 * users it affects.
 *
 * The walk goes a page at a time in key order, so an operator command can show its progress and
 * the periodic run can be throttled and stopped between pages. Missing blobs are found in the same
 * walk: the versions naming keys in a page's range (after the page before, up to its last key)
 * whose key the store did not list, each checked again (it may have been put meanwhile).
 *
 * Runs on demand (`storage-catalog.blobs.verify`, a page per call: `admin verify-blobs`) and, when
 * BURROW_BLOB_SCRUB_INTERVAL_MS is set, periodically at most BURROW_BLOB_SCRUB_MB_PER_SECOND.
 */
import { BLOB_LIST_MAX, verifyBlob } from '@burrow/blobs';
import type { BlobProblem, VerifyBlobsPage, VerifyBlobsRequest } from '@burrow/contracts';
import { versionsCollection } from '../read-models/catalog.documents.js';
import type { StorageContext } from '../shared/context.js';
import { SerialRuns } from '../shared/serial-runs.js';
import { affectedBy } from './affected.js';

const DEFAULT_PAGE_BYTES = 256 * 1024 * 1024;
const VERSIONS_PAGE = 1000;
const FAILURES_LISTED = 100;

export interface ScrubOptions {
  /** the periodic run reads at most this many bytes per second (0: as fast as it can) */
  bytesPerSecond: number;
  /** ms since the epoch, and waiting (tests give a clock of their own) */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** What a whole run found (the periodic run's log line). */
export interface ScrubReport {
  checked: number;
  bytes: number;
  seconds: number;
  corrupt: BlobProblem[];
  missing: BlobProblem[];
  failed: { blob: string; error: string }[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

export class BlobScrubber {
  private readonly runs = new SerialRuns();

  constructor(
    private readonly ctx: StorageContext,
    private readonly options: ScrubOptions = { bytesPerSecond: 0 },
  ) {}

  /** Reads the blobs after `req.after` until a page's worth (bytes or blobs) is read. */
  async verifyPage(req: VerifyBlobsRequest = {}): Promise<VerifyBlobsPage> {
    const maxBytes = req.max_bytes ?? DEFAULT_PAGE_BYTES;
    const maxBlobs = Math.min(req.max_blobs ?? BLOB_LIST_MAX, BLOB_LIST_MAX);
    const page: VerifyBlobsPage = { checked: 0, bytes: 0, corrupt: [], missing: [], failed: [], next: null };
    // the catalog up to now: a version committed later names a blob put later, listed or not
    await this.ctx.runner.catchUp();
    const listed = await this.ctx.blobs.list({ after: req.after, limit: maxBlobs });
    const seen = new Set<string>();
    let last: string | undefined;
    for (const blob of listed.blobs) {
      seen.add(blob.key);
      last = blob.key;
      try {
        const verdict = await verifyBlob(this.ctx.blobs, blob.key);
        if (verdict.state === 'corrupt') {
          const quarantined = await this.ctx.blobs.quarantine(blob.key);
          page.corrupt.push({
            blob: blob.key,
            size: blob.size,
            quarantined,
            ...(await affectedBy(this.ctx, blob.key)),
          });
        } else if (verdict.state === 'missing') {
          seen.delete(blob.key); // gone since it was listed (reaped): the versions below say whether that matters
        }
        page.checked += 1;
        page.bytes += blob.size;
      } catch (error) {
        if (page.failed.length < FAILURES_LISTED) page.failed.push({ blob: blob.key, error: (error as Error).message });
      }
      if (page.bytes >= maxBytes) break;
    }
    // this page covers the keys after `req.after` up to `last`, or all of them when the store has no more
    const more = last !== undefined && (last !== listed.blobs[listed.blobs.length - 1]?.key || listed.next !== null);
    page.next = more ? last! : null;
    page.missing = await this.missingIn(req.after, page.next, seen);
    return page;
  }

  /** Blobs named by versions with keys in (after, upTo] (no upper bound when null) that the store lacks. */
  private async missingIn(after: string | undefined, upTo: string | null, listed: Set<string>): Promise<BlobProblem[]> {
    const problems: BlobProblem[] = [];
    let cursor = after ?? '';
    for (;;) {
      const range: Record<string, string> = { $gt: cursor };
      if (upTo !== null) range.$lte = upTo;
      const versions = await versionsCollection(this.ctx.docs).find(
        { blob: range },
        { sort: { blob: 1 }, limit: VERSIONS_PAGE },
      );
      for (const key of new Set(versions.map((v) => v.blob))) {
        if (listed.has(key) || (await this.ctx.blobs.exists(key))) continue;
        problems.push({ blob: key, ...(await affectedBy(this.ctx, key)) });
      }
      if (versions.length < VERSIONS_PAGE) return problems;
      cursor = versions[versions.length - 1].blob;
    }
  }

  /** A whole run, throttled; runs of this process one after another. */
  run(): Promise<ScrubReport> {
    return this.runs.run(() => this.runOnce());
  }

  /** Stops between two pages; resolves when the run under way has stopped. */
  stop(): Promise<void> {
    return this.runs.stop();
  }

  private async runOnce(): Promise<ScrubReport> {
    const now = this.options.now ?? Date.now;
    const started = now();
    const report: ScrubReport = { checked: 0, bytes: 0, seconds: 0, corrupt: [], missing: [], failed: [] };
    const rate = this.options.bytesPerSecond;
    let after: string | undefined;
    do {
      if (this.runs.stopped) break;
      // a page of about two seconds' worth at the allowed rate, so the throttle stays smooth
      const page = await this.verifyPage({ after, max_bytes: rate > 0 ? Math.max(rate * 2, 1) : DEFAULT_PAGE_BYTES });
      report.checked += page.checked;
      report.bytes += page.bytes;
      report.corrupt.push(...page.corrupt);
      report.missing.push(...page.missing);
      report.failed.push(...page.failed.slice(0, FAILURES_LISTED - report.failed.length));
      for (const problem of page.corrupt)
        this.ctx.log.error(
          problem,
          problem.quarantined
            ? 'corrupt blob quarantined: re-upload or restore the files named'
            : 'corrupt blob found (not quarantined: replaced meanwhile?)',
        );
      for (const problem of page.missing)
        this.ctx.log.error(problem, 'blob missing from the store: restore or re-upload the files named');
      if (rate > 0) {
        const due = started + (report.bytes / rate) * 1000;
        if (due > now()) await (this.options.sleep ?? sleep)(due - now());
      }
      after = page.next ?? undefined;
    } while (after !== undefined);
    report.seconds = (now() - started) / 1000;
    return report;
  }
}
