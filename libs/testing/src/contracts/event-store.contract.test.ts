/**
 * Runs the EventStore contract against every adapter: SQLite always, EventStoreDB when
 * EVENTSTORE_URL is set.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EsdbEventStore, SqliteEventStore } from '@burrow/event-store';
import { eventStoreContract } from './event-store.contract.js';
import { rejection, silentPort } from './util.js';

eventStoreContract('SqliteEventStore', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'burrow-events-'));
  const store = SqliteEventStore.open(join(dir, 'events.sqlite'), { pollIntervalMs: 20 });
  return {
    store,
    empty: true,
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

const esdbUrl = process.env.EVENTSTORE_URL;
eventStoreContract(
  'EsdbEventStore',
  esdbUrl
    ? async () => {
        const store = await EsdbEventStore.connect(esdbUrl);
        return { store, cleanup: () => store.close() };
      }
    : null,
  'EVENTSTORE_URL not set: no EventStoreDB server on this machine',
);

describe('EsdbEventStore.connect (no server needed)', () => {
  it('fails within its own timeout against a port that never answers', async () => {
    const silent = await silentPort();
    try {
      const started = Date.now();
      const error = await rejection(
        EsdbEventStore.connect(`esdb://127.0.0.1:${silent.port}?tls=false`, { connectTimeoutMs: 500 }),
      );
      const elapsed = Date.now() - started;
      assert.ok(error instanceof Error);
      assert.match(error.message, /not reachable/);
      assert.ok(elapsed < 5_000, `took ${elapsed} ms`);
    } finally {
      await silent.close();
    }
  });

  it('fails when nothing listens', async () => {
    const silent = await silentPort();
    const port = silent.port;
    await silent.close(); // now nothing listens on it
    const error = await rejection(EsdbEventStore.connect(`esdb://127.0.0.1:${port}?tls=false`, { connectTimeoutMs: 2_000 }));
    assert.ok(error instanceof Error);
  });
});
