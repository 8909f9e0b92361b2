/**
 * The one retry policy for optimistic concurrency: a write that loses a race re-reads and tries
 * again, a bounded number of times, after a short random pause that grows with the attempt (so
 * competing writers spread out). Past the bound the caller gets a 503 it may retry.
 */
import { serviceUnavailable } from '@burrow/contracts';
import { WrongExpectedRevisionError } from '@burrow/event-store';

export interface RetryPolicy {
  maxAttempts: number;
  /** upper bound of the random pause before attempt n is min(maxPauseMs, n * pauseStepMs) */
  pauseStepMs: number;
  maxPauseMs: number;
}

export const CONFLICT_RETRY: RetryPolicy = { maxAttempts: 50, pauseStepMs: 2, maxPauseMs: 50 };

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `attempt` until it does not throw WrongExpectedRevisionError. `what` names the contended
 * thing in the 503 ("user", "allocation ledger").
 */
export async function retryOnConflict<T>(
  what: string,
  attempt: (n: number) => Promise<T>,
  policy: RetryPolicy = CONFLICT_RETRY,
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (n >= policy.maxAttempts) throw serviceUnavailable(`too much contention on the ${what}; retry`);
      await pause(Math.random() * Math.min(policy.maxPauseMs, n * policy.pauseStepMs));
    }
  }
}
