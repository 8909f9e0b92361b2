import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { deferDurability, WrongExpectedRevisionError } from './port.js';
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

  it('a deferred view commits without the fsync, visible at once and in order, then restores FULL', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-sync-'));
    try {
      const store = SqliteEventStore.open(join(dir, 'events.sqlite'));
      // what the connection is told around each commit (white box: the fsync is not observable)
      const db = (store as unknown as { db: { pragma(sql: string, options?: object): unknown } }).db;
      const pragma = db.pragma.bind(db);
      const said: string[] = [];
      db.pragma = (sql: string, options?: object) => {
        if (/^synchronous\s*=/.test(sql)) said.push(sql);
        return pragma(sql, options);
      };
      const deferred = deferDurability(store);
      assert.notEqual(deferred, store);
      const a = await deferred.append('s-1', [{ type: 'A', data: {} }], 'no_stream');
      assert.deepEqual(said, ['synchronous = NORMAL', 'synchronous = FULL'], 'relaxed for that commit only');
      assert.equal(store.synchronous(), 'full');
      assert.equal((await store.readStream('s-1')).length, 1, 'visible to a read right after');
      const b = await store.append('s-1', [{ type: 'B', data: {} }], 0);
      assert.ok(b.position > a.position);
      assert.equal(said.length, 2, 'a durable append is not relaxed');
      await assert.rejects(deferred.append('s-1', [{ type: 'C', data: {} }], 0), WrongExpectedRevisionError, 'the revision check holds');
      assert.equal(store.synchronous(), 'full', 'restored after a refused append too');
      await store.close();

      const relaxed = SqliteEventStore.open(join(dir, 'events.sqlite'), { synchronous: 'normal' });
      await deferDurability(relaxed).append('s-2', [{ type: 'A', data: {} }], 'no_stream');
      assert.equal(relaxed.synchronous(), 'normal', 'a store run with NORMAL stays NORMAL');
      assert.deepEqual((await relaxed.readStream('s-1')).map((e) => e.type), ['A', 'B']);
      await relaxed.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('SqliteEventStore live subscriptions', () => {
  it('delivers an event appended while the subscriber is still handling the previous one at once, not at the next poll', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-live-'));
    // a poll far longer than the test may take: only the wake-up of the append can deliver in time
    const store = SqliteEventStore.open(join(dir, 'events.sqlite'), { pollIntervalMs: 60_000 });
    try {
      const seen: string[] = [];
      let second!: () => void;
      const secondSeen = new Promise<void>((resolve) => (second = resolve));
      const sub = store.subscribeToAll(
        { fromPosition: 0, prefixes: [] },
        {
          onEvent: async (event) => {
            seen.push(event.type);
            // appended while this handler runs, so no waiter is registered yet (a read model
            // commit or a read-your-writes chain does exactly this)
            if (event.type === 'First') await store.append('s-2', [{ type: 'Second', data: {} }], 'no_stream');
            if (event.type === 'Second') second();
          },
        },
      );
      await store.append('s-1', [{ type: 'First', data: {} }], 'no_stream');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), 10_000)));
      const outcome = await Promise.race([secondSeen.then(() => 'live' as const), late]);
      clearTimeout(timer);
      assert.equal(outcome, 'live', 'the second event waited for the poll');
      assert.deepEqual(seen, ['First', 'Second']);
      await sub.stop();
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
