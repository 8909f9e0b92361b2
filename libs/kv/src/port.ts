/**
 * The KeyValueStore port: small, short-lived state that every replica must see alike (failed-login
 * counters today, a revocation list of logged-out sessions later). Not a database: values are
 * small JSON documents that may vanish when their bucket's TTL passes.
 *
 * Named buckets, each with a TTL counted from an entry's last write. Every write returns a
 * revision, and writes can be conditional on it: `create` only when the key is absent, `update`
 * only when the entry is still at the revision the caller read (compare-and-set). That is how
 * several replicas update one counter without losing increments (see `modify`).
 */

export interface KvEntry<T> {
  value: T;
  /** changes with every write; only meaningful for `update` */
  revision: number;
}

export interface BucketOptions {
  /** an entry expires this long after its last write (milliseconds) */
  ttlMs: number;
}

export interface KvBucket<T> {
  readonly name: string;
  /** The live entry, or null when absent, deleted or expired. */
  get(key: string): Promise<KvEntry<T> | null>;
  /** Writes only when the key has no live entry: the new revision, or null when it has one. */
  create(key: string, value: T): Promise<number | null>;
  /** Writes only when the key's entry is still at `revision`: the new revision, or null otherwise. */
  update(key: string, value: T, revision: number): Promise<number | null>;
  /** Deleting an absent key is not an error. */
  delete(key: string): Promise<void>;
}

export interface KeyValueStore {
  /**
   * Opens a bucket, creating it when missing. A bucket that exists with another TTL gets the TTL
   * asked for (the code's policy is what counts, not a previous version's).
   */
  bucket<T>(name: string, options: BucketOptions): Promise<KvBucket<T>>;
  close(): Promise<void>;
}

const BUCKET_NAME = /^[A-Za-z0-9_-]+$/;
/** Dot-separated tokens of letters, digits, `_`, `-` and `=` (what NATS accepts, minus wildcards). */
const KEY = /^[A-Za-z0-9_=-]+(?:\.[A-Za-z0-9_=-]+)*$/;

export function checkBucketName(name: string): void {
  if (!BUCKET_NAME.test(name)) throw new RangeError(`invalid bucket name "${name}": letters, digits, _ and - only`);
}

export function checkKey(key: string): void {
  if (typeof key !== 'string' || key.length > 512 || !KEY.test(key)) {
    throw new RangeError(`invalid key "${key}": dot-separated tokens of letters, digits, _, - and =`);
  }
}

export function checkTtl(options: BucketOptions): void {
  if (!Number.isInteger(options.ttlMs) || options.ttlMs < 1000)
    throw new RangeError(`bucket TTL must be a whole number of milliseconds, at least 1000 (got ${options.ttlMs})`);
}
