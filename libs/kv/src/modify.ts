/**
 * Read-modify-write of one entry while other replicas may write it too: read, compute the next
 * value, write it conditionally (`create` when absent, `update` at the revision read), and start
 * over when another writer got in between. Every change therefore applies to the latest value:
 * 50 concurrent increments of one counter land exactly 50.
 */
import type { KvBucket } from './port.js';

export class KvContentionError extends Error {
  constructor(
    readonly bucket: string,
    readonly attempts: number,
  ) {
    super(`key-value bucket ${bucket}: no write succeeded after ${attempts} attempts (too much contention on one key)`);
    this.name = 'KvContentionError';
  }
}

export interface Modified<T> {
  /** the value now stored (what was written, or the current value when nothing was) */
  value: T | null;
  /** the revision of `value` (0 when there is none) */
  revision: number;
  written: boolean;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * `change` receives the current value (null when absent) and returns the value to store, or
 * `undefined` to leave the entry as it is. It may run several times: keep it free of side effects.
 */
export async function modify<T>(
  bucket: KvBucket<T>,
  key: string,
  change: (current: T | null) => T | undefined,
  options: { attempts?: number } = {},
): Promise<Modified<T>> {
  const attempts = options.attempts ?? 100;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const current = await bucket.get(key);
    const next = change(current ? current.value : null);
    if (next === undefined)
      return { value: current ? current.value : null, revision: current?.revision ?? 0, written: false };
    const revision = current ? await bucket.update(key, next, current.revision) : await bucket.create(key, next);
    if (revision !== null) return { value: next, revision, written: true };
    // Lost the race: back off a little, more as contention persists, with jitter so the losers
    // do not collide again in lockstep.
    await pause(Math.random() * Math.min(2 ** attempt, 50));
  }
  throw new KvContentionError(bucket.name, attempts);
}
