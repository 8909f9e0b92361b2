/**
 * Counts failures per key in a sliding window and says when a key must wait. Used to rate-limit
 * failed logins per account (accounts service) and per client address (gateway). Per process: with
 * N replicas an attacker gets at most N times the budget, which still bounds guessing.
 */
export interface FailureLimiterOptions {
  maxFailures: number;
  windowMs: number;
  /** upper bound on tracked keys, so a flood of distinct keys cannot exhaust memory */
  maxKeys?: number;
  now?: () => number;
}

export class FailureLimiter {
  private readonly failures = new Map<string, number[]>();
  private readonly now: () => number;

  constructor(private readonly options: FailureLimiterOptions) {
    this.now = options.now ?? Date.now;
  }

  private recent(key: string): number[] {
    const since = this.now() - this.options.windowMs;
    const list = (this.failures.get(key) ?? []).filter((t) => t > since);
    if (list.length) this.failures.set(key, list);
    else this.failures.delete(key);
    return list;
  }

  /** Seconds to wait before trying again, or 0 when the key may try now. */
  retryAfter(key: string): number {
    const list = this.recent(key);
    if (list.length < this.options.maxFailures) return 0;
    return Math.max(1, Math.ceil((list[0] + this.options.windowMs - this.now()) / 1000));
  }

  fail(key: string): void {
    if (!this.failures.has(key) && this.failures.size >= (this.options.maxKeys ?? 100_000)) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
    this.failures.set(key, [...this.recent(key), this.now()]);
  }

  reset(key: string): void {
    this.failures.delete(key);
  }
}
