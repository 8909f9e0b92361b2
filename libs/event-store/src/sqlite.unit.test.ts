import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { WrongExpectedRevisionError } from './port.js';
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

describe('SqliteEventStore group commit', () => {
  it('appends of one turn share a commit; a failed revision check fails only its own append', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-group-'));
    try {
      const file = join(dir, 'events.sqlite');
      const store = SqliteEventStore.open(file);
      await store.append('a-1', [{ type: 'Created', data: {} }], 'no_stream');
      const appended: number[] = [];
      store.setOnAppended((p) => appended.push(p));
      const outcomes = await Promise.allSettled([
        store.append('a-1', [{ type: 'Renamed', data: { n: 1 } }], 0),
        store.append('a-1', [{ type: 'Renamed', data: { n: 2 } }], 0), // stale: a-1 is at 1 by now
        store.append('a-1', [{ type: 'Renamed', data: { n: 3 } }], 1),
        store.append('b-1', [{ type: 'Created', data: {} }, { type: 'Renamed', data: {} }], 'no_stream'),
      ]);
      assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      assert.ok((outcomes[1] as PromiseRejectedResult).reason instanceof WrongExpectedRevisionError);
      assert.deepEqual(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : null)), [
        { revision: 1, position: 2 }, null, { revision: 2, position: 3 }, { revision: 1, position: 5 },
      ]);
      assert.deepEqual(appended, [5], 'one notice per commit, with its last position');
      // an append queued when the store closes is committed, not lost
      const last = store.append('c-1', [{ type: 'Created', data: {} }], 'no_stream');
      await store.close();
      assert.deepEqual(await last, { revision: 0, position: 6 });
      const reopened = SqliteEventStore.open(file);
      assert.deepEqual((await reopened.readStream('a-1')).map((e) => e.data), [{}, { n: 1 }, { n: 3 }]);
      assert.equal(await reopened.headPosition(), 6);
      await reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
