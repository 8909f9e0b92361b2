/**
 * The previewer: makes the previews of committed image blobs, off the request path, a few at a
 * time (`concurrency`), each blob once whatever the number of files, users or replicas holding it.
 *
 * Work comes from the `previews` read model: a blob committed for the first time is `pending`
 * there until its stream records a result. This replica's commits hand their blob over at once
 * (`committed`); `scan` takes what is pending, at start without delay (what a crash or a restart
 * left, and what arrived while the process was down) and then periodically for what has waited
 * `scanDelaySeconds` (another replica's commits are that replica's to do first).
 *
 * For each blob: its first bytes decide (JPEG, PNG, GIF, WebP; anything else is recorded as "not
 * an image" and never read again). An upload's commit has them (the gateway saw them go by): when
 * they are no image's, the commit itself records it (`image: false` on its `FileVersionCommitted`,
 * the read model decides the blob there) and the previewer never hears of the blob; an image's
 * commit hands them over (`committed(blob, head)`). An image is claimed on its stream
 * (`PreviewsStarted`, so two replicas do not decode it twice), rendered (render.ts), each preview
 * put into the blob store, and `PreviewsGenerated` appended. An image that cannot be decoded is recorded as failed
 * (`PreviewsFailed`, never retried); so is one too big to decode in memory, and one that several
 * claims left without a result (it killed the previewer, or the previewer kept dying). A storage
 * failure is not the image's fault: nothing is recorded, and the blob is tried again later.
 * Every step re-reads the stream and appends with an expected revision, so running twice, or on
 * two replicas at once, writes one result.
 */
import { type PreviewWidth, Streams } from '@burrow/contracts';
import { BlobNotFoundError } from '@burrow/blobs';
import { deferDurability } from '@burrow/event-store';
import { handleCommand, loadAggregate } from '@burrow/eventsourcing';
import { Readable } from 'node:stream';
import { NOT_AN_IMAGE, previewsCollection } from '../read-models/catalog.documents.js';
import type { StorageContext } from '../shared/context.js';
import { SNIFF_BYTES, sniffImage } from './image-format.js';
import { claimHolds, type PreviewCommand, previewDecider } from './preview.js';
import { readAll, renderPreviews, UnreadableImage } from './render.js';

export interface PreviewerOptions {
  /** images rendered at once (default 2; 0: no previews are made) */
  concurrency?: number;
  /** a claim older than this is taken to be dead (default 600 s) */
  claimSeconds?: number;
  /** claims without a result before the image is given up (default 3) */
  maxAttempts?: number;
  /** the periodic scan leaves younger pending blobs to the replica that committed them (default 60 s) */
  scanDelaySeconds?: number;
  /** larger images get no previews (default 100 MB): sharp holds the compressed bytes in memory */
  maxBytes?: number;
}

/** What happened to one blob. */
export type PreviewOutcome = 'generated' | 'failed' | 'not-image' | 'decided' | 'claimed' | 'missing';

