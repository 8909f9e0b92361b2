/**
 * The projection runner's progress while its read models catch up with the event store
 * (projection-runner.ts): a log line every few seconds with the position, the head and the rate,
 * one when they have caught up, and the heap's growth bounded meanwhile (batch-limits.ts).
 */
import { boundHeapGrowth } from './batch-limits.js';

export class CatchUpProgress {
  private progress: { timer: NodeJS.Timeout; from: number; startedAt: number } | null = null;

  constructor(
    /** between two log lines (ms) */
    private readonly everyMs: number,
    private readonly headPosition: () => Promise<number>,
    /** the runner's position */
    private readonly position: () => number,
    private readonly log: (level: 'info', msg: string, extra?: object) => void,
  ) {}

  /** catching up: started and not stopped */
  get active(): boolean {
    return this.progress !== null;
  }

  /** While catching up: a log line every few seconds with the position, the head and the rate. */
  start(from: number): void {
    if (this.progress) return;
    const timer = setInterval(() => {
      void this.headPosition().then(
        (head) => {
          if (!this.progress) return;
          const seconds = (Date.now() - this.progress.startedAt) / 1000;
          this.log('info', 'read models catching up', {
            position: this.position(),
            head,
            eventsPerSecond: Math.round((this.position() - from) / seconds),
          });
        },
        () => undefined,
      );
    }, this.everyMs);
    timer.unref();
    this.progress = { timer, from, startedAt: Date.now() };
    boundHeapGrowth(true);
  }

  /** `done`: caught up (logs the rate of the whole catch-up). */
  stop(done = false): void {
    if (!this.progress) return;
    clearInterval(this.progress.timer);
    boundHeapGrowth(false);
    if (done) {
      const seconds = (Date.now() - this.progress.startedAt) / 1000;
      const events = this.position() - this.progress.from;
      if (events > 0)
        this.log('info', 'read models caught up', {
          position: this.position(),
          seconds,
          eventsPerSecond: Math.round(events / Math.max(seconds, 0.001)),
        });
    }
    this.progress = null;
  }
}
