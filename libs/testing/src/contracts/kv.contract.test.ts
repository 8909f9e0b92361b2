/**
 * Runs the KeyValueStore contract against every adapter: in memory and SQLite always (once per SQLite
 * driver this Node can use), NATS JetStream when
 * NATS_URL is set (the test runner starts its private nats-server with JetStream).
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  type BucketOptions,
  type KeyValueStore,
  MemoryKeyValueStore,
  NatsKeyValueStore,
  SqliteKeyValueStore,
} from '@burrow/kv';
import { usableSqliteDrivers } from '@burrow/sqlite';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyValueStoreContract } from './kv.contract.js';

keyValueStoreContract('MemoryKeyValueStore', async () => {
  const store = new MemoryKeyValueStore();
  return { store, peer: store, cleanup: () => store.close() };
});

// two stores over one file: the peer is another connection, as a restarted process would be; once per
// SQLite driver this Node can use (libs/sqlite)
for (const driver of usableSqliteDrivers()) {
  keyValueStoreContract(`SqliteKeyValueStore (${driver.name})`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-kv-'));
    const store = new SqliteKeyValueStore(join(dir, 'kv.sqlite'), { driver });
    const peer = new SqliteKeyValueStore(join(dir, 'kv.sqlite'), { driver });
    return {
      store,
      peer,
      cleanup: async () => {
        await store.close();
        await peer.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  });
}

const natsUrl = process.env.NATS_URL;

/** Remembers the buckets a test opened, so cleanup can remove them from the shared server. */
function recording(store: KeyValueStore, names: Set<string>): KeyValueStore {
  return {
    bucket: <T>(name: string, options: BucketOptions) => {
      names.add(name);
      return store.bucket<T>(name, options);
    },
    close: () => store.close(),
  };
}

keyValueStoreContract(
  'NatsKeyValueStore',
  natsUrl
    ? async () => {
        const connections: NatsConnection[] = [
          await connect({ servers: natsUrl }),
          await connect({ servers: natsUrl }),
        ];
        const names = new Set<string>();
        return {
          store: recording(new NatsKeyValueStore(connections[0]), names),
          peer: recording(new NatsKeyValueStore(connections[1]), names),
          cleanup: async () => {
            const jsm = await jetstreamManager(connections[0]);
            for (const name of names) await jsm.streams.delete(`KV_${name}`).catch(() => undefined);
            for (const nc of connections) await nc.close();
          },
        };
      }
    : null,
  'NATS_URL not set: no NATS server for this run',
);
