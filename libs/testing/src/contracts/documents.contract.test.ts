/**
 * Runs the DocumentStore contract against every adapter: in-memory and SQLite always, MongoDB when
 * MONGODB_URL is set (each fixture uses its own throw-away database).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MemoryDocumentStore, MongoDocumentStore, SqliteDocumentStore } from '@burrow/documents';
import { documentStoreContract } from './documents.contract.js';
import { rejection, silentPort, uniqueId } from './util.js';

documentStoreContract('MemoryDocumentStore', async () => {
  const store = new MemoryDocumentStore();
  return { store, cleanup: () => store.close() };
});

documentStoreContract('SqliteDocumentStore', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'burrow-docs-'));
  const store = SqliteDocumentStore.open(join(dir, 'read-models.sqlite'));
  return {
    store,
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

const mongoUrl = process.env.MONGODB_URL;
documentStoreContract(
  'MongoDocumentStore',
  mongoUrl
    ? async () => {
        const store = await MongoDocumentStore.connect(mongoUrl, uniqueId('burrow_test_'));
        return {
          store,
          cleanup: async () => {
            await store.dropAll();
            await store.close();
          },
        };
      }
    : null,
  'MONGODB_URL not set: no MongoDB server on this machine',
);

describe('MongoDocumentStore.connect (no server needed)', () => {
  it('fails within its timeout against a port that never answers', async () => {
    const silent = await silentPort();
    try {
      const started = Date.now();
      const error = await rejection(
        MongoDocumentStore.connect(`mongodb://127.0.0.1:${silent.port}/x`, undefined, { serverSelectionTimeoutMs: 500 }),
      );
      const elapsed = Date.now() - started;
      assert.ok(error instanceof Error);
      assert.match(error.message, /not reachable/);
      assert.ok(elapsed < 5_000, `took ${elapsed} ms`);
    } finally {
      await silent.close();
    }
  });
});
