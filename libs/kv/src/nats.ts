/**
 * Production KeyValueStore: NATS JetStream key-value buckets (`@nats-io/kv`), on the NATS server
 * the services already share. A bucket is a stream `KV_<name>` keeping one value per key
 * (history 1) whose `max_age` is the bucket's TTL; a revision is the stream sequence of the
 * entry's last write, and conditional writes use JetStream's expected-last-subject-sequence check,
 * so compare-and-set is decided by the server, across every replica.
 *
 * The server must run with JetStream (`nats-server -js`, or `jetstream {}` in its configuration).
 * The connection is the caller's: closing the store does not close it.
 */
import { JetStreamApiCodes, JetStreamApiError, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { type KV, Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  type BucketOptions,
  checkBucketName,
  checkKey,
  checkTtl,
  type KeyValueStore,
  type KvBucket,
  type KvEntry,
} from './port.js';

const nanos = (ms: number) => ms * 1_000_000;

/** The write was refused because the key's last revision was not the one expected. */
function isWrongRevision(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === JetStreamApiCodes.StreamWrongLastSequence ||
      error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

class NatsBucket<T> implements KvBucket<T> {
  constructor(
    readonly name: string,
    private readonly kv: KV,
  ) {}

  async get(key: string): Promise<KvEntry<T> | null> {
    checkKey(key);
    const entry = await this.kv.get(key);
    if (!entry || entry.operation !== 'PUT') return null;
    return { value: entry.json<T>(), revision: entry.revision };
  }

  async create(key: string, value: T): Promise<number | null> {
    checkKey(key);
    try {
      // succeeds when there is no entry or only a delete marker (the client then retries at the
      // marker's revision)
      return await this.kv.create(key, JSON.stringify(value));
    } catch (error) {
      if (isWrongRevision(error)) return null;
      throw error;
    }
  }

  async update(key: string, value: T, revision: number): Promise<number | null> {
    checkKey(key);
    try {
      return await this.kv.update(key, JSON.stringify(value), revision);
    } catch (error) {
      if (isWrongRevision(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    checkKey(key);
    await this.kv.delete(key);
  }
}

export interface NatsKeyValueStoreOptions {
  /** how long each key-value request waits for JetStream (default 2000 ms, under the gateway's wait for a reply) */
  timeoutMs?: number;
}

export class NatsKeyValueStore implements KeyValueStore {
  private readonly kvm: Kvm;
  private readonly timeout: number;

  constructor(
    private readonly nc: NatsConnection,
    options: NatsKeyValueStoreOptions = {},
  ) {
    this.timeout = options.timeoutMs ?? 2000;
    this.kvm = new Kvm(jetstream(nc, { timeout: this.timeout }));
  }

  async bucket<T>(name: string, options: BucketOptions): Promise<KvBucket<T>> {
    checkBucketName(name);
    checkTtl(options);
    let kv: KV;
    try {
      kv = await this.kvm.create(name, { ttl: options.ttlMs, history: 1 });
      // An existing bucket keeps the configuration it was created with: bring its TTL in line.
      const jsm = await jetstreamManager(this.nc, { timeout: this.timeout });
      const info = await jsm.streams.info(`KV_${name}`);
      const maxAge = nanos(options.ttlMs);
      if (info.config.max_age !== maxAge) {
        // the duplicate-detection window may not be longer than the age limit
        const duplicates = Math.min(info.config.duplicate_window ?? maxAge, maxAge);
        await jsm.streams.update(`KV_${name}`, { ...info.config, max_age: maxAge, duplicate_window: duplicates });
      }
    } catch (error) {
      const cause = (error as Error).message.replace(/\.$/, '');
      throw new Error(
        `key-value bucket ${name} could not be opened: ${cause}. The NATS server must run with JetStream (nats-server -js, or "jetstream {}" in its configuration).`,
        { cause: error },
      );
    }
    return new NatsBucket<T>(name, kv);
  }

  async close(): Promise<void> {
    // the connection belongs to the caller
  }
}
