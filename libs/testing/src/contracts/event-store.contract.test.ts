/**
 * Runs the EventStore contract against every adapter: SQLite always (once per SQLite driver this Node
 * can use); PostgreSQL when POSTGRES_URL names a server (the test runner sets it when one listens on
 * 127.0.0.1:5432), in a database made for this run and dropped after it; KurrentDB (EventStoreDB)
 * when EVENTSTORE_URL points at one.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  createPostgresDatabase,
  dropPostgresDatabase,
  EsdbEventStore,
  PostgresEventStore,
  SqliteEventStore,
} from '@burrow/event-store';
import { type SqliteDriver, usableSqliteDrivers } from '@burrow/sqlite';
import { type EventStoreFixture, eventStoreContract } from './event-store.contract.js';
import { rejection, silentPort } from './util.js';

const sqliteFixture = (driver: SqliteDriver) => async (): Promise<EventStoreFixture> => {
  const dir = await mkdtemp(join(tmpdir(), 'burrow-events-'));
  const file = join(dir, 'events.sqlite');
  const store = SqliteEventStore.open(file, { pollIntervalMs: 20, driver });
  return {
    store,
    empty: true,
    reopen: async () => SqliteEventStore.open(file, { pollIntervalMs: 20, driver }),
    another: async () => {
      const other = await sqliteFixture(driver)();
      return { store: other.store, cleanup: other.cleanup };
    },
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
};
// once per SQLite driver this Node can use (libs/sqlite)
for (const driver of usableSqliteDrivers())
  eventStoreContract(`SqliteEventStore (${driver.name})`, sqliteFixture(driver));

/** Databases this run made on the PostgreSQL server, dropped when the file's tests end. */
const postgresServer = process.env.POSTGRES_URL;
const madeDatabases: string[] = [];
async function newDatabase(server: string): Promise<string> {
  const name = `burrow_test_${randomBytes(6).toString('hex')}`;
  madeDatabases.push(name);
  return createPostgresDatabase(server, name);
}
after(async () => {
  if (postgresServer) for (const name of madeDatabases) await dropPostgresDatabase(postgresServer, name);
});

let runDatabase: Promise<string> | undefined;
const postgresFixture = (server: string) => async (): Promise<EventStoreFixture> => {
  runDatabase ??= newDatabase(server);
  const url = await runDatabase;
  // a long poll interval: live delivery must come from LISTEN/NOTIFY, not from polling
  const store = await PostgresEventStore.connect(url, { pollIntervalMs: 30_000 });
  return {
    store,
    reopen: () => PostgresEventStore.connect(url, { pollIntervalMs: 30_000 }),
    another: async () => {
      const other = await PostgresEventStore.connect(await newDatabase(server));
      return { store: other, cleanup: () => other.close() };
    },
    cleanup: () => store.close(),
  };
};
eventStoreContract(
  'PostgresEventStore',
  postgresServer ? postgresFixture(postgresServer) : null,
  'POSTGRES_URL not set and no PostgreSQL server on 127.0.0.1:5432',
);

const esdbUrl = process.env.EVENTSTORE_URL;
const kurrent = esdbUrl && /^(esdb|kurrentdb)(\+discover)?:/.test(esdbUrl) ? esdbUrl : undefined;
eventStoreContract(
  'EsdbEventStore (KurrentDB)',
  kurrent
    ? async () => {
        const store = await EsdbEventStore.connect(kurrent);
        return { store, reopen: () => EsdbEventStore.connect(kurrent), cleanup: () => store.close() };
      }
    : null,
  esdbUrl
    ? `EVENTSTORE_URL is not a KurrentDB (esdb:// or kurrentdb://) URL`
    : 'EVENTSTORE_URL not set: no KurrentDB (EventStoreDB) server on this machine (it cannot run here)',
  // its Node client has no append over several streams: file commits stay CommitFile workflows
  { atomicAppends: false },
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
    const error = await rejection(
      EsdbEventStore.connect(`kurrentdb://127.0.0.1:${port}?tls=false`, { connectTimeoutMs: 2_000 }),
    );
    assert.ok(error instanceof Error);
  });
});

describe('PostgresEventStore.connect (no server needed)', () => {
  it('fails within its timeout, naming the server without its password, against a port that never answers', async () => {
    const silent = await silentPort();
    try {
      const error = await rejection(
        PostgresEventStore.connect(`postgres://burrow:s3cret@127.0.0.1:${silent.port}/events`, {
          connectTimeoutMs: 500,
        }),
      );
      assert.ok(error instanceof Error);
      assert.match(error.message, /PostgreSQL at postgres:\/\/\*\*\*@127\.0\.0\.1:\d+\/events is not reachable/);
      assert.doesNotMatch(error.message, /s3cret/);
    } finally {
      await silent.close();
    }
  });
});