/** blobs waiting in memory at most; more wait in the read model for the next scan */
const MAX_QUEUED = 10_000;
const SCAN_PAGE = 500;

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class Previewer {
  private readonly concurrency: number;
  private readonly claimSeconds: number;
  private readonly maxAttempts: number;
  private readonly scanDelaySeconds: number;
  private readonly maxBytes: number;
  private readonly queue: string[] = [];
  /** queued or in progress */
  private readonly known = new Set<string>();
  /** the first bytes of queued blobs, when their commit had them (at most one per queued blob) */
  private readonly heads = new Map<string, Buffer>();
  private running = 0;
  private idle: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  private scanning: Promise<number> | null = null;
  private stopped = false;

  constructor(
    private readonly ctx: StorageContext,
    options: PreviewerOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 2;
    this.claimSeconds = options.claimSeconds ?? 600;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.scanDelaySeconds = options.scanDelaySeconds ?? 60;
    this.maxBytes = options.maxBytes ?? 100_000_000;
  }

  /**
   * Scans now (without delay: recovery), then every `intervalMs`. A scan that fails (the read-model
   * database unreachable) is logged and the next one tries again: from a timer, an uncaught
   * rejection would end the process.
   */
  start(intervalMs: number): void {
    if (this.concurrency === 0) return;
    this.scanInBackground(0);
    this.timer = setInterval(() => this.scanInBackground(), intervalMs);
    this.timer.unref();
  }

  private scanInBackground(delaySeconds?: number): void {
    this.scan(delaySeconds).catch((error: unknown) => {
      this.ctx.log.warn({ err: { message: reasonOf(error) } }, 'the preview scan failed; the next scan tries again');
    });
  }

  /** No more work is taken; resolves once the work under way is over. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.queue.length = 0;
    this.heads.clear();
    await this.scanning?.catch(() => undefined);
    await this.drained();
  }

  /**
   * A version of `blob` was committed by this replica (a no-op unless its previews are pending).
   * `head`: its first bytes (at least `SNIFF_BYTES`, or the whole blob), when the committer has them.
   */
  committed(blob: string, head?: Buffer): void {
    if (this.known.has(blob)) return; // queued or in progress: what it was queued with stands
    if (head) this.heads.set(blob, head);
    if (!this.enqueue(blob)) this.heads.delete(blob);
  }

  /** Resolves when nothing is queued or in progress. */
  drained(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /**
   * Queues the blobs pending for `delaySeconds` or more, oldest first, as many as the queue takes;
   * returns how many it queued. One scan at a time.
   */
  scan(delaySeconds = this.scanDelaySeconds): Promise<number> {
    if (this.scanning) return this.scanning;
    this.scanning = this.scanOnce(delaySeconds).finally(() => (this.scanning = null));
    return this.scanning;
  }

  private async scanOnce(delaySeconds: number): Promise<number> {
    if (this.concurrency === 0 || this.stopped) return 0;
    // a flat filter (an index on `pending` answers it); blobs decided meanwhile leave the list, so
    // an offset may skip a few: the next scan has them
    const due = { pending: true, since: { $lte: this.ctx.clock.now() - delaySeconds } };
    const previews = previewsCollection(this.ctx.docs);
    let queued = 0;
    for (let skip = 0; ; skip += SCAN_PAGE) {
      const page = await previews.find(due, { sort: { since: 1, _id: 1 }, skip, limit: SCAN_PAGE });
      for (const doc of page) {
        if (this.queue.length >= MAX_QUEUED || this.stopped) return queued;
        if (this.enqueue(doc._id)) queued += 1;
      }
      if (page.length < SCAN_PAGE) return queued;
    }
  }

  private enqueue(blob: string): boolean {
    if (this.concurrency === 0 || this.stopped || this.known.has(blob) || this.queue.length >= MAX_QUEUED) return false;
    this.known.add(blob);
    this.queue.push(blob);
    this.pump();
    return true;
  }

  private pump(): void {
    while (this.running < this.concurrency && this.queue.length > 0) {
      const blob = this.queue.shift()!;
      const head = this.heads.get(blob);
      this.heads.delete(blob);
      this.running += 1;
      void this.process(blob, head)
        .catch((error: unknown) => {
          this.ctx.log.warn({ blob, err: { message: reasonOf(error) } }, 'making previews failed; tried again later');
        })
        .finally(() => {
          this.running -= 1;
          this.known.delete(blob);
          this.pump();
          if (this.running === 0 && this.queue.length === 0) for (const resolve of this.idle.splice(0)) resolve();
        });
    }
  }

  /**
   * Most blobs (one per upload of anything but an image): no fsync of their own. 'decided' when
   * the stream already had a result (another replica, or a claim's end, got there first).
   */
  private async notImage(blob: string, at: number): Promise<PreviewOutcome> {
    const { events } = await this.command(blob, { type: 'RecordPreviews', blob, at, reason: NOT_AN_IMAGE }, false);
    return events.length > 0 ? 'not-image' : 'decided';
  }

  /**
   * `durable` false: appended through the store's deferred view (no fsync of its own; made durable
   * by the next durable append). For a decision that costs nothing to make again: lost to a power
   * cut, the blob is pending again and the next scan decides it again, the same way.
   */
  private command(blob: string, command: PreviewCommand, durable = true) {
    return handleCommand(
      durable ? this.ctx.store : deferDurability(this.ctx.store),
      Streams.preview(blob),
      previewDecider,
      command,
    );
  }

  /**
   * Decides the previews of one blob (see the header); what it did. `head`: the blob's first bytes
   * (`SNIFF_BYTES` of them, or all of a shorter blob), when the caller has them: if they are not an
   * image's, the blob is not read.
   */
  async process(blob: string, head?: Buffer): Promise<PreviewOutcome> {
    // not an image by the head: the decision reads the blob's stream anyway (and appends nothing
    // when it is decided already), so the read model is not asked first (one read per upload)
    if (head && !sniffImage(head)) return this.notImage(blob, this.ctx.clock.now());
    const doc = await previewsCollection(this.ctx.docs).get(blob);
    if (doc && !doc.pending) return 'decided';
    const { state } = await loadAggregate(this.ctx.store, Streams.preview(blob), previewDecider);
    const now = this.ctx.clock.now();
    if (state.status === 'decided') return 'decided';
    if (claimHolds(state, now, this.claimSeconds)) return 'claimed';

    const info = await this.ctx.blobs.stat(blob);
    if (!info) return 'missing';
    const first =
      info.size === 0
        ? Buffer.alloc(0)
        : await readAll(await this.ctx.blobs.get(blob, { start: 0, end: Math.min(info.size, SNIFF_BYTES) - 1 }));
    if (!sniffImage(first)) return this.notImage(blob, now);
    if (info.size > this.maxBytes) {
      await this.command(blob, {
        type: 'RecordPreviews',
        blob,
        at: now,
        reason: `too large for previews (${info.size} bytes; at most ${this.maxBytes})`,
      });
      return 'failed';
    }

    const claim = await this.command(blob, {
      type: 'StartPreviews',
      blob,
      at: now,
      claimSeconds: this.claimSeconds,
      maxAttempts: this.maxAttempts,
    });
    const [claimed] = claim.events;
    if (!claimed) return claim.state.status === 'decided' ? 'decided' : 'claimed';
    if (claimed.type === 'PreviewsFailed') {
      this.ctx.log.warn({ blob, reason: claimed.data.reason }, 'an image was given up: no previews for it');
      return 'failed';
    }

    let rendered;
    try {
      rendered = await renderPreviews(await this.ctx.blobs.get(blob));
    } catch (error) {
      if (error instanceof BlobNotFoundError) return 'missing';
      if (!(error instanceof UnreadableImage)) throw error;
      await this.command(blob, {
        type: 'RecordPreviews',
        blob,
        at: this.ctx.clock.now(),
        reason: `unreadable image: ${error.message}`,
      });
      this.ctx.log.info({ blob, reason: error.message }, 'an image could not be read: no previews for it');
      return 'failed';
    }
    const previews: Partial<Record<`${PreviewWidth}`, string>> = {};
    for (const preview of rendered)
      previews[`${preview.width}`] = (await this.ctx.blobs.put(Readable.from([preview.data]))).key;
    await this.command(blob, { type: 'RecordPreviews', blob, at: this.ctx.clock.now(), previews });
    return 'generated';
  }
}
