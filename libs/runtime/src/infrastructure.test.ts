import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  createPostgresDatabase,
  dropPostgresDatabase,
  PostgresEventStore,
  type SqliteEventStore,
} from '@burrow/event-store';
import { readConfig } from './config.js';
import { Infrastructure } from './infrastructure.js';

async function openedSynchronous(env: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'burrow-infra-'));
  const infra = new Infrastructure(readConfig({ BURROW_DATA_DIR: dir, ...env }));
  try {
    return ((await infra.eventStore()) as SqliteEventStore).synchronous();
  } finally {
    await infra.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('Infrastructure: embedded event store durability', () => {
  it('opens the SQLite store with synchronous=FULL by default', async () => {
    assert.equal(await openedSynchronous({}), 'full');
  });

  it('honours BURROW_SQLITE_SYNCHRONOUS=normal', async () => {
    assert.equal(await openedSynchronous({ BURROW_SQLITE_SYNCHRONOUS: 'normal' }), 'normal');
  });
});

describe('Infrastructure: the event store chosen by EVENTSTORE_URL', () => {
  const server = process.env.POSTGRES_URL;
  it(
    'postgres:// and postgresql:// select the PostgreSQL store',
    { skip: server ? false : 'POSTGRES_URL not set and no PostgreSQL server on 127.0.0.1:5432' },
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'burrow-infra-'));
      const name = `burrow_test_${randomBytes(6).toString('hex')}`;
      const url = await createPostgresDatabase(server!, name);
      try {
        for (const scheme of ['postgres:', 'postgresql:']) {
          const infra = new Infrastructure(
            readConfig({ BURROW_DATA_DIR: dir, EVENTSTORE_URL: url.replace(/^postgres(ql)?:/, scheme) }),
          );
          try {
            const store = await infra.eventStore();
            assert.ok(store instanceof PostgresEventStore, `${scheme} gave ${store.constructor.name}`);
            await store.append('s-1', [{ type: 'A', data: {} }], 'any');
          } finally {
            await infra.close();
          }
        }
        assert.equal(existsSync(join(dir, 'events.sqlite')), false, 'no SQLite file was made');
      } finally {
        await dropPostgresDatabase(server!, name);
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it('kurrentdb:// selects KurrentDB (failing clearly when nothing answers)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-infra-'));
    const infra = new Infrastructure(
      readConfig({ BURROW_DATA_DIR: dir, EVENTSTORE_URL: 'kurrentdb://127.0.0.1:1?tls=false' }),
    );
    try {
      await assert.rejects(
        infra.eventStore(),
        /KurrentDB \(EventStoreDB\) at kurrentdb:\/\/127\.0\.0\.1:1\?tls=false is not reachable/,
      );
    } finally {
      await infra.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
