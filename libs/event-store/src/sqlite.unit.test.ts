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

describe('SqliteEventStore group commit', () => {
  it('appends made together commit together (one notice), in the order made, each with its own revision check', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-group-'));
    try {
      const notices: number[] = [];
      const store = SqliteEventStore.open(join(dir, 'events.sqlite'), { onAppended: (position) => notices.push(position) });
      const event = (n: number) => ({ type: 'Counted', data: { n } });
      // five writers race for one new stream, others append elsewhere, all in one turn
      const settled = await Promise.allSettled([
        ...Array.from({ length: 5 }, (_, n) => store.append('race', [event(n)], 'no_stream')),
        ...Array.from({ length: 5 }, (_, n) => store.append(`other-${n}`, [event(n)], 'no_stream')),
      ]);
      assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'rejected', 'rejected', 'rejected', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
      for (const s of settled) if (s.status === 'rejected') assert.ok(s.reason instanceof WrongExpectedRevisionError);
      const positions = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.position] : []));
      assert.deepEqual(positions, [1, 2, 3, 4, 5, 6], 'committed in the order made; a refused append leaves no gap');
      assert.deepEqual(notices, [6], 'one commit for the group');
      assert.deepEqual((await store.readStream('race')).map((e) => e.data.n), [0], 'only the first writer of the race is stored');
      // the next turn is the next group; the store goes on after refusals
      await store.append('race', [event(9)], 0);
      assert.deepEqual(notices, [6, 7]);
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
