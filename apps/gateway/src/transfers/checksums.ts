/**
 * An upload's SHA-1, MD5 and CRC-32 (ingest.ts), computed beside the bytes' way to the blob store.
 *
 * Why a worker thread: a large upload is bound by the gateway's main thread (it reads the socket,
 * hashes, and hands the bytes to the file or to MinIO), and these three checksums were 2.3-2.7 CPU
 * ms of every MiB on it, about a third of what the main thread spent per MiB (issue 37,
 * docs/performance.md). On a worker they run on another core while the main thread goes on.
 *
 * Small bodies stay on the main thread: a message to a worker and its answer cost more than
 * hashing a few KiB. So the chunks of an upload are only kept (references, no copy) until
 * `OFF_THREAD_BYTES` have arrived: a body that ends before is hashed in one go at its end; one
 * that passes it (declared length or chunked, the same) is handed to a worker with what was kept.
 * The bytes go in batches of `BATCH_BYTES`, one copy each, moved to the worker without a second
 * one; at most `WINDOW_BYTES` of one upload are with its worker unhashed: past that the upload waits
 * (its request is paused by the stream's back-pressure), so a slow worker never makes the gateway
 * hold a body in memory.
 *
 * The pool is one per process, started at the first large upload, half the cores (1-8 workers);
 * an upload stays on one worker (its hashes' state is there). A worker that dies fails the uploads
 * it was hashing (their clients get an error, nothing is committed) and is replaced at the next one.
 */
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { crc32 } from 'node:zlib';
import type { ChecksumReply, ChecksumRequest } from './checksum-worker.js';

/** Bodies past this many bytes are hashed on a worker thread. */
export const OFF_THREAD_BYTES = 256 * 1024;
/** Bytes per message to the worker. */
export const BATCH_BYTES = 128 * 1024;
/** The most bytes of one upload sent to its worker and not yet hashed. */
export const WINDOW_BYTES = 512 * 1024;

export interface UploadSums {
  sha1: string;
  md5: string;
  crc32: number;
}

/** One upload's checksums: on the main thread while it is small, on a worker once it is not. */
export class UploadChecksums {
  private kept: Buffer[] = [];
  private keptBytes = 0;
  private job: WorkerJob | null = null;

  constructor(private readonly workers: ChecksumWorkers = checksumWorkers) {}

  /** Whether the bytes went to a worker (tests). */
  get offThread(): boolean {
    return this.job !== null;
  }

  /**
   * Takes the next chunk (not modified afterwards: the caller hands it on unchanged). A promise:
   * the worker is behind; send no more until it resolves.
   */
  update(chunk: Buffer): Promise<void> | undefined {
    if (this.job) return this.job.update(chunk);
    this.kept.push(chunk);
    this.keptBytes += chunk.length;
    if (this.keptBytes <= OFF_THREAD_BYTES) return undefined;
    this.job = this.workers.start();
    const kept = this.kept;
    this.kept = [];
    let wait: Promise<void> | undefined;
    for (const c of kept) wait = this.job.update(c) ?? wait;
    return wait;
  }

  /** The checksums of every byte given, once the last one was. */
  async digest(): Promise<UploadSums> {
    if (this.job) return this.job.end();
    const sha1 = createHash('sha1');
    const md5 = createHash('md5');
    let crc = 0;
    for (const chunk of this.kept) {
      sha1.update(chunk);
      md5.update(chunk);
      crc = crc32(chunk, crc);
    }
    this.kept = [];
    return { sha1: sha1.digest('hex'), md5: md5.digest('hex'), crc32: crc >>> 0 };
  }

  /** The upload failed: forget it (its worker drops what it holds). */
  drop(): void {
    this.kept = [];
    this.job?.drop();
  }
}

interface Deferred<T> {
  resolve(value: T): void;
  reject(error: Error): void;
}

/** One upload on a worker: batches, the window, the answer. */
export class WorkerJob {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** bytes sent to the worker and not yet hashed */
  inFlight = 0;
  /** the most `inFlight` was (tests: the window holds) */
  maxInFlight = 0;
  private waiter: Deferred<void> | null = null;
  private answer: Deferred<UploadSums> | null = null;
  private failed: Error | null = null;
  private ended = false;

