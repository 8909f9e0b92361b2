/**
 * The EventStore contract's part for `appendAtomically` (appends over several streams, all or
 * nothing): run inside `eventStoreContract` for every adapter that offers it, and said skipped,
 * with why, for one that does not (KurrentDB: its contract call says so).
 */
import assert from 'node:assert/strict';
import { describe, it as test } from 'node:test';
import { type EventStore, type StreamWrite, WrongExpectedRevisionError } from '@burrow/event-store';
import { waitFor } from './util.js';

const WAIT_MS = 15_000;

/**
 * `store()` and `id()` are the enclosing contract's fixture, fresh for each test; `offered`: whether
 * the adapter is meant to have `appendAtomically` (an adapter that should and lost it fails here).
 */
export function atomicAppendContract(store: () => EventStore, id: () => string, offered: boolean): void {
  describe('atomic appends over several streams', () => {
    /** the test, or skipped (and said why) for an adapter that does not offer it */
    const it = (name: string, body: () => Promise<void>): void =>
      void test(name, async (t) => {
        const has = typeof store().appendAtomically === 'function';
        if (!offered) {
          assert.equal(has, false, 'an adapter said to have no appendAtomically has one: say so in its contract call');
          return t.skip('this adapter has no appendAtomically: its writes over several streams stay processes');
        }
        assert.ok(has, 'this adapter should offer appendAtomically');
        await body();
      });
    const atomically = (writes: StreamWrite[]) => {
      const s = store();
      if (!s.appendAtomically) throw new Error('no appendAtomically');
      return s.appendAtomically(writes);
    };

    it('appends every write, in order, each with its own revision, and answers their results in order', async () => {
      const [a, b] = [`${id()}-ledger`, `${id()}-file`];
      await store().append(a, [{ type: 'Opened', data: { n: 0 } }], 'no_stream');
      const head = await store().headPosition();
      const results = await atomically([
        { stream: a, events: [{ type: 'Entry', data: { n: 1 } }], expected: 0 },
        {
          stream: b,
          events: [
            { type: 'Created', data: { n: 2 } },
            { type: 'Named', data: { n: 3 } },
          ],
          expected: 'no_stream',
        },
      ]);
      assert.deepEqual(
        results.map((r) => r.revision),
        [1, 1],
      );
      assert.ok(results[0].position > head && results[1].position > results[0].position, JSON.stringify(results));
      const [readA, readB] = [await store().readStream(a), await store().readStream(b)];
      assert.deepEqual(
        readA.map((e) => e.type),
        ['Opened', 'Entry'],
      );
      assert.deepEqual(
        readB.map((e) => [e.type, e.revision]),
        [
          ['Created', 0],
          ['Named', 1],
        ],
      );
      assert.equal(readA[1].position, results[0].position);
      assert.equal(readB[1].position, results[1].position);
      assert.equal(await store().streamRevision(b), 1);
      assert.equal(await store().headPosition(), results[1].position);
    });

    it('a wrong expected revision on any write appends none of them and names its stream', async () => {
      const [a, b] = [`${id()}-a`, `${id()}-b`];
      await store().append(b, [{ type: 'Opened', data: {} }], 'no_stream');
      const head = await store().headPosition();
      for (const writes of [
        // the failing write last: the one before it must be rolled back
        [
          { stream: a, events: [{ type: 'Entry', data: {} }], expected: 'no_stream' as const },
          { stream: b, events: [{ type: 'Entry', data: {} }], expected: 'no_stream' as const },
        ],
        // the failing write first
        [
          { stream: b, events: [{ type: 'Entry', data: {} }], expected: 7 },
          { stream: a, events: [{ type: 'Entry', data: {} }], expected: 'no_stream' as const },
        ],
      ]) {
        const error = await atomically(writes).then(
          () => assert.fail('the append should have failed'),
          (e: unknown) => e,
        );
        assert.ok(error instanceof WrongExpectedRevisionError, String(error));
        assert.equal(error.stream, b);
        assert.equal(error.actual, 0);
      }
      assert.deepEqual(await store().readStream(a), []);
      assert.equal(await store().streamRevision(a), null);
      assert.equal((await store().readStream(b)).length, 1);
      assert.equal(await store().headPosition(), head);
    });

    it('refuses two writes to one stream, and writes nothing', async () => {
      const a = `${id()}-twice`;
      await assert.rejects(
        atomically([
          { stream: a, events: [{ type: 'One', data: {} }], expected: 'no_stream' },
          { stream: a, events: [{ type: 'Two', data: {} }], expected: 0 },
        ]),
        /each stream once/,
      );
      assert.deepEqual(await store().readStream(a), []);
    });

    it('concurrent atomic appends on one shared stream: exactly one lands, whole; the losers leave nothing', async () => {
      const ledger = `${id()}-ledger`;
      await store().append(ledger, [{ type: 'Opened', data: {} }], 'no_stream');
      const attempts = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) =>
          atomically([
            { stream: ledger, events: [{ type: 'Entry', data: { i } }], expected: 0 },
            { stream: `${id()}-file-${i}`, events: [{ type: 'Committed', data: { i } }], expected: 'no_stream' },
          ]),
        ),
      );
      const won = attempts.flatMap((a, i) => (a.status === 'fulfilled' ? [i] : []));
      assert.equal(won.length, 1, 'exactly one wins');
      for (const a of attempts)
        if (a.status === 'rejected') assert.ok(a.reason instanceof WrongExpectedRevisionError, String(a.reason));
      const entries = await store().readStream(ledger);
      assert.deepEqual(
        entries.map((e) => e.data.i),
        [undefined, won[0]],
      );
      for (let i = 0; i < 6; i++)
        assert.equal((await store().readStream(`${id()}-file-${i}`)).length, i === won[0] ? 1 : 0, `file ${i}`);
    });

    it('beside plain appends made at the same time, a failing atomic append fails alone', async () => {
      const [a, b, c] = [`${id()}-a`, `${id()}-b`, `${id()}-c`];
      await store().append(b, [{ type: 'Opened', data: {} }], 'no_stream');
      const [first, failing, last] = await Promise.allSettled([
        store().append(a, [{ type: 'Plain', data: {} }], 'no_stream'),
        atomically([
          { stream: c, events: [{ type: 'Entry', data: {} }], expected: 'no_stream' },
          { stream: b, events: [{ type: 'Entry', data: {} }], expected: 5 },
        ]),
        store().append(b, [{ type: 'Plain', data: {} }], 0),
      ]);
      assert.equal(first.status, 'fulfilled');
      assert.equal(last.status, 'fulfilled');
      assert.equal(failing.status, 'rejected');
      assert.deepEqual(await store().readStream(c), []);
      assert.deepEqual(
        (await store().readStream(b)).map((e) => e.type),
        ['Opened', 'Plain'],
      );
    });

    it('a live subscriber is delivered every event of an atomic append', async () => {
      const [a, b] = [`${id()}-a`, `${id()}-b`];
      const seen: string[] = [];
      const sub = store().subscribeToAll(
        { fromPosition: await store().headPosition(), prefixes: [id()] },
        { onEvent: (e) => void seen.push(`${e.stream}:${e.type}`) },
      );
      try {
        await atomically([
          { stream: a, events: [{ type: 'One', data: {} }], expected: 'no_stream' },
          { stream: b, events: [{ type: 'Two', data: {} }], expected: 'no_stream' },
        ]);
        await waitFor(() => seen.length >= 2, 'both events delivered', { timeoutMs: WAIT_MS });
        assert.deepEqual(seen, [`${a}:One`, `${b}:Two`]);
      } finally {
        await sub.stop();
      }
    });
  });
}
