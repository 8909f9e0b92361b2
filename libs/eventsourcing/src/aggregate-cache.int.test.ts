/** The aggregate cache against the real SQLite store: what it serves is what a full read would give. */
import type { Decider } from '@burrow/contracts';
import { type EventStore, type ReadOptions, SqliteEventStore } from '@burrow/event-store';
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  aggregateCacheSize,
  clearAggregateCache,
  configureAggregateCache,
  DEFAULT_AGGREGATE_CACHE_STREAMS,
} from './aggregate-cache.js';
import { handleCommand, loadAggregate, toDomainEvent } from './command-handler.js';

interface Tally {
  items: string[];
  total: number;
}
type Added = { type: 'Added'; data: { item: string; by: number } };
const tally: Decider<Tally, { type: 'Add'; item: string; by: number }, Added> = {
  initialState: { items: [], total: 0 },
  decide: (c) => [{ type: 'Added', data: { item: c.item, by: c.by } }],
  evolve: (s, e) => ({ items: [...s.items, e.data.item], total: s.total + e.data.by }),
};

/** The store, with every readStream's options recorded. */
function spying(store: EventStore): { store: EventStore; reads: (ReadOptions | undefined)[] } {
  const reads: (ReadOptions | undefined)[] = [];
  const spy: EventStore = Object.create(store);
  spy.readStream = (stream, options) => {
    reads.push(options);
    return store.readStream(stream, options);
  };
  spy.append = (stream, events, expected) => store.append(stream, events, expected);
  spy.storeId = () => store.storeId();
  return { store: spy, reads };
}

