/**
 * A put's digests (sha256, and SHA-1, MD5 and CRC-32 when asked), computed beside the bytes' way
 * into the store (local.ts, minio.ts).
 *
 * Why a worker thread: a large upload is bound by the gateway's main thread (it reads the socket,
 * hashes, and hands the bytes to the file or to MinIO), and the four digests were ~3.6 CPU ms of
 * every MiB on it, about half of what the main thread spent per MiB (issue 37,
 * docs/performance.md). On a worker they run on another core while the main thread goes on.
 *
 * Only a put that asks for the checksums goes to a worker (its sha256 with them: one copy, one
 * job); a put's sha256 alone is cheap enough where it is. Small bodies stay on the main thread: a
 * message to a worker and its answer cost more than hashing a few KiB. So the chunks of a put are
 * only kept (references, no copy) until `OFF_THREAD_BYTES` have arrived: a body that ends before
 * is hashed in one go at its end; one that passes it (declared length or chunked, the same) is
 * handed to a worker with what was kept.
 * The bytes go in batches of `BATCH_BYTES`, one copy each, moved to the worker without a second
 * one; at most `WINDOW_BYTES` of one put are with its worker unhashed: past that the put waits
 * (its source is paused by the stream's back-pressure), so a slow worker never makes the process
 * hold a body in memory.
 *
 * The pool is one per process, started at the first large put, half the cores (1-8 workers); a
 * put stays on one worker (its hashes' state is there). A worker that dies fails the puts it was
 * hashing (nothing is stored under a name it did not compute; their clients get an error) and is
 * replaced at the next one.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { DigestReply, DigestRequest } from './digest-worker.js';
import { type Digests, type DigestSet, type Hashers, hashers } from './hashers.js';
import type { BlobInfo, PutInfo } from './port.js';

export type { Digests, DigestSet } from './hashers.js';

/** Bodies past this many bytes are hashed on a worker thread. */
export const OFF_THREAD_BYTES = 256 * 1024;
/** Bytes per message to the worker. */
export const BATCH_BYTES = 128 * 1024;
/** The most bytes of one put sent to its worker and not yet hashed. */
export const WINDOW_BYTES = 512 * 1024;

/**
 * One put's digests: on the main thread while it is small, on a worker once it is not. A put that
 * wants its sha256 alone hashes on the main thread as it goes: at ~0.9 ms per MiB the hand-over
 * would cost about what it saves (a lone 16 MiB put into the local store ran ~20% slower with it).
 */
export class StreamDigests {
  private kept: Buffer[] = [];
  private keptBytes = 0;
  private job: WorkerJob | null = null;
  /** sha256 alone: hashed here as the bytes pass */
  private readonly inline: Hashers | null;

  constructor(
    private readonly set: DigestSet,
    private readonly workers: DigestWorkers = digestWorkers,
  ) {
    this.inline = set.checksums ? null : hashers(set);
  }

  /** Whether the bytes went to a worker (tests). */
  get offThread(): boolean {
    return this.job !== null;
  }

  /**
   * Takes the next chunk (not modified afterwards: the caller hands it on unchanged). A promise:
   * the worker is behind; send no more until it resolves.
   */
  update(chunk: Buffer): Promise<void> | undefined {
    if (this.inline) {
      this.inline.update(chunk);
      return undefined;
    }
    if (this.job) return this.job.update(chunk);
    this.kept.push(chunk);
    this.keptBytes += chunk.length;
    if (this.keptBytes <= OFF_THREAD_BYTES) return undefined;
    this.job = this.workers.start(this.set);
    const kept = this.kept;
    this.kept = [];
    let wait: Promise<void> | undefined;
    for (const c of kept) wait = this.job.update(c) ?? wait;
    return wait;
  }

  /** The digests of every byte given, once the last one was. */
  async digest(): Promise<Digests> {
    if (this.inline) return this.inline.digest();
    if (this.job) return this.job.end();
    const digests = digestsOf(this.kept, this.set);
    this.kept = [];
    return digests;
  }

