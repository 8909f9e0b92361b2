/**
 * When a failed delivery is tried again: exponential backoff from a base (doubling per attempt,
 * capped at an hour, with up to 10% jitter so a receiver coming back is not hit by every retry at
 * once), for as long as the retry window lasts (at least 24 hours; 72 by default). The base is
 * configurable so tests retry in milliseconds.
 */
export interface RetryPolicy {
  baseMs: number;
  maxDelayMs: number;
  /** retries stop once the next attempt would fall this long after the delivery was created */
  windowMs: number;
}

export const MAX_RETRY_DELAY_MS = 3_600_000;

export function retryDelay(policy: RetryPolicy, failedAttempts: number, random: () => number = Math.random): number {
  const exponential = policy.baseMs * 2 ** Math.min(failedAttempts - 1, 40);
  const capped = Math.min(exponential, policy.maxDelayMs);
  return Math.round(capped * (1 + 0.1 * random()));
}

/** The next attempt's time (ms), or null when the window is over. */
export function nextAttemptAt(
  policy: RetryPolicy,
  createdAtMs: number,
  failedAttempts: number,
  nowMs: number,
  random?: () => number,
): number | null {
  const next = nowMs + retryDelay(policy, failedAttempts, random);
  return next > createdAtMs + policy.windowMs ? null : next;
}
