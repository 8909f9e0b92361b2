/**
 * The EventStore contract: every adapter (SQLite, PostgreSQL, KurrentDB) must pass it.
 *
 * The suite may run against a shared, long-lived server, so every test writes to streams named
 * with a fresh random id and subscribes from the head (or filters by that id), never assuming the
 * store is empty unless the fixture says so.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  type EventStore,
  type ExpectedRevision,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
  WrongExpectedRevisionError,
} from '@burrow/event-store';
import { atomicAppendContract } from './event-store-atomic.contract.js';
import { rejection, sleep, uniqueId, waitFor } from './util.js';

export interface EventStoreFixture {
  store: EventStore;
  cleanup(): Promise<void>;
  /** true when the store holds no events at all when handed out (a fresh embedded file) */
  empty?: boolean;
  /** another connection to the same store (as a second process would open it); closed by the test */
  reopen?(): Promise<EventStore>;
  /** a second, distinct store (a new file, a new database); where the adapter can make one */
  another?(): Promise<{ store: EventStore; cleanup(): Promise<void> }>;
}
export type EventStoreFactory = () => Promise<EventStoreFixture>;

/** Long enough for a polling adapter and a remote server; the tests finish as soon as they can. */
const WAIT_MS = 15_000;
/** How long we watch for something that must not happen. */
const QUIET_MS = 400;

interface Collected {
  events: RecordedEvent[];
  /** each checkpoint with the positions delivered when it was reported */
  checkpoints: { position: number; delivered: Set<number> }[];
  errors: Error[];
  sub: Subscription;
}

function collect(
  store: EventStore,
  options: SubscribeOptions,
  onEvent?: (event: RecordedEvent) => Promise<void> | void,
): Collected {
  const c = { events: [], checkpoints: [], errors: [] } as unknown as Collected;
  c.sub = store.subscribeToAll(options, {
    onEvent: async (event) => {
      if (onEvent) await onEvent(event);
      c.events.push(event);
    },
    onCheckpoint: (position) => {
      c.checkpoints.push({ position, delivered: new Set(c.events.map((e) => e.position)) });
    },
    onError: (error) => {
      c.errors.push(error);
    },
  });
  return c;
}

const lastCheckpoint = (c: Collected) => c.checkpoints.at(-1)?.position ?? -1;

function assertStrictlyIncreasing(values: number[], what: string) {
  for (let i = 1; i < values.length; i++) {
    assert.ok(values[i] > values[i - 1], `${what} must strictly increase: ${values[i - 1]} then ${values[i]}`);
  }
}

async function expectWrongRevision(
  promise: Promise<unknown>,
  stream: string,
  expected: ExpectedRevision,
  actual: number | 'no_stream',
) {
  const error = await rejection(promise);
  assert.ok(error instanceof WrongExpectedRevisionError, `expected WrongExpectedRevisionError, got ${String(error)}`);
  assert.equal(error.name, 'WrongExpectedRevisionError');
  assert.equal(error.stream, stream);
  assert.equal(error.expected, expected);
  assert.equal(error.actual, actual);
}

/** Checks the delivery invariants every subscription must keep. */
function assertCheckpointInvariants(c: Collected, matching: number[], fromPosition: number) {
  const positions = c.checkpoints.map((cp) => cp.position);
  for (let i = 1; i < positions.length; i++) {
    assert.ok(
      positions[i] >= positions[i - 1],
      `checkpoints must not go back: ${positions[i - 1]} then ${positions[i]}`,
    );
  }
  for (const cp of c.checkpoints) {
    assert.ok(cp.position >= fromPosition, `checkpoint ${cp.position} is before the start ${fromPosition}`);
    for (const p of matching) {
      if (p <= cp.position) {
        assert.ok(cp.delivered.has(p), `checkpoint ${cp.position} reported before the event at ${p} was delivered`);
      }
    }
  }
}

/**
 * `atomicAppends`: whether the adapter offers `appendAtomically` (SQLite and PostgreSQL do; KurrentDB
 * does not): where it should and does not, its part of the contract fails rather than skips.
 */