  constructor(
    readonly id: number,
    private readonly send: (message: ChecksumRequest, transfer?: ArrayBuffer[]) => void,
    private readonly forget: () => void,
  ) {}

  update(chunk: Buffer): Promise<void> | undefined {
    if (this.failed) return Promise.reject(this.failed);
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= BATCH_BYTES) this.post();
    if (this.inFlight <= WINDOW_BYTES) return undefined;
    return new Promise<void>((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  end(): Promise<UploadSums> {
    if (this.failed) return Promise.reject(this.failed);
    this.post();
    this.ended = true;
    return new Promise<UploadSums>((resolve, reject) => {
      this.answer = { resolve, reject };
      this.send({ id: this.id, op: 'end' });
    });
  }

  drop(): void {
    if (this.failed || this.answer) return;
    this.fail(new Error('the upload was dropped'));
    this.send({ id: this.id, op: 'drop' });
  }

  /** The pending chunks as one new buffer, moved to the worker (the one copy of these bytes). */
  private post(): void {
    if (this.pendingBytes === 0) return;
    const batch = Buffer.allocUnsafeSlow(this.pendingBytes);
    let at = 0;
    for (const chunk of this.pending) at += chunk.copy(batch, at);
    this.inFlight += this.pendingBytes;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    this.pending = [];
    this.pendingBytes = 0;
    this.send({ id: this.id, op: 'data', chunks: [batch] }, [batch.buffer]);
  }

  /** The worker's answers. */
  settle(reply: ChecksumReply): void {
    if ('hashed' in reply) {
      this.inFlight -= reply.hashed;
      if (this.waiter && this.inFlight <= WINDOW_BYTES) {
        const waiter = this.waiter;
        this.waiter = null;
        waiter.resolve();
      }
      return;
    }
    this.forget();
    if ('sums' in reply) this.answer?.resolve(reply.sums);
    else this.fail(new Error(`checksums failed: ${reply.error}`));
  }

  fail(error: Error): void {
    if (this.failed) return;
    this.failed = error;
    this.waiter?.reject(error);
    this.waiter = null;
    this.answer?.reject(error);
    if (!this.ended) this.forget();
  }
}

interface PoolWorker {
  worker: Worker;
  jobs: Map<number, WorkerJob>;
}

/** The process's checksum workers (see the header). */
export class ChecksumWorkers {
  private readonly workers: PoolWorker[] = [];
  private ids = 0;

  constructor(readonly size = Math.max(1, Math.min(8, Math.floor(availableParallelism() / 2)))) {}

  /** A new upload, on the worker with the fewest uploads (a new worker while the pool is not full). */
  start(): WorkerJob {
    const idle = this.workers.find((w) => w.jobs.size === 0);
    const w =
      idle ??
      (this.workers.length < this.size
        ? this.spawn()
        : this.workers.reduce((a, b) => (b.jobs.size < a.jobs.size ? b : a)));
    const id = ++this.ids;
    const job = new WorkerJob(
      id,
      (message, transfer) => w.worker.postMessage(message, transfer ?? []),
      () => {
        w.jobs.delete(id);
        if (w.jobs.size === 0) w.worker.unref();
      },
    );
    if (w.jobs.size === 0) w.worker.ref();
    w.jobs.set(id, job);
    return job;
  }

  /** Ends every worker (tests: a worker that dies fails its uploads). */
  async terminate(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
  }

  private spawn(): PoolWorker {
    const worker = new Worker(new URL('./checksum-worker.js', import.meta.url));
    worker.unref();
    const w: PoolWorker = { worker, jobs: new Map() };
    worker.on('message', (reply: ChecksumReply) => w.jobs.get(reply.id)?.settle(reply));
    const died = (error: Error) => {
      const i = this.workers.indexOf(w);
      if (i >= 0) this.workers.splice(i, 1);
      const jobs = [...w.jobs.values()];
      w.jobs.clear();
      for (const job of jobs) job.fail(error);
    };
    worker.on('error', died);
    worker.on('exit', (code) => died(new Error(`a checksum worker exited (${code})`)));
    this.workers.push(w);
    return w;
  }
}

/** The process's pool. */
export const checksumWorkers = new ChecksumWorkers();
