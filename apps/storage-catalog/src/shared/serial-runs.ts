/**
 * Background work of this service (the purger, the blob reaper, the scrub): a process runs it one
 * run after another (a run asked for while one is under way starts when that one ends), and a
 * stop lets the run under way end at its next step, which checks `stopped`.
 */
export class SerialRuns {
  private chain: Promise<unknown> = Promise.resolve();
  /** true once `stop` was called: a run checks it between its steps and ends early */
  stopped = false;

  /** Runs `once` after any run still going; resolves with its result. */
  run<T>(once: () => Promise<T>): Promise<T> {
    const next = this.chain.then(once);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Resolves when the run under way (if any) has stopped. */
  stop(): Promise<void> {
    this.stopped = true;
    return this.chain.then(() => undefined);
  }
}