export function eventStoreContract(
  name: string,
  factory: EventStoreFactory | null,
  skipReason?: string,
  options: { atomicAppends?: boolean } = {},
): void {
  if (!factory) {
    describe(`EventStore contract: ${name}`, { skip: skipReason ?? 'no adapter factory' }, () => undefined);
    return;
  }

  describe(`EventStore contract: ${name}`, { timeout: 120_000 }, () => {
    let fixture: EventStoreFixture;
    let store: EventStore;
    let id: string;
    const subs: Subscription[] = [];
    const track = (c: Collected) => {
      subs.push(c.sub);
      return c;
    };

    beforeEach(async () => {
      fixture = await factory();
      store = fixture.store;
      id = uniqueId('c');
    });

    afterEach(async () => {
      for (const sub of subs.splice(0)) await sub.stop();
      await fixture.cleanup();
    });

    describe('append and read', () => {
      it('reads a missing stream as an empty list, in both directions', async () => {
        assert.deepEqual(await store.readStream(`${id}-missing`), []);
        assert.deepEqual(await store.readStream(`${id}-missing`, { direction: 'backwards' }), []);
        assert.deepEqual(await store.readStream(`${id}-missing`, { fromRevision: 3, maxCount: 2 }), []);
      });

      it('appends to a new stream and reads the events back with every field', async () => {
        const stream = `${id}-order-1`;
        const before = Date.now();
        const result = await store.append(
          stream,
          [
            { type: 'OrderPlaced', data: { orderId: 1, lines: [{ sku: 'a', qty: 2 }] }, metadata: { by: 'alice' } },
            { type: 'OrderPaid', data: { amount: 12.5 } },
            { type: 'OrderShipped', data: {} },
          ],
          'no_stream',
        );
        const after = Date.now();
        assert.equal(result.revision, 2);

        const events = await store.readStream(stream);
        assert.equal(events.length, 3);
        assert.deepEqual(
          events.map((e) => [e.stream, e.revision, e.type]),
          [
            [stream, 0, 'OrderPlaced'],
            [stream, 1, 'OrderPaid'],
            [stream, 2, 'OrderShipped'],
          ],
        );
        assert.deepEqual(events[0].data, { orderId: 1, lines: [{ sku: 'a', qty: 2 }] });
        assert.deepEqual(events[0].metadata, { by: 'alice' });
        assert.deepEqual(events[1].data, { amount: 12.5 });
        assert.deepEqual(events[1].metadata, {}, 'metadata defaults to {}');
        assert.deepEqual(events[2].data, {});
        assertStrictlyIncreasing(
          events.map((e) => e.position),
          'positions within one append',
        );
        assert.ok(events[0].position > 0, 'positions start after 0');
        assert.equal(result.position, events[2].position, 'append returns the position of its last event');
        for (const e of events) {
          assert.equal(typeof e.recordedAt, 'number');
          // a remote server's clock may differ a little from ours
          assert.ok(
            e.recordedAt >= before - 5_000 && e.recordedAt <= after + 5_000,
            `recordedAt ${e.recordedAt} not near now`,
          );
        }
      });

      it('round-trips JSON payloads exactly', async () => {
        const data = {
          text: 'plain "quoted" \\ back\nslash',
          nul: 'before\u0000after',
          unicode: 'Ærøskøbing – 東京 – 🐇',
          int: 42,
          negative: -7,
          float: 0.1,
          big: Number.MAX_SAFE_INTEGER,
          yes: true,
          no: false,
          nothing: null,
          list: [1, 'two', { three: [3] }, null],
          nested: { a: { b: { c: 'deep' } }, empty: {}, none: [] },
        };
        const metadata = { correlationId: 'c-1', causation: ['x', 'y'], schemaVersion: 2 };
        await store.append(`${id}-json`, [{ type: 'Payload', data, metadata }], 'any');
        const [event] = await store.readStream(`${id}-json`);
        assert.deepEqual(event.data, data);
        assert.deepEqual(event.metadata, metadata);
      });

      it('appends a large batch atomically, in order', async () => {
        const stream = `${id}-batch`;
        const events = Array.from({ length: 300 }, (_, i) => ({ type: 'Counted', data: { i } }));
        const result = await store.append(stream, events, 'no_stream');
        assert.equal(result.revision, 299);
        const read = await store.readStream(stream);
        assert.equal(read.length, 300);
        assert.deepEqual(
          read.map((e) => [e.revision, e.data.i]),
          events.map((_, i) => [i, i]),
        );
        assertStrictlyIncreasing(
          read.map((e) => e.position),
          'positions within one batch',
        );
        assert.equal(result.position, read[299].position);
      });

      it('reads with fromRevision, maxCount and direction', async () => {
        const stream = `${id}-ten`;
        await store.append(
          stream,
          Array.from({ length: 10 }, (_, i) => ({ type: 'N', data: { i } })),
          'no_stream',
        );
        const revs = async (options: Parameters<EventStore['readStream']>[1]) =>
          (await store.readStream(stream, options)).map((e) => e.revision);
        assert.deepEqual(await revs({}), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert.deepEqual(await revs({ fromRevision: 3 }), [3, 4, 5, 6, 7, 8, 9], 'fromRevision is inclusive');
        assert.deepEqual(await revs({ maxCount: 4 }), [0, 1, 2, 3]);
        assert.deepEqual(await revs({ fromRevision: 3, maxCount: 2 }), [3, 4]);
        assert.deepEqual(await revs({ fromRevision: 10 }), []);
        assert.deepEqual(await revs({ direction: 'backwards' }), [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
        assert.deepEqual(await revs({ direction: 'backwards', maxCount: 3 }), [9, 8, 7], 'the newest events first');
        assert.deepEqual(await revs({ direction: 'backwards', maxCount: 1 }), [9]);
        assert.deepEqual(await revs({ direction: 'backwards', fromRevision: 5, maxCount: 2 }), [5, 4]);
        assert.deepEqual(await revs({ direction: 'backwards', fromRevision: 0 }), [0]);
        const backwards = await store.readStream(stream, { direction: 'backwards', maxCount: 2 });
        assert.deepEqual(
          backwards.map((e) => e.data.i),
          [9, 8],
          'data travels with its event',
        );
      });
    });

    atomicAppendContract(
      () => store,
      () => id,
      options.atomicAppends ?? true,
    );

    describe('expected revisions', () => {
      it("'no_stream' creates a stream and fails on an existing one without writing", async () => {
        const stream = `${id}-ns`;
        const created = await store.append(stream, [{ type: 'A', data: {} }], 'no_stream');
        assert.equal(created.revision, 0);
        await expectWrongRevision(store.append(stream, [{ type: 'B', data: {} }], 'no_stream'), stream, 'no_stream', 0);
        const events = await store.readStream(stream);
        assert.deepEqual(
          events.map((e) => e.type),
          ['A'],
          'the failed append wrote nothing',
        );
      });

      it("'stream_exists' fails on a missing stream and appends to an existing one", async () => {
        const stream = `${id}-se`;
        await expectWrongRevision(
          store.append(stream, [{ type: 'A', data: {} }], 'stream_exists'),
          stream,
          'stream_exists',
          'no_stream',
        );
        assert.deepEqual(await store.readStream(stream), [], 'the failed append created nothing');
        await store.append(stream, [{ type: 'A', data: {} }], 'any');
        const result = await store.append(
          stream,
          [
            { type: 'B', data: {} },
            { type: 'C', data: {} },
          ],
          'stream_exists',
        );
        assert.equal(result.revision, 2);
      });

      it('an exact revision must equal the revision of the last event', async () => {
        const stream = `${id}-exact`;
        await expectWrongRevision(store.append(stream, [{ type: 'A', data: {} }], 0), stream, 0, 'no_stream');
        await store.append(stream, [{ type: 'A', data: {} }], 'no_stream'); // revision 0
        const r1 = await store.append(
          stream,
          [
            { type: 'B', data: {} },
            { type: 'C', data: {} },
          ],
          0,
        );
        assert.equal(r1.revision, 2);
        await expectWrongRevision(store.append(stream, [{ type: 'X', data: {} }], 1), stream, 1, 2); // stale
        await expectWrongRevision(store.append(stream, [{ type: 'X', data: {} }], 3), stream, 3, 2); // ahead
        await expectWrongRevision(store.append(stream, [{ type: 'X', data: {} }], 0), stream, 0, 2);
        const r2 = await store.append(stream, [{ type: 'D', data: {} }], 2);
        assert.equal(r2.revision, 3);
        assert.deepEqual(
          (await store.readStream(stream)).map((e) => e.type),
          ['A', 'B', 'C', 'D'],
        );
      });

      it("'any' appends whether or not the stream exists", async () => {
        const stream = `${id}-any`;
        assert.equal((await store.append(stream, [{ type: 'A', data: {} }], 'any')).revision, 0);
        assert.equal((await store.append(stream, [{ type: 'B', data: {} }], 'any')).revision, 1);
        assert.equal((await store.readStream(stream)).length, 2);
      });

      it('concurrent appends expecting the same revision: exactly one wins', async () => {
        const stream = `${id}-race`;
        await store.append(stream, [{ type: 'Opened', data: {} }], 'no_stream');
        const attempts = await Promise.allSettled(
          Array.from({ length: 8 }, (_, i) => store.append(stream, [{ type: 'Raced', data: { i } }], 0)),
        );
        const won = attempts.filter((a) => a.status === 'fulfilled');
        const lost = attempts.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
        assert.equal(won.length, 1, 'exactly one append wins');
        for (const l of lost)
          assert.ok(l.reason instanceof WrongExpectedRevisionError, `loser failed with ${String(l.reason)}`);
        const events = await store.readStream(stream);
        assert.deepEqual(
          events.map((e) => e.type),
          ['Opened', 'Raced'],
        );
      });

      it("concurrent 'no_stream' appends to a new stream: exactly one wins", async () => {
        const stream = `${id}-race-new`;
        const attempts = await Promise.allSettled(
          Array.from({ length: 6 }, (_, i) => store.append(stream, [{ type: 'Reserved', data: { i } }], 'no_stream')),
        );
        assert.equal(attempts.filter((a) => a.status === 'fulfilled').length, 1);
        for (const a of attempts) {
          if (a.status === 'rejected') assert.ok(a.reason instanceof WrongExpectedRevisionError);
        }
        assert.equal((await store.readStream(stream)).length, 1);
      });

      it("concurrent 'any' appends all land, each batch contiguous", async () => {
        const stream = `${id}-many`;
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, batch) =>
            store.append(
              stream,
              [
                { type: 'First', data: { batch } },
                { type: 'Second', data: { batch } },
              ],
              'any',
            ),
          ),
        );
        const events = await store.readStream(stream);
        assert.equal(events.length, 20);
        assert.deepEqual(
          events.map((e) => e.revision),
          Array.from({ length: 20 }, (_, i) => i),
        );
        for (let i = 0; i < 20; i += 2) {
          assert.equal(events[i].type, 'First');
          assert.equal(events[i + 1].type, 'Second');
          assert.equal(events[i].data.batch, events[i + 1].data.batch, 'a batch is never interleaved');
        }
        assert.deepEqual(
          results.map((r) => r.revision).sort((a, b) => a - b),
          [1, 3, 5, 7, 9, 11, 13, 15, 17, 19],
        );
      });
    });

    describe('global positions', () => {
      it('strictly increase across streams, and reads report the appended positions', async () => {
        const streams = [`${id}-a`, `${id}-b`, `${id}-c`];
        const appended: { stream: string; position: number; revision: number }[] = [];
        for (let i = 0; i < 12; i++) {
          const stream = streams[i % 3];
          const r = await store.append(stream, [{ type: 'Tick', data: { i } }], 'any');
          appended.push({ stream, ...r });
        }
        assertStrictlyIncreasing(
          appended.map((a) => a.position),
          'append positions',
        );
        for (const stream of streams) {
          const read = await store.readStream(stream);
          assert.deepEqual(
            read.map((e) => e.position),
            appended.filter((a) => a.stream === stream).map((a) => a.position),
            `positions read from ${stream}`,
          );
        }
      });

      it('concurrent appenders and a live subscriber: every event delivered once, in position order, no gap', async () => {
        // The classic pitfall of a store on a database: positions drawn from a sequence at insert
        // commit out of order, so a reader passes a position whose transaction commits later and
        // never sees it. Appenders here run at once (batches of varied size make transactions
        // overlap); the subscriber, live from the start, must end up with exactly what the store
        // holds, in position order, and never report a checkpoint past an event it had not had.
        const prefix = `${id}-conc-`;
        const from = await store.headPosition();
        const c = track(collect(store, { fromPosition: from, prefixes: [prefix] }));
        const appenders = 8;
        const rounds = 12;
        await Promise.all(
          Array.from({ length: appenders }, async (_, a) => {
            for (let r = 0; r < rounds; r++) {
              const size = 1 + ((a + r) % 4) * 10;
              // own streams, plus one that every appender shares
              const stream = r % 3 === 0 ? `${prefix}shared` : `${prefix}${a}`;
              await store.append(
                stream,
                Array.from({ length: size }, (_, i) => ({ type: 'C', data: { a, r, i } })),
                'any',
              );
            }
          }),
        );
        const streams = [`${prefix}shared`, ...Array.from({ length: appenders }, (_, a) => `${prefix}${a}`)];
        const stored = (await Promise.all(streams.map((s) => store.readStream(s))))
          .flat()
          .sort((x, y) => x.position - y.position);
        assert.equal(stored.length, appenders * (rounds / 4) * (1 + 11 + 21 + 31));
        await waitFor(
          () => c.events.length >= stored.length && lastCheckpoint(c) >= stored.at(-1)!.position,
          'every appended event',
          {
            timeoutMs: WAIT_MS,
            state: () => ({ delivered: c.events.length, stored: stored.length, checkpoint: lastCheckpoint(c) }),
          },
        );
        await sleep(QUIET_MS);
        assert.deepEqual(c.errors, []);
        assert.deepEqual(
          c.events.map((e) => [e.position, e.stream, e.revision]),
          stored.map((e) => [e.position, e.stream, e.revision]),
          'the subscriber saw exactly the stored events, in position order',
        );
        assertCheckpointInvariants(
          c,
          stored.map((e) => e.position),
          from,
        );

        // catch-up from a checkpoint reported mid-way delivers exactly the events after it
        const mid = c.checkpoints[Math.floor(c.checkpoints.length / 2)].position;
        const resumed = track(collect(store, { fromPosition: mid, prefixes: [prefix] }));
        const rest = stored.filter((e) => e.position > mid);
        await waitFor(() => resumed.events.length >= rest.length, 'the events after the checkpoint', {
          timeoutMs: WAIT_MS,
        });
        await sleep(QUIET_MS);
        assert.deepEqual(
          resumed.events.map((e) => e.position),
          rest.map((e) => e.position),
        );
      });

      it('headPosition follows appends', async () => {
        if (fixture.empty) assert.equal(await store.headPosition(), 0, 'an empty store has head 0');
        const first = await store.append(`${id}-h`, [{ type: 'A', data: {} }], 'any');
        const head1 = await store.headPosition();
        assert.ok(head1 >= first.position, `head ${head1} is behind the append at ${first.position}`);
        if (fixture.empty) assert.equal(head1, first.position);
        const second = await store.append(`${id}-h2`, [{ type: 'B', data: {} }], 'any');
        assert.ok(second.position > head1, 'a later append lies beyond the earlier head');
        assert.ok((await store.headPosition()) >= second.position);
      });
    });

    describe('stream revision', () => {
      it('streamRevision is the revision of the newest event, null for a missing stream, and follows appends', async () => {
        assert.equal(await store.streamRevision(`${id}-rev`), null);
        await store.append(`${id}-rev`, [{ type: 'A', data: {} }], 'no_stream');
        assert.equal(await store.streamRevision(`${id}-rev`), 0);
        const { revision } = await store.append(
          `${id}-rev`,
          [
            { type: 'B', data: {} },
            { type: 'C', data: {} },
          ],
          0,
        );
        assert.equal(await store.streamRevision(`${id}-rev`), revision);
        assert.equal(revision, 2);
        assert.equal(
          await store.streamRevision(`${id}-rev-other`),
          null,
          'a stream named with the same prefix is another stream',
        );
        const deferred = store.deferringDurability?.();
        if (deferred) {
          await deferred.append(`${id}-rev`, [{ type: 'D', data: {} }], 2);
          assert.equal(await deferred.streamRevision(`${id}-rev`), 3);
          assert.equal(await store.streamRevision(`${id}-rev`), 3);
        }
      });
    });

    describe('identity and other connections', () => {
      it('storeId is stable: the same on every call and on another connection to the same store', async () => {
        const first = await store.storeId();
        assert.equal(typeof first, 'string');
        assert.ok(first.length >= 8, `a real id, got "${first}"`);
        assert.equal(await store.storeId(), first);
        await store.append(`${id}-ident`, [{ type: 'A', data: {} }], 'any');
        assert.equal(await store.storeId(), first, 'appends do not change it');
        if (!fixture.reopen) return;
        const other = await fixture.reopen();
        try {
          assert.equal(await other.storeId(), first, 'a second connection sees the same id');
        } finally {
          await other.close();
        }
      });

      it('a different store has a different storeId', async (t) => {
        if (!fixture.another) return t.skip('this adapter cannot make a second store here');
        const another = await fixture.another();
        try {
          assert.notEqual(await another.store.storeId(), await store.storeId());
        } finally {
          await another.cleanup();
        }
      });

      it('a subscription on another connection receives appends made on this one, live', async (t) => {
        if (!fixture.reopen) return t.skip('this adapter cannot open a second connection here');
        const other = await fixture.reopen();
        try {
          const from = await store.headPosition();
          const c = collect(other, { fromPosition: from, prefixes: [`${id}-x-`] });
          try {
            await waitFor(() => c.checkpoints.length > 0, 'the subscription to catch up', { timeoutMs: WAIT_MS });
            await store.append(`${id}-x-1`, [{ type: 'E', data: { n: 1 } }], 'no_stream');
            await store.append(`${id}-x-2`, [{ type: 'E', data: { n: 2 } }], 'no_stream');
            await waitFor(() => c.events.length >= 2, 'the live events on the other connection', {
              timeoutMs: WAIT_MS,
            });
            assert.deepEqual(
              c.events.map((e) => e.data.n),
              [1, 2],
            );
            assert.deepEqual(c.errors, []);
          } finally {
            await c.sub.stop();
          }
        } finally {
          await other.close();
        }
      });
    });

    describe('subscribeToAll', () => {
      it('catches up, then delivers live events, filtered by prefix and in position order', async () => {
        const grp = `${id}-grp-`;
        const from = await store.headPosition();
        await store.append(
          `${grp}1`,
          [
            { type: 'G', data: { n: 1 } },
            { type: 'G', data: { n: 2 } },
          ],
          'no_stream',
        );
        await store.append(
          `${id}-oth-1`,
          [
            { type: 'O', data: {} },
            { type: 'O', data: {} },
          ],
          'no_stream',
        );
        await store.append(`${grp}2`, [{ type: 'G', data: { n: 3 } }], 'no_stream');

        const c = track(collect(store, { fromPosition: from, prefixes: [grp] }));
        await waitFor(() => c.events.length >= 3, 'the catch-up events', {
          timeoutMs: WAIT_MS,
          state: () => c.events.length,
        });

        await store.append(`${grp}1`, [{ type: 'G', data: { n: 4 } }], 1);
        await store.append(`${id}-oth-1`, [{ type: 'O', data: {} }], 'any');
        await store.append(
          `${grp}3`,
          [
            { type: 'G', data: { n: 5 } },
            { type: 'G', data: { n: 6 } },
          ],
          'no_stream',
        );
        await waitFor(() => c.events.length >= 6, 'the live events', {
          timeoutMs: WAIT_MS,
          state: () => c.events.length,
        });
        await sleep(QUIET_MS);

        assert.equal(c.events.length, 6, 'no other events are delivered');
        assert.deepEqual(
          c.events.map((e) => e.data.n),
          [1, 2, 3, 4, 5, 6],
        );
        assert.ok(c.events.every((e) => e.stream.startsWith(grp)));
        assertStrictlyIncreasing(
          c.events.map((e) => e.position),
          'delivered positions',
        );
        // what a subscription delivers is exactly what a read returns
        const read = [
          ...(await store.readStream(`${grp}1`)),
          ...(await store.readStream(`${grp}2`)),
          ...(await store.readStream(`${grp}3`)),
        ].sort((a, b) => a.position - b.position);
        assert.deepEqual(
          c.events.map((e) => [e.stream, e.revision, e.position, e.type, e.data, e.metadata, e.recordedAt]),
          read.map((e) => [e.stream, e.revision, e.position, e.type, e.data, e.metadata, e.recordedAt]),
        );
        assert.deepEqual(c.errors, []);
      });

      it('treats fromPosition as exclusive', async () => {
        const stream = `${id}-x-1`;
        await store.append(
          stream,
          Array.from({ length: 5 }, (_, i) => ({ type: 'E', data: { i } })),
          'no_stream',
        );
        const all = await store.readStream(stream);
        const c = track(collect(store, { fromPosition: all[1].position, prefixes: [`${id}-x-`] }));
        await waitFor(() => c.events.length >= 3, 'events after the start position', { timeoutMs: WAIT_MS });
        await sleep(QUIET_MS);
        assert.deepEqual(
          c.events.map((e) => e.revision),
          [2, 3, 4],
        );
      });

      it('replays from position 0 (the beginning)', async () => {
        await store.append(`${id}-z-1`, [{ type: 'E', data: { i: 0 } }], 'no_stream');
        await store.append(`${id}-z-2`, [{ type: 'E', data: { i: 1 } }], 'no_stream');
        const c = track(collect(store, { fromPosition: 0, prefixes: [`${id}-z-`] }));
        await waitFor(() => c.events.length >= 2, 'the replayed events', { timeoutMs: WAIT_MS });
        await sleep(QUIET_MS);
        assert.deepEqual(
          c.events.map((e) => e.data.i),
          [0, 1],
        );
      });

      it('accepts several prefixes; no prefix means every (non-system) stream', async () => {
        const from = await store.headPosition();
        await store.append(`${id}-a-1`, [{ type: 'E', data: { s: 'a' } }], 'no_stream');
        await store.append(`${id}-b-1`, [{ type: 'E', data: { s: 'b' } }], 'no_stream');
        await store.append(`${id}-c-1`, [{ type: 'E', data: { s: 'c' } }], 'no_stream');
        await store.append(`${id}-ab-1`, [{ type: 'E', data: { s: 'ab' } }], 'no_stream');

        const two = track(collect(store, { fromPosition: from, prefixes: [`${id}-a-`, `${id}-b-`] }));
        const every = track(collect(store, { fromPosition: from, prefixes: [] }));
        const ours = () => every.events.filter((e) => e.stream.startsWith(id));
        await waitFor(() => two.events.length >= 2 && ours().length >= 4, 'both subscriptions', {
          timeoutMs: WAIT_MS,
          state: () => [two.events.length, ours().length],
        });
        await sleep(QUIET_MS);
        assert.deepEqual(
          two.events.map((e) => e.data.s),
          ['a', 'b'],
          "'-ab-' does not match '-a-'",
        );
        assert.deepEqual(
          ours().map((e) => e.data.s),
          ['a', 'b', 'c', 'ab'],
        );
        assert.ok(
          every.events.every((e) => !e.stream.startsWith('$') && !e.type.startsWith('$')),
          'no system events',
        );
        assertStrictlyIncreasing(
          every.events.map((e) => e.position),
          'positions of an unfiltered subscription',
        );
      });

      it('reports checkpoints past non-matching events, during catch-up and live', async () => {
        const from = await store.headPosition();
        const match1 = await store.append(`${id}-m-1`, [{ type: 'M', data: { n: 1 } }], 'no_stream');
        const noise = async () => {
          let last = 0;
          for (let i = 0; i < 4; i++) {
            const r = await store.append(
              `${id}-noise-${i}`,
              Array.from({ length: 25 }, () => ({ type: 'Noise', data: {} })),
              'any',
            );
            last = r.position;
          }
          return last;
        };
        const noise1 = await noise();

        const c = track(collect(store, { fromPosition: from, prefixes: [`${id}-m-`] }));
        await waitFor(
          () => c.events.length >= 1 && lastCheckpoint(c) > match1.position,
          'a catch-up checkpoint past the noise',
          {
            timeoutMs: WAIT_MS,
            state: () => ({
              events: c.events.length,
              checkpoints: c.checkpoints.map((x) => x.position),
              match1,
              noise1,
            }),
          },
        );

        // live: one match, then noise
        const match2 = await store.append(`${id}-m-1`, [{ type: 'M', data: { n: 2 } }], 0);
        const noise2 = await noise();
        await waitFor(
          () => c.events.length >= 2 && lastCheckpoint(c) > match2.position,
          'a live checkpoint past the noise',
          {
            timeoutMs: WAIT_MS,
            state: () => ({
              events: c.events.length,
              checkpoints: c.checkpoints.map((x) => x.position),
              match2,
              noise2,
            }),
          },
        );

        assert.deepEqual(
          c.events.map((e) => e.data.n),
          [1, 2],
        );
        assertCheckpointInvariants(c, [match1.position, match2.position], from);
        const head = await store.headPosition();
        assert.ok(
          c.checkpoints.every((cp) => cp.position <= head),
          'checkpoints never pass the head',
        );
      });

      it('advances the checkpoint even when nothing matches', async () => {
        const from = await store.headPosition();
        let last = 0;
        for (let i = 0; i < 4; i++) {
          last = (
            await store.append(
              `${id}-quiet-${i}`,
              Array.from({ length: 25 }, () => ({ type: 'Q', data: {} })),
              'any',
            )
          ).position;
        }
        const c = track(collect(store, { fromPosition: from, prefixes: [`${id}-nothing-`] }));
        await waitFor(() => lastCheckpoint(c) > from, 'a checkpoint past the start', {
          timeoutMs: WAIT_MS,
          state: () => ({ from, last, checkpoints: c.checkpoints.map((x) => x.position) }),
        });
        assert.equal(c.events.length, 0);
        assert.ok(lastCheckpoint(c) <= (await store.headPosition()));
      });

      it('awaits onEvent: one event at a time, in order', async () => {
        const stream = `${id}-slow-1`;
        const from = await store.headPosition();
        let inFlight = 0;
        let maxInFlight = 0;
        const c = track(
          collect(store, { fromPosition: from, prefixes: [`${id}-slow-`] }, async () => {
            inFlight++;
            maxInFlight = Math.max(maxInFlight, inFlight);
            await sleep(5);
            inFlight--;
          }),
        );
        for (let i = 0; i < 4; i++) {
          await store.append(
            stream,
            Array.from({ length: 5 }, (_, j) => ({ type: 'S', data: { k: i * 5 + j } })),
            'any',
          );
        }
        await waitFor(() => c.events.length >= 20, 'all slow events', { timeoutMs: WAIT_MS });
        assert.equal(maxInFlight, 1, 'the next event waits for the previous handler');
        assert.deepEqual(
          c.events.map((e) => e.data.k),
          Array.from({ length: 20 }, (_, i) => i),
        );
      });

      it('stop() ends delivery and can be called twice', async () => {
        const stream = `${id}-stop-1`;
        const from = await store.headPosition();
        const c = track(collect(store, { fromPosition: from, prefixes: [`${id}-stop-`] }));
        await store.append(stream, [{ type: 'E', data: { i: 0 } }], 'no_stream');
        await waitFor(() => c.events.length === 1, 'the first event', { timeoutMs: WAIT_MS });
        await c.sub.stop();
        await store.append(
          stream,
          [
            { type: 'E', data: { i: 1 } },
            { type: 'E', data: { i: 2 } },
          ],
          0,
        );
        await sleep(QUIET_MS * 2);
        assert.equal(c.events.length, 1, 'nothing is delivered after stop()');
        await c.sub.stop();
      });

      it('a failing handler is reported through onError and later events are not delivered past it', async () => {
        const stream = `${id}-fail-1`;
        const from = await store.headPosition();
        const boom = new Error('handler failed');
        const c = track(
          collect(store, { fromPosition: from, prefixes: [`${id}-fail-`] }, (event) => {
            if (event.revision === 1) throw boom;
          }),
        );
        await store.append(
          stream,
          Array.from({ length: 4 }, (_, i) => ({ type: 'E', data: { i } })),
          'no_stream',
        );
        await waitFor(() => c.errors.length >= 1, 'onError', { timeoutMs: WAIT_MS });
        await sleep(QUIET_MS);
        assert.equal(c.errors[0], boom, 'onError receives the handler error');
        assert.deepEqual(
          c.events.map((e) => e.revision),
          [0],
          'events after the failed one are not delivered (no silent skip)',
        );
      });
    });
  });
}
