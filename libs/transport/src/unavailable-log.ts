/**
 * Logs the 503s an RpcClient answers, rate-limited so an outage does not flood the log: the first
 * one at once, with its subject and cause; the rest of that interval are counted and logged as one
 * summary line ("N more 503s suppressed", with counts per subject) when the interval ends.
 */
import type { TransportLogger } from './transport-logger.js';

export const UNAVAILABLE_LOG_INTERVAL_MS = 10_000;

export class UnavailableLog {
  private windowEnd = 0;
  private readonly suppressed = new Map<string, number>();
  private lastCause = '';
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly log: TransportLogger,
    private readonly intervalMs = UNAVAILABLE_LOG_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  report(subject: string, cause: string): void {
    const now = this.now();
    if (now < this.windowEnd) {
      this.suppressed.set(subject, (this.suppressed.get(subject) ?? 0) + 1);
      this.lastCause = cause;
      return;
    }
    this.flush();
    this.log.warn({ subject, cause }, 'service unavailable: answered 503');
    this.windowEnd = now + this.intervalMs;
    this.timer = setTimeout(() => this.flush(), this.intervalMs);
    this.timer.unref();
  }

  /** Logs the summary of what was suppressed, if anything (at the end of each interval). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const count = [...this.suppressed.values()].reduce((a, b) => a + b, 0);
    if (count === 0) return;
    this.log.warn(
      { suppressed: count, subjects: Object.fromEntries(this.suppressed), lastCause: this.lastCause },
      `${count} more 503s suppressed`,
    );
    this.suppressed.clear();
  }
}
