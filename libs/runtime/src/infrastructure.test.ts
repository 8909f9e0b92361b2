import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { SqliteEventStore } from '@burrow/event-store';
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
