import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SqliteEventStore } from './sqlite.js';

describe('SqliteEventStore durability', () => {
  it('commits with synchronous=FULL by default, so an acknowledged append survives power loss', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-sync-'));
    try {
      const store = SqliteEventStore.open(join(dir, 'events.sqlite'));
      assert.equal(store.synchronous(), 'full');
      await store.close();
      const relaxed = SqliteEventStore.open(join(dir, 'events.sqlite'), { synchronous: 'normal' });
      assert.equal(relaxed.synchronous(), 'normal', 'an operator may relax it');
      await relaxed.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

