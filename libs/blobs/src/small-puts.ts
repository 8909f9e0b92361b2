/**
 * Small puts' file work on a few worker threads (put-worker.ts), one message each way per put.
 *
 * Why: a 4 KiB upload's put made about a dozen thread-pool jobs (the temporary file's open, write,
 * fsync and close, the rename, the folder's open, fsync and close, and the folders a put makes),
 * each a dispatch from the main thread and a callback on it; on a loaded machine each wake-up of a
 * pool thread can also take the main thread's core. The main thread of a server is what a small
 * upload is bound by (issue 23, docs/performance.md), so its share of the put is handed over whole.
 *
 * The pool is one per process (every LocalBlobStore shares it), started at the first small put,
 * and keeps the process alive only while a put is under way. A worker that dies fails its puts
 * (their callers see the error; the temporary file, if any, is left to the next start's sweep) and
 * is replaced at the next put.
 */
import { Worker } from 'node:worker_threads';
import type { SmallPutReply, SmallPutRequest } from './put-worker.js';

interface PoolWorker {
  worker: Worker;
  waiting: Map<number, { resolve: () => void; reject: (error: Error) => void }>;
}

/** What a failed put reports: the worker's error, with its code (ENOSPC: the disk is full). */
function failure({ message, code }: NonNullable<SmallPutReply['error']>): Error {
  return Object.assign(new Error(message), code ? { code } : {});
}

export class SmallPuts {
  private readonly workers: PoolWorker[] = [];
  private next = 0;
  private ids = 0;

  constructor(readonly size: number) {}

  /** Runs one put on a worker; resolves once it is durable (put-worker.ts). */
  run(put: Omit<SmallPutRequest, 'id'>, transfer: ArrayBuffer[]): Promise<void> {
    const w = this.pick();
    const id = ++this.ids;
    return new Promise<void>((resolve, reject) => {
      if (w.waiting.size === 0) w.worker.ref();
      w.waiting.set(id, { resolve, reject });
      w.worker.postMessage({ ...put, id } satisfies SmallPutRequest, transfer);
    });
  }

  private pick(): PoolWorker {
    if (this.workers.length < this.size) return this.start();
    // round robin: the puts are alike
    this.next = (this.next + 1) % this.workers.length;
    return this.workers[this.next];
  }

  private start(): PoolWorker {
    const worker = new Worker(new URL('./put-worker.js', import.meta.url));
    worker.unref();
    const w: PoolWorker = { worker, waiting: new Map() };
    const settle = (reply: SmallPutReply) => {
      const waiter = w.waiting.get(reply.id);
      if (!waiter) return;
      w.waiting.delete(reply.id);
      if (w.waiting.size === 0) worker.unref();
      if (reply.error) waiter.reject(failure(reply.error));
      else waiter.resolve();
    };
    const died = (error: Error) => {
      const i = this.workers.indexOf(w);
      if (i >= 0) this.workers.splice(i, 1);
      for (const waiter of w.waiting.values()) waiter.reject(error);
      w.waiting.clear();
    };
    worker.on('message', settle);
    worker.on('error', died);
    worker.on('exit', (code) => died(new Error(`a blob put worker exited (${code})`)));
    this.workers.push(w);
    return w;
  }
}
