/**
 * A read-model database's WAL checkpoints, off the main thread (issue 37).
 *
 * SQLite checkpoints a WAL database in the commit that takes the log past `wal_autocheckpoint`
 * pages (1,000 by default): that commit, on the main thread, copies the log's pages into the
 * database file and, at `synchronous = NORMAL`, fsyncs the log and the file. Measured in the
 * standalone server (1,000 uploads of 4 KiB, 4 at a time, each statement timed): the storage
 * catalog's read-model commits took 358 µs on average with those checkpoints and 209-235 µs
 * without, about 3% of an upload's main thread, and every ~25th commit (and the request waiting
 * for it) paid milliseconds at once.
 *
 * So the store's connection checkpoints only past `FALLBACK_AUTOCHECKPOINT_PAGES` (a safety valve
 * should this thread stall or die), and `committed()` asks a worker thread, one per process, to
 * run a PASSIVE checkpoint on a connection of its own `CHECKPOINT_DELAY_MS` after a commit (the
 * commits meanwhile share it). A passive checkpoint never blocks a writer or a reader; what it
 * cannot copy yet (a reader still on older pages) the next one does. Nothing about durability
 * changes: a commit is in the log either way, and the checkpoint is the same SQLite operation.
 *
 * `close()` closes the worker's connection first, so the store's own close is the file's last and
 * checkpoints and removes the log as before.
 */
import type { SqliteDriverName } from '@burrow/sqlite';
import { Worker } from 'node:worker_threads';
import type { CheckpointReply, CheckpointRequest } from './wal-checkpoint-worker.js';

/** how long after a commit the worker is asked to checkpoint */
export const CHECKPOINT_DELAY_MS = 100;
/** the store connection's own threshold, kept as a safety valve (pages; SQLite's default is 1,000) */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000;

type Outcome = { log: number; checkpointed: number };
type Request = { op: 'checkpoint'; file: string; driver: SqliteDriverName } | { op: 'close'; file: string };

/** The process's checkpoint thread: started at the first request, replaced after it dies. */
class CheckpointThread {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(o: Outcome): void; reject(e: Error): void }>();

  request(request: Request): Promise<Outcome> {
    const worker = this.started();
    const id = this.nextId++;
    return new Promise<Outcome>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.ref(); // an answer is awaited
      worker.postMessage({ id, ...request } satisfies CheckpointRequest);
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./wal-checkpoint-worker.js', import.meta.url));
    worker.unref();
    worker.on('message', (reply: CheckpointReply) => {
      const waiter = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) worker.unref();
      if ('error' in reply) waiter?.reject(new Error(`WAL checkpoint: ${reply.error}`));
      else waiter?.resolve(reply);
    });
    const gone = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = null;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    worker.on('error', gone);
    worker.on('exit', (code) => gone(new Error(`the WAL checkpoint thread exited (${code})`)));
    this.worker = worker;
    return worker;
  }
}

const thread = new CheckpointThread();

export class WalCheckpoints {
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** a checkpoint was asked for: the worker may hold a connection to the file */
  private asked = false;
  /** checkpoints the worker ran for this file, and the last one's counts (tests, metrics) */
  runs = 0;
  last: Outcome | null = null;
  /** the last checkpoint that failed (it is tried again after the next commit) */
  lastError: string | null = null;

  constructor(
    private readonly file: string,
    private readonly driver: SqliteDriverName,
  ) {}

  /** A commit was made: a checkpoint follows within `CHECKPOINT_DELAY_MS`. */
  committed(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.checkpoint().catch(() => undefined);
    }, CHECKPOINT_DELAY_MS);
    this.timer.unref();
  }

  /** A checkpoint now, on the worker; resolves with SQLite's counts (frames in the log, and copied). */
  async checkpoint(): Promise<Outcome> {
    if (this.closed) throw new Error('the store is closed');
    this.asked = true;
    try {
      const outcome = await thread.request({ op: 'checkpoint', file: this.file, driver: this.driver });
      this.runs += 1;
      this.last = outcome;
      this.lastError = null;
      return outcome;
    } catch (error) {
      this.lastError = (error as Error).message;
      throw error;
    }
  }

  /** Before the store's connection closes: the worker's closes first. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // a store that never asked leaves the thread alone (it may not even be started)
    if (this.asked) await thread.request({ op: 'close', file: this.file }).catch(() => undefined);
  }
}