  /** The put failed: forget it (its worker drops what it holds). */
  drop(): void {
    this.kept = [];
    this.job?.drop();
  }
}

interface Deferred<T> {
  resolve(value: T): void;
  reject(error: Error): void;
}

/** The digests of `chunks`, here and now (small bodies). */
export function digestsOf(chunks: readonly Uint8Array[], set: DigestSet): Digests {
  const h = hashers(set);
  for (const chunk of chunks) h.update(chunk);
  return h.digest();
}

/** The put's answer, with the checksums it was asked for. */
export function withChecksums(info: BlobInfo, digests: Digests): PutInfo {
  if (digests.sha1 === undefined) return info;
  return { ...info, checksums: { sha1: digests.sha1, md5: digests.md5!, crc32: digests.crc32! } };
}

/** One put on a worker: batches, the window, the answer. */
export class WorkerJob {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** bytes sent to the worker and not yet hashed */
  inFlight = 0;
  /** the most `inFlight` was (tests: the window holds) */
  maxInFlight = 0;
  /** resolved once the worker is back within the window (one for every caller that asked meanwhile) */
  private waiter: (Deferred<void> & { promise: Promise<void> }) | null = null;
  private answer: Deferred<Digests> | null = null;
  private failed: Error | null = null;
  private ended = false;

  constructor(
    readonly id: number,
    private readonly send: (message: DigestRequest, transfer?: ArrayBuffer[]) => void,
    private readonly forget: () => void,
  ) {}

  update(chunk: Buffer): Promise<void> | undefined {
    if (this.failed) return Promise.reject(this.failed);
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= BATCH_BYTES) this.post();
    if (this.inFlight <= WINDOW_BYTES) return undefined;
    if (!this.waiter) {
      let deferred!: Deferred<void>;
      const promise = new Promise<void>((resolve, reject) => (deferred = { resolve, reject }));
      this.waiter = { ...deferred, promise };
    }
    return this.waiter.promise;
  }

  end(): Promise<Digests> {
    if (this.failed) return Promise.reject(this.failed);
    this.post();
    this.ended = true;
    return new Promise<Digests>((resolve, reject) => {
      this.answer = { resolve, reject };
      this.send({ id: this.id, op: 'end' });
    });
  }

  drop(): void {
    if (this.failed || this.answer) return;
    this.fail(new Error('the put was dropped'));
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
  settle(reply: DigestReply): void {
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
    if ('digests' in reply) this.answer?.resolve(reply.digests);
    else this.fail(new Error(`digests failed: ${reply.error}`));
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

/** The process's digest workers (see the header). */
export class DigestWorkers {
  private readonly workers: PoolWorker[] = [];
  private ids = 0;

  constructor(readonly size = Math.max(1, Math.min(8, Math.floor(availableParallelism() / 2)))) {}

  /** A new put, on the worker with the fewest puts (a new worker while the pool is not full). */
  start(set: DigestSet): WorkerJob {
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
    w.worker.postMessage({ id, op: 'start', set } satisfies DigestRequest);
    return job;
  }

  /** Puts with a worker now (tests: a failed put leaves none behind). */
  get busy(): number {
    return this.workers.reduce((n, w) => n + w.jobs.size, 0);
  }

  /** Ends every worker (tests: a worker that dies fails its puts). */
  async terminate(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
  }

  private spawn(): PoolWorker {
    const worker = new Worker(new URL('./digest-worker.js', import.meta.url));
    worker.unref();
    const w: PoolWorker = { worker, jobs: new Map() };
    worker.on('message', (reply: DigestReply) => w.jobs.get(reply.id)?.settle(reply));
    const died = (error: Error) => {
      const i = this.workers.indexOf(w);
      if (i >= 0) this.workers.splice(i, 1);
      const jobs = [...w.jobs.values()];
      w.jobs.clear();
      for (const job of jobs) job.fail(error);
    };
    worker.on('error', died);
    worker.on('exit', (code) => died(new Error(`a digest worker exited (${code})`)));
    this.workers.push(w);
    return w;
  }
}

/** The process's pool. */
export const digestWorkers = new DigestWorkers();
