/**
 * Embedded KeyValueStore: buckets in this process's memory (standalone mode, where every app
 * shares the process). Values cross as JSON, as they would over NATS, so no caller shares an
 * object with the store.
 *
 * Expiry: an entry is dead once its TTL has passed since its last write; dead entries are never
 * returned and are swept as writes happen. Each bucket holds at most `maxEntries` live entries:
 * past that the least recently written is dropped, so a flood of distinct keys cannot exhaust
 * memory (for login counters that means a flood can make the store forget old counters sooner).
 */
import {
  type BucketOptions,
  checkBucketName,
  checkKey,
  checkTtl,
  type KeyValueStore,
  type KvBucket,
  type KvEntry,
} from './port.js';

export interface MemoryKeyValueStoreOptions {
  /** milliseconds; injectable so tests can move time */
  now?: () => number;
  /** live entries per bucket before the oldest is dropped (default 100,000) */
  maxEntries?: number;
}

interface Stored {
  json: string;
  revision: number;
  writtenAt: number;
}

class MemoryBucket<T> implements KvBucket<T> {
  /** in order of last write (each write re-inserts), so the oldest are first */
  private readonly entries = new Map<string, Stored>();

  constructor(
    readonly name: string,
    public ttlMs: number,
    private readonly store: { now(): number; nextRevision(): number; maxEntries: number },
  ) {}

  private live(key: string): Stored | undefined {
    const stored = this.entries.get(key);
    if (stored && this.store.now() - stored.writtenAt >= this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return stored;
  }

  private write(key: string, value: T): number {
    const revision = this.store.nextRevision();
    this.entries.delete(key);
    this.entries.set(key, { json: JSON.stringify(value), revision, writtenAt: this.store.now() });
    this.sweep();
    return revision;
  }

  /** Drops expired entries (the oldest come first), then the oldest live ones past the limit. */
  private sweep(): void {
    const now = this.store.now();
    for (const [key, stored] of this.entries) {
      if (now - stored.writtenAt < this.ttlMs && this.entries.size <= this.store.maxEntries) break;
      this.entries.delete(key);
    }
  }

  async get(key: string): Promise<KvEntry<T> | null> {
    checkKey(key);
    const stored = this.live(key);
    return stored ? { value: JSON.parse(stored.json) as T, revision: stored.revision } : null;
  }

  async create(key: string, value: T): Promise<number | null> {
    checkKey(key);
    return this.live(key) ? null : this.write(key, value);
  }

  async update(key: string, value: T, revision: number): Promise<number | null> {
    checkKey(key);
    return this.live(key)?.revision === revision ? this.write(key, value) : null;
  }

  async delete(key: string): Promise<void> {
    checkKey(key);
    this.entries.delete(key);
  }
}

export class MemoryKeyValueStore implements KeyValueStore {
  private readonly buckets = new Map<string, MemoryBucket<unknown>>();
  private revision = 0;
  private readonly shared: { now(): number; nextRevision(): number; maxEntries: number };

  constructor(options: MemoryKeyValueStoreOptions = {}) {
    this.shared = {
      now: options.now ?? Date.now,
      nextRevision: () => ++this.revision,
      maxEntries: options.maxEntries ?? 100_000,
    };
  }

  async bucket<T>(name: string, options: BucketOptions): Promise<KvBucket<T>> {
    checkBucketName(name);
    checkTtl(options);
    let bucket = this.buckets.get(name);
    if (!bucket) {
      bucket = new MemoryBucket<unknown>(name, options.ttlMs, this.shared);
      this.buckets.set(name, bucket);
    }
    bucket.ttlMs = options.ttlMs;
    return bucket as KvBucket<T>;
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }
}
