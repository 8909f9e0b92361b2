import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { deferDurability, type Subscription, WrongExpectedRevisionError } from './port.js';
import { SqliteEventStore, type SqliteEventStoreOptions } from './sqlite.js';

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

  it('a deferred view commits at once, visible and in order, and the revision check holds', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-sync-'));
    try {
      const store = SqliteEventStore.open(join(dir, 'events.sqlite'));
      const deferred = deferDurability(store);
      assert.notEqual(deferred, store);
      const a = await deferred.append('s-1', [{ type: 'A', data: {} }], 'no_stream');
      assert.equal((await store.readStream('s-1')).length, 1, 'visible to a read right after');
      const b = await store.append('s-1', [{ type: 'B', data: {} }], 0);
      assert.ok(b.position > a.position);
      await assert.rejects(
        deferred.append('s-1', [{ type: 'C', data: {} }], 0),
        WrongExpectedRevisionError,
        'the revision check holds',
      );
      assert.equal(store.synchronous(), 'full');
      await store.close();

      const relaxed = SqliteEventStore.open(join(dir, 'events.sqlite'), { synchronous: 'normal' });
      await deferDurability(relaxed).append('s-2', [{ type: 'A', data: {} }], 'no_stream');
      await relaxed.append('s-2', [{ type: 'B', data: {} }], 0);
      assert.equal(relaxed.walSyncs, 0, 'a store run with NORMAL never syncs the WAL itself');
      assert.equal(relaxed.synchronous(), 'normal', 'a store run with NORMAL stays NORMAL');
      assert.deepEqual(
        (await relaxed.readStream('s-1')).map((e) => e.type),
        ['A', 'B'],
      );
      await relaxed.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/**
 * The WAL sync of `full` durability runs in the thread pool after the commit. White box: the sync
 * is replaced by one the test releases, which is what a slow disk looks like to the store.
 */
describe('SqliteEventStore: durable appends acknowledged after the WAL sync', () => {
  interface Gate {
    /** syncs started and not yet released */
    started: number;
    release(error?: Error): void;
    /** resolves when a sync has started */
    syncStarted(): Promise<void>;
  }
  function gateSyncs(store: SqliteEventStore): Gate {
    const seam = store as unknown as { syncWal(): Promise<void> };
    const real = seam.syncWal.bind(store);
    let held: { go: (error?: Error) => void }[] = [];
    let started: (() => void) | null = null;
    const gate: Gate = {
      started: 0,
      release(error) {
        const now = held;
        held = [];
        gate.started -= now.length;
        for (const h of now) h.go(error);
      },
      syncStarted: () => (gate.started > 0 ? Promise.resolve() : new Promise<void>((resolve) => (started = resolve))),
    };
    seam.syncWal = () =>
      new Promise<void>((resolve, reject) => {
        gate.started += 1;
        held.push({
          go: (error) => {
            if (error) reject(error);
            else real().then(resolve, reject);
          },
        });
        started?.();
        started = null;
      });
    return gate;
  }
  /** settles to 'pending' when `promise` has not settled after the pending callbacks ran */
  const state = async (promise: Promise<unknown>) =>
    Promise.race([
      promise.then(
        () => 'resolved',
        () => 'rejected',
      ),
      new Promise((resolve) => setImmediate(() => resolve('pending'))),
    ]);

  async function withStore(test: (store: SqliteEventStore, gate: Gate, file: string) => Promise<void>): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-walsync-'));
    const store = SqliteEventStore.open(join(dir, 'events.sqlite'));
    try {
      await test(store, gateSyncs(store), join(dir, 'events.sqlite'));
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  }

  it('is visible at commit, and announced and acknowledged only after its sync', () =>
    withStore(async (store, gate) => {
      const announced: number[] = [];
      store.setOnAppended((position) => announced.push(position));
      const append = store.append('s-1', [{ type: 'A', data: {} }], 'no_stream');
      await gate.syncStarted();
      assert.deepEqual(
        (await store.readStream('s-1')).map((e) => e.type),
        ['A'],
        'readers see it at commit',
      );
      assert.equal(await state(append), 'pending', 'not acknowledged before the sync');
      assert.deepEqual(announced, [], 'not announced before the sync');
      gate.release();
      assert.equal((await append).revision, 0);
      assert.deepEqual(announced, [1]);
      assert.equal(store.walSyncs, 1);
    }));

  it('concurrent durable appends share fewer syncs than appends', () =>
    withStore(async (store, gate) => {
      const first = store.append('s-0', [{ type: 'A', data: {} }], 'no_stream');
      await gate.syncStarted();
      // 20 appends arrive while the first sync runs: they wait for the next one, together
      const more = Array.from({ length: 20 }, (_, i) =>
        store.append(`s-${i + 1}`, [{ type: 'A', data: {} }], 'no_stream'),
      );
      assert.equal(gate.started, 1, 'one sync at a time');
      gate.release();
      await first;
      await gate.syncStarted();
      assert.equal(
        await state(Promise.all(more)),
        'pending',
        'committed after the first sync started: not covered by it',
      );
      gate.release();
      await Promise.all(more);
      assert.equal(store.walSyncs, 2, '21 appends, 2 syncs');
    }));

  it('a deferred append never waits for a sync', () =>
    withStore(async (store, gate) => {
      const durable = store.append('s-1', [{ type: 'A', data: {} }], 'no_stream');
      await gate.syncStarted();
      const deferred = deferDurability(store).append('s-2', [{ type: 'B', data: {} }], 'no_stream');
      assert.equal(await state(deferred), 'resolved', 'acknowledged while a sync is held');
      assert.equal(await state(durable), 'pending');
      gate.release();
      await durable;
      assert.equal(store.walSyncs, 1, 'the deferred append asked for no sync');
    }));

  it('a failed sync rejects the appends it was to cover, and every later durable append', () =>
    withStore(async (store, gate) => {
      const lost = store.append('s-1', [{ type: 'A', data: {} }], 'no_stream');
      await gate.syncStarted();
      gate.release(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
      await assert.rejects(lost, /EIO/);
      // a later sync could succeed without the lost frames being on disk: not acknowledged
      await assert.rejects(store.append('s-2', [{ type: 'B', data: {} }], 'no_stream'), /EIO/);
      assert.equal(gate.started, 0, 'no sync tried after the failure');
      assert.equal(
        (await deferDurability(store).append('s-3', [{ type: 'C', data: {} }], 'no_stream')).revision,
        0,
        'deferred appends go on',
      );
    }));

  it('close with syncs pending settles every waiter, and closes the database at once', () =>
    withStore(async (store, gate, file) => {
      const appends = [store.append('s-0', [{ type: 'A', data: {} }], 'no_stream')];
      await gate.syncStarted();
      for (let i = 1; i < 5; i++) appends.push(store.append(`s-${i}`, [{ type: 'A', data: {} }], 'no_stream'));
      const closed = store.close(); // not awaited first: callers that do not await still close the database
      await assert.rejects(store.append('late', [{ type: 'A', data: {} }], 'no_stream'), /not open/, 'closed at once');
      assert.equal(await state(closed), 'pending', 'close waits for the pending syncs');
      gate.release(); // the first sync, then the second (for the four that came after it started)
      await gate.syncStarted();
      gate.release();
      const outcomes = await Promise.allSettled(appends);
      assert.deepEqual(
        outcomes.map((o) => o.status),
        Array(5).fill('fulfilled'),
      );
      await closed;
      const reopened = SqliteEventStore.open(file);
      assert.equal(await reopened.headPosition(), 5, 'every acknowledged append is in the file');
      await reopened.close();
    }));

  it('close with real syncs in flight settles every waiter (no gate)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-walsync-'));
    try {
      const store = SqliteEventStore.open(join(dir, 'events.sqlite'));
      const appends = Array.from({ length: 10 }, (_, i) =>
        store.append(`s-${i}`, [{ type: 'A', data: {} }], 'no_stream'),
      );
      void store.close();
      const outcomes = await Promise.allSettled(appends);
      assert.deepEqual(
        outcomes.map((o) => o.status),
        Array(10).fill('fulfilled'),
      );
      await store.close();
      assert.ok(store.walSyncs >= 1 && store.walSyncs < 10, `10 appends, ${store.walSyncs} syncs`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('two stores on one file (two replicas) each acknowledge after their own sync, across checkpoints', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-walsync-'));
    const file = join(dir, 'events.sqlite');
    try {
      const a = SqliteEventStore.open(file);
      const b = SqliteEventStore.open(file);
      for (let i = 0; i < 30; i++) {
        await Promise.all([
          a.append(`a-${i}`, [{ type: 'A', data: {} }], 'no_stream'),
          b.append(`b-${i}`, [{ type: 'B', data: {} }], 'no_stream'),
        ]);
        // a checkpoint by one rewinds the WAL the other's kept descriptor names
        if (i % 10 === 5)
          (a as unknown as { db: { pragma(sql: string): unknown } }).db.pragma('wal_checkpoint(TRUNCATE)');
      }
      await a.close();
      await b.append('b-last', [{ type: 'B', data: {} }], 'no_stream');
      assert.equal(await b.headPosition(), 61);
      await b.close();
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

  it('a subscription catching up gives the event loop a turn now and then: a timer fires before it has caught up', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-catch-up-'));
    const store = SqliteEventStore.open(join(dir, 'events.sqlite'), { pollIntervalMs: 60_000, synchronous: 'normal' });
    try {
      // 2,000 events (four reads of 500), each handled in ~0.25 ms of synchronous work and no
      // I/O, as a rebuild into SQLite handles them: 500 ms of promise chains alone
      for (let i = 0; i < 20; i++)
        await store.append(
          `s-${i}`,
          Array.from({ length: 100 }, () => ({ type: 'E', data: {} })),
          'no_stream',
        );
      let handled = 0;
      let handledWhenTimerFired = -1;
      const timer = setTimeout(() => (handledWhenTimerFired = handled), 0);
      let caughtUp!: () => void;
      const done = new Promise<void>((resolve) => (caughtUp = resolve));
      const sub = store.subscribeToAll(
        { fromPosition: 0, prefixes: [] },
        {
          onEvent: async () => {
            const until = performance.now() + 0.25;
            while (performance.now() < until);
            handled++;
          },
          onCheckpoint: () => caughtUp(),
        },
      );
      await done;
      clearTimeout(timer);
      await sub.stop();
      assert.equal(handled, 2_000);
      assert.ok(
        handledWhenTimerFired >= 0 && handledWhenTimerFired < 2_000,
        `the timer fired after ${handledWhenTimerFired} of 2,000 events (-1: not before the catch-up ended)`,
      );
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  /** Whether `delivered` settles well before the 60 s poll the stores below use. */
  async function beforeThePoll(delivered: Promise<void>): Promise<'live' | 'late'> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), 10_000)));
    const outcome = await Promise.race([delivered.then(() => 'live' as const), late]);
    clearTimeout(timer);
    return outcome;
  }

  /**
   * A store on a fresh file (a 60 s poll: only wake-ups deliver in time) with a live subscriber
   * recording what it is given, in order, asleep when `body` starts; `checkpointed()` resolves at
   * the subscriber's next checkpoint.
   */
  async function withSubscriber(
    options: SqliteEventStoreOptions,
    body: (s: {
      store: SqliteEventStore;
      log: string[];
      sub: Subscription;
      checkpointed: () => Promise<void>;
    }) => Promise<void>,
  ): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-live-'));
    const store = SqliteEventStore.open(join(dir, 'events.sqlite'), { pollIntervalMs: 60_000, ...options });
    try {
      const log: string[] = [];
      let next: (() => void) | null = null;
      const checkpointed = () => new Promise<void>((resolve) => (next = resolve));
      // the first checkpoint is reported from within subscribeToAll
      const live = checkpointed();
      const sub = store.subscribeToAll(
        { fromPosition: 0, prefixes: [] },
        {
          onEvent: (event) => void log.push(event.type),
          onCheckpoint: () => {
            log.push('checkpoint');
            next?.();
          },
        },
      );
      await live;
      await turn(); // asleep, waiting to be woken
      log.length = 0;
      await body({ store, log, sub, checkpointed });
      await sub.stop();
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  }

  it('appends announced in one turn of the event loop are read in one go (one batch for a read model, not one each)', async () => {
    // `normal`: a durable append is announced before append() returns, in the caller's turn
    await withSubscriber({ synchronous: 'normal' }, async ({ store, log, checkpointed }) => {
      const done = checkpointed();
      // one after the other, as the steps of one write or the writes a WAL sync settles
      await store.append('s-1', [{ type: 'A', data: {} }], 'no_stream');
      await store.append('s-2', [{ type: 'B', data: {} }], 'no_stream');
      await store.append('s-3', [{ type: 'C', data: {} }], 'no_stream');
      await done;
      assert.deepEqual(
        log,
        ['A', 'B', 'C', 'checkpoint'],
        'woken at the first append, the subscriber reads before the others',
      );
    });
  });

  it('a deferred append is announced with the next durable one', async () => {
    const announced: number[] = [];
    await withSubscriber(
      { deferredAnnounceMs: 60_000, onAppended: (position) => announced.push(position) },
      async ({ store, log, checkpointed }) => {
        const deferred = deferDurability(store);
        await deferred.append('p-1', [{ type: 'Started', data: {} }], 'no_stream');
        await deferred.append('u-1', [{ type: 'Reserved', data: {} }], 'no_stream');
        await turn();
        assert.deepEqual(announced, [], 'not announced on its own');
        const done = checkpointed();
        const { position } = await store.append('f-1', [{ type: 'Committed', data: {} }], 'no_stream');
        await done;
        assert.deepEqual(announced, [position], 'one announcement for the three');
        assert.deepEqual(log, ['Started', 'Reserved', 'Committed', 'checkpoint'], 'delivered together');
      },
    );
  });

  it('a deferred append with no durable one after it is announced on its own soon after, not at the next poll', async () => {
    await withSubscriber({ deferredAnnounceMs: 5 }, async ({ store, log, checkpointed }) => {
      const done = checkpointed();
      await deferDurability(store).append('p-1', [{ type: 'Ended', data: {} }], 'no_stream');
      assert.equal(await beforeThePoll(done), 'live');
      assert.deepEqual(log, ['Ended', 'checkpoint']);
    });
  });

  it('wake() makes a subscription read at once what nobody announced yet', async () => {
    await withSubscriber({ deferredAnnounceMs: 60_000 }, async ({ store, log, sub, checkpointed }) => {
      await deferDurability(store).append('p-1', [{ type: 'Started', data: {} }], 'no_stream');
      const done = checkpointed();
      sub.wake!();
      assert.equal(await beforeThePoll(done), 'live');
      assert.deepEqual(log, ['Started', 'checkpoint']);
    });
  });
});

/** Group commit: the appends one turn of the event loop sets off after its first share one transaction (issue 37). */
describe('SqliteEventStore group commit', () => {
  async function withStore(test: (store: SqliteEventStore) => Promise<void>): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-group-'));
    const store = SqliteEventStore.open(join(dir, 'events.sqlite'));
    try {
      await test(store);
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  }
  const event = (type: string) => [{ type, data: {} }];

  it('concurrent appends: the first commits alone, the rest share one transaction; a failing revision check fails that append alone', () =>
    withStore(async (store) => {
      await store.append('taken', event('A'), 'no_stream');
      const before = store.appendTransactions;
      const outcomes = await Promise.allSettled([
        store.append('s-1', event('A'), 'no_stream'),
        deferDurability(store).append('s-2', event('A'), 'no_stream'),
        store.append('taken', event('B'), 'no_stream'), // exists: refused
        store.append('taken', event('C'), 0),
        store.append('s-3', event('A'), 'any'),
      ]);
      assert.equal(store.appendTransactions - before, 2, 'five appends, two transactions');
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
      );
      assert.ok((outcomes[2] as PromiseRejectedResult).reason instanceof WrongExpectedRevisionError);
      assert.deepEqual(
        (await store.readStream('taken')).map((e) => e.type),
        ['A', 'C'],
        'the refused append left nothing',
      );
      const positions = outcomes
        .filter((o) => o.status === 'fulfilled')
        .map((o) => (o as PromiseFulfilledResult<{ position: number }>).value.position);
      assert.deepEqual(
        positions,
        [...positions].sort((a, b) => a - b),
        'positions in call order',
      );
      assert.equal(await store.headPosition(), 5);
    }));

  it('appends to one stream in one group are checked in call order, each against the ones before it', () =>
    withStore(async (store) => {
      const before = store.appendTransactions;
      const outcomes = await Promise.allSettled([
        store.append('s', event('A'), 'no_stream'),
        store.append('s', event('B'), 0),
        store.append('s', event('C'), 0), // B is revision 1 now
        store.append('s', event('D'), 'stream_exists'),
      ]);
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
      );
      assert.deepEqual(
        (await store.readStream('s')).map((e) => `${e.type}${e.revision}`),
        ['A0', 'B1', 'D2'],
      );
      assert.equal(store.appendTransactions - before, 2, 'A alone, then B, C and D in one');
    }));

  it('an append is visible to a read made after it was called, before its promise settles, and after', () =>
    withStore(async (store) => {
      const append = store.append('s', event('A'), 'no_stream');
      assert.equal(await store.streamRevision('s'), 0, 'a read right after the call sees it');
      const deferred = deferDurability(store).append('s', event('B'), 0); // queued: the second of the burst
      const third = store.append('s', event('X'), 5); // refused, when the read commits the queue
      assert.deepEqual(
        (await store.readStream('s')).map((e) => e.type),
        ['A', 'B'],
      );
      await assert.rejects(third, WrongExpectedRevisionError);
      await Promise.all([append, deferred]);
      await store.append('s', event('C'), 1);
      assert.equal(await store.headPosition(), 3);
    }));

  it('appends set off by one callback in several promise steps join one group; a later turn gets its own', () =>
    withStore(async (store) => {
      const before = store.appendTransactions;
      const steps = async (i: number) => {
        await Promise.resolve();
        await Promise.resolve();
        return store.append(`s-${i}`, event('A'), 'no_stream');
      };
      await Promise.all([store.append('s-0', event('A'), 'no_stream'), steps(1), steps(2)]);
      assert.equal(store.appendTransactions - before, 2, 's-0 alone, s-1 and s-2 together');
      await new Promise((resolve) => setImmediate(resolve));
      await store.append('s-3', event('A'), 'no_stream');
      assert.equal(store.appendTransactions - before, 3, 'a later turn: a burst of its own');
    }));

  it('appends called before close are committed; one called after it fails', () =>
    withStore(async (store) => {
      const appends = [
        store.append('s-1', event('A'), 'no_stream'),
        deferDurability(store).append('s-2', event('A'), 'no_stream'),
      ];
      const closed = store.close();
      await assert.rejects(store.append('late', event('A'), 'no_stream'), /not open/);
      assert.deepEqual(
        (await Promise.allSettled(appends)).map((o) => o.status),
        ['fulfilled', 'fulfilled'],
      );
      await closed;
    }));
});

describe('SqliteEventStore streamRevision, remembered', () => {
  const event = (type: string) => [{ type, data: {} }];

  it('answers what another connection to the file committed at once, and what its own appends committed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-revisions-'));
    const file = join(dir, 'events.sqlite');
    const a = SqliteEventStore.open(file);
    const b = SqliteEventStore.open(file);
    try {
      assert.equal(await a.streamRevision('s'), null, 'no stream yet (remembered as none)');
      await b.append('s', event('A'), 'no_stream');
      assert.equal(await a.streamRevision('s'), 0, "the other connection's commit is seen at once");
      assert.equal(await a.streamRevision('s'), 0, 'and again, remembered');
      await a.append('s', event('B'), 0);
      assert.equal(await a.streamRevision('s'), 1, 'its own append');
      assert.equal(await b.streamRevision('s'), 1);
      await b.append('s', event('C'), 1);
      await b.append('t', event('A'), 'no_stream');
      assert.equal(await a.streamRevision('s'), 2);
      assert.equal(await a.streamRevision('t'), 0);
    } finally {
      await a.close();
      await b.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('after a group commit with a refused append, each stream is at the revision its events reach', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-revisions-'));
    const store = SqliteEventStore.open(join(dir, 'events.sqlite'));
    try {
      await store.append('x', event('A'), 'no_stream');
      assert.equal(await store.streamRevision('x'), 0);
      assert.equal(await store.streamRevision('y'), null);
      const outcomes = await Promise.allSettled([
        store.append('x', event('B'), 0),
        store.append('x', event('C'), 0), // refused: B is revision 1
        store.append('y', event('A'), 'no_stream'),
        store.append('y', event('B'), 5), // refused
        store.append('x', event('D'), 1),
      ]);
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled'],
      );
      for (const stream of ['x', 'y']) {
        const events = await store.readStream(stream);
        assert.equal(await store.streamRevision(stream), events[events.length - 1].revision, stream);
      }
      assert.equal(await store.streamRevision('x'), 2);
      assert.equal(await store.streamRevision('y'), 0);
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