describe('aggregate cache', () => {
  let dir: string;
  let file: string;
  let store: SqliteEventStore;
  const add = (s: EventStore, stream: string, item: string, by = 1) =>
    handleCommand(s, stream, tally, { type: 'Add', item, by });
  /** the stream read whole and folded, by hand */
  const uncached = async (stream: string) => {
    const recorded = await store.readStream(stream);
    return {
      state: recorded.map((e) => toDomainEvent<Added>(e)).reduce(tally.evolve, tally.initialState),
      revision: recorded.at(-1)?.revision ?? null,
    };
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'burrow-aggcache-'));
    file = join(dir, 'events.sqlite');
    store = SqliteEventStore.open(file, { pollIntervalMs: 20 });
    clearAggregateCache();
  });
  afterEach(async () => {
    configureAggregateCache({
      maxStreams: DEFAULT_AGGREGATE_CACHE_STREAMS,
      freeze: process.env.BURROW_FREEZE_AGGREGATES === '1',
    });
    clearAggregateCache();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the state a full read gives, reading only from the cached revision on', async () => {
    const { store: spy, reads } = spying(store);
    for (let i = 0; i < 5; i++) {
      await add(spy, 'tally-1', `i${i}`, i);
      assert.deepEqual(await loadAggregate(spy, 'tally-1', tally), await uncached('tally-1'));
    }
    assert.deepEqual(await loadAggregate(spy, 'tally-1', tally), {
      state: { items: ['i0', 'i1', 'i2', 'i3', 'i4'], total: 10 },
      revision: 4,
    });
    // the first command read the empty stream, the first load the whole stream; every later read
    // starts at the cached revision
    assert.deepEqual(reads.slice(0, 2), [undefined, undefined]);
    assert.ok(
      reads.slice(2).every((o) => o?.fromRevision !== undefined),
      JSON.stringify(reads),
    );
    assert.equal(reads.at(-1)?.fromRevision, 4);
  });

  it('sees an append made by another store on the same file', async () => {
    await add(store, 'tally-1', 'a');
    await loadAggregate(store, 'tally-1', tally);
    const other = SqliteEventStore.open(file);
    try {
      assert.equal(await other.storeId(), await store.storeId());
      await add(other, 'tally-1', 'b', 5);
    } finally {
      await other.close();
    }
    assert.deepEqual(await loadAggregate(store, 'tally-1', tally), {
      state: { items: ['a', 'b'], total: 6 },
      revision: 1,
    });
  });

  it('a conflict drops the entry: the retry reads the whole stream', async () => {
    await add(store, 'tally-1', 'a');
    await loadAggregate(store, 'tally-1', tally);
    const { store: spy, reads } = spying(store);
    let raced = false;
    const racing: EventStore = Object.create(spy);
    racing.append = async (stream, events, expected) => {
      if (!raced) {
        raced = true; // another writer gets in between this command's read and its append
        await store.append(stream, [{ type: 'Added', data: { item: 'x', by: 100 } }], 'any');
      }
      return store.append(stream, events, expected);
    };
    const result = await add(racing, 'tally-1', 'b', 2);
    assert.deepEqual(result.state, { items: ['a', 'x', 'b'], total: 103 });
    assert.deepEqual(reads, [{ fromRevision: 0 }, undefined]);
    assert.deepEqual(await loadAggregate(store, 'tally-1', tally), await uncached('tally-1'));
  });

  it('a stream whose revision went backwards (a backup restored) is read whole, not served from the cache', async () => {
    await add(store, 'tally-1', 'a');
    await add(store, 'tally-1', 'b');
    await store.close();
    await copyFile(file, join(dir, 'backup.sqlite'));
    store = SqliteEventStore.open(file);
    await add(store, 'tally-1', 'c');
    await add(store, 'tally-1', 'd');
    assert.equal((await loadAggregate(store, 'tally-1', tally)).revision, 3);
    await store.close();
    await copyFile(join(dir, 'backup.sqlite'), file);
    store = SqliteEventStore.open(file);
    assert.deepEqual(await loadAggregate(store, 'tally-1', tally), {
      state: { items: ['a', 'b'], total: 2 },
      revision: 1,
    });
    // written again up to the cached revision: other events at the same revisions
    await store.append(
      'tally-1',
      [
        { type: 'Added', data: { item: 'e', by: 7 } },
        { type: 'Added', data: { item: 'f', by: 7 } },
      ],
      1,
    );
    clearAggregateCache();
    await add(store, 'tally-1', 'g', 0); // cached at revision 3 (an Added event) on the restored store
    await store.close();
    await copyFile(join(dir, 'backup.sqlite'), file);
    store = SqliteEventStore.open(file);
    await store.append(
      'tally-1',
      [
        { type: 'Renamed', data: {} },
        { type: 'Renamed', data: {} },
        { type: 'Renamed', data: {} },
      ],
      1,
    );
    assert.deepEqual(await loadAggregate(store, 'tally-1', tally), await uncached('tally-1'));
    assert.deepEqual((await loadAggregate(store, 'tally-1', tally)).state.items, [
      'a',
      'b',
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('keeps at most maxStreams streams, dropping the least recently used', async () => {
    configureAggregateCache({ maxStreams: 2 });
    for (const s of ['tally-1', 'tally-2', 'tally-3']) await add(store, s, s);
    for (const s of ['tally-1', 'tally-2', 'tally-3']) await loadAggregate(store, s, tally);
    assert.equal(aggregateCacheSize(), 2);
    const { store: spy, reads } = spying(store);
    await loadAggregate(spy, 'tally-3', tally);
    await loadAggregate(spy, 'tally-1', tally); // evicted: read whole, and now tally-2 is the oldest
    await loadAggregate(spy, 'tally-2', tally);
    assert.deepEqual(reads, [{ fromRevision: 0 }, undefined, undefined]);
  });

  it('keys by decider: another decider folds the same stream for itself', async () => {
    const count: Decider<number, never, Added> = { initialState: 0, decide: () => [], evolve: (n) => n + 1 };
    await add(store, 'tally-1', 'a');
    await add(store, 'tally-1', 'b');
    await loadAggregate(store, 'tally-1', tally);
    assert.deepEqual(await loadAggregate(store, 'tally-1', count), { state: 2, revision: 1 });
  });

  it('with freezing on, a decider that modifies a cached state throws', async () => {
    configureAggregateCache({ freeze: true });
    const sloppy: Decider<Tally, { type: 'Add'; item: string; by: number }, Added> = {
      ...tally,
      initialState: { items: [], total: 0 },
      evolve: (s, e) => {
        s.items.push(e.data.item);
        return { items: s.items, total: s.total + e.data.by };
      },
    };
    await assert.rejects(async () => {
      await handleCommand(store, 'tally-9', sloppy, { type: 'Add', item: 'a', by: 1 });
      await handleCommand(store, 'tally-9', sloppy, { type: 'Add', item: 'b', by: 1 }); // folds onto the frozen cached state
    }, TypeError);
    const maps: Decider<{ m: Map<string, number> }, never, Added> = {
      initialState: { m: new Map() },
      decide: () => [],
      evolve: (s, e) => {
        s.m.set(e.data.item, e.data.by);
        return { m: s.m };
      },
    };
    await add(store, 'tally-8', 'a');
    await loadAggregate(store, 'tally-8', maps);
    await add(store, 'tally-8', 'b');
    await assert.rejects(loadAggregate(store, 'tally-8', maps), /cached aggregate state was modified/);
  });
});
