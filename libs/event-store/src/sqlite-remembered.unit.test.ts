/**
 * The reads a write makes before it appends, answered from what the connection remembers
 * (sqlite-revisions.ts): the same events the table holds, and never a stale one.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ReadOptions } from './port.js';
import { SqliteEventStore } from './sqlite.js';
import { REMEMBERED_EVENT_CHARS } from './sqlite-revisions.js';

/** A store's own connection, to change the table behind what it remembers (its own writes leave `data_version` as it is). */
const connectionOf = (store: SqliteEventStore) => (store as unknown as { db: { exec(sql: string): void } }).db;

/** The reads sqlite-revisions.ts answers from memory, for a stream at `revision`. */
const remembered = (revision: number): ReadOptions[] => [
  { direction: 'backwards', maxCount: 1 },
  { direction: 'backwards', maxCount: 1, fromRevision: revision + 3 },
  { fromRevision: revision },
  { fromRevision: revision, maxCount: 1 },
  { fromRevision: revision + 1 },
];

/** `count` connections to one new store file, closed (and the file removed) after `body`. */
async function withStores(count: number, body: (stores: SqliteEventStore[]) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'burrow-remembered-'));
  const stores = Array.from({ length: count }, () => SqliteEventStore.open(join(dir, 'events.sqlite')));
  try {
    await body(stores);
  } finally {
    for (const store of stores) await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('SqliteEventStore: the newest event, remembered', () => {
  it('answers the head, the check from a revision and a new stream as the table does', () =>
    withStores(2, async ([a, fresh]) => {
      assert.deepEqual(await a.readStream('ledger'), [], 'no stream yet');
      await a.append('ledger', [{ type: 'BytesAllocated', data: { total: 10 } }], 'no_stream');
      await a.append(
        'ledger',
        [
          { type: 'BytesAllocated', data: { total: 12 } },
          { type: 'BytesAllocated', data: { total: 20, note: 'é"\\' }, metadata: { by: 'x' } },
        ],
        0,
      );
      for (const options of remembered(2)) {
        // `fresh` remembers nothing of the stream: it reads the table
        assert.deepEqual(
          await a.readStream('ledger', options),
          await fresh.readStream('ledger', options),
          JSON.stringify(options),
        );
      }
      const [head] = await a.readStream('ledger', { direction: 'backwards', maxCount: 1 });
      assert.equal(head.revision, 2);
      assert.deepEqual(head.data, { total: 20, note: 'é"\\' });
      assert.deepEqual(head.metadata, { by: 'x' });
      // each answer is a copy of its own: a caller that changes it changes nothing remembered
      (head.data as { total: number }).total = -1;
      assert.equal((await a.readStream('ledger', { fromRevision: 2 }))[0].data.total, 20);
    }));

  it('answers from memory: its own table changed behind it is not read, a whole read is', () =>
    withStores(1, async ([store]) => {
      await store.append('s', [{ type: 'A', data: { n: 1 } }], 'no_stream');
      connectionOf(store).exec(`UPDATE events SET data = '{"n":2}' WHERE stream = 's'`);
      for (const options of remembered(0).slice(0, 4)) {
        assert.deepEqual(
          (await store.readStream('s', options)).map((e) => e.data),
          [{ n: 1 }],
          JSON.stringify(options),
        );
      }
      assert.deepEqual(
        (await store.readStream('s')).map((e) => e.data),
        [{ n: 2 }],
        'a whole read asks the table',
      );
      // ... and it remembers what that read showed
      assert.deepEqual(
        (await store.readStream('s', { fromRevision: 0 })).map((e) => e.data),
        [{ n: 2 }],
      );
    }));

  it('a large event is not remembered: its reads ask the table', () =>
    withStores(1, async ([store]) => {
      const big = 'x'.repeat(REMEMBERED_EVENT_CHARS);
      await store.append('s', [{ type: 'A', data: { big, n: 1 } }], 'no_stream');
      connectionOf(store).exec(`UPDATE events SET data = json_set(data, '$.n', 2) WHERE stream = 's'`);
      const [head] = await store.readStream('s', { direction: 'backwards', maxCount: 1 });
      assert.equal(head.data.n, 2);
    }));

  it("another connection's append is seen at once, by every read", () =>
    withStores(2, async ([a, b]) => {
      await a.append('s', [{ type: 'A', data: { n: 0 } }], 'no_stream');
      assert.equal((await a.readStream('s', { direction: 'backwards', maxCount: 1 }))[0].revision, 0);
      assert.deepEqual(await a.readStream('new'), []);
      await b.append('s', [{ type: 'B', data: { n: 1 } }], 0);
      await b.append('new', [{ type: 'A', data: {} }], 'no_stream');
      const [head] = await a.readStream('s', { direction: 'backwards', maxCount: 1 });
      assert.deepEqual([head.revision, head.type, head.data], [1, 'B', { n: 1 }]);
      assert.deepEqual(
        (await a.readStream('s', { fromRevision: 0 })).map((e) => e.revision),
        [0, 1],
      );
      assert.equal((await a.readStream('new')).length, 1, 'the stream that had no events has one now');
    }));

  it('an append refused in a group, or an atomic append that failed, leaves the newest event as it was', () =>
    withStores(1, async ([store]) => {
      await store.append('x', [{ type: 'A', data: { n: 0 } }], 'no_stream');
      await store.append('y', [{ type: 'A', data: { n: 0 } }], 'no_stream');
      const outcomes = await Promise.allSettled([
        store.append('x', [{ type: 'B', data: { n: 1 } }], 0),
        store.append('x', [{ type: 'C', data: { n: 99 } }], 0), // refused: B is revision 1
        store.appendAtomically([
          { stream: 'y', events: [{ type: 'B', data: { n: 99 } }], expected: 0 },
          { stream: 'x', events: [{ type: 'D', data: { n: 99 } }], expected: 7 }, // refused: all of it
        ]),
      ]);
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['fulfilled', 'rejected', 'rejected'],
      );
      for (const stream of ['x', 'y']) {
        const table = await store.readStream(stream);
        const [head] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
        assert.deepEqual(head, table[table.length - 1], stream);
      }
      assert.deepEqual(
        (await store.readStream('y', { fromRevision: 0 })).map((e) => e.data),
        [{ n: 0 }],
      );
    }));
});
