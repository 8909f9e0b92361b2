/**
 * Facts remembered with a stream's revision (StreamFacts, and the reservation holder built on it):
 * read once while nothing is appended, read again after any append, including one through another
 * connection to the same store (another process or replica, which this process hears nothing of).
 */
import { SqliteEventStore } from '@burrow/event-store';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { releaseName, reservationHolder, reserveName } from './reservation.js';
import { StreamFacts } from './stream-facts.js';
import { openTempStore, type TempStore } from './testing/temp-store.js';

describe('facts remembered with a stream revision', () => {
  let t: TempStore;
  /** a second connection to the same file: what another process appends */
  let other: SqliteEventStore;
  beforeEach(async () => {
    t = await openTempStore();
    other = SqliteEventStore.open(t.file, { pollIntervalMs: 20 });
  });
  afterEach(async () => {
    await other.close();
    await t.dispose();
  });

  /** counts the reads, and gives the number of events in the stream as the fact */
  function counted(facts: StreamFacts<number>) {
    let reads = 0;
    const get = (stream: string) =>
      facts.get(t.store, stream, async () => {
        reads += 1;
        const events = await t.store.readStream(stream);
        return events.length ? { revision: events.at(-1)!.revision, facts: events.length } : null;
      });
    return { get, reads: () => reads };
  }

  it('reads a stream once while its revision stands, and again after an append by this or another connection', async () => {
    const c = counted(new StreamFacts<number>());
    assert.equal(await c.get('s-1'), null, 'no stream: no facts, nothing read');
    assert.equal(c.reads(), 0);
    await t.store.append('s-1', [{ type: 'A', data: {} }], 'no_stream');
    assert.equal(await c.get('s-1'), 1);
    assert.equal(await c.get('s-1'), 1);
    assert.equal(c.reads(), 1, 'remembered');
    await t.store.append('s-1', [{ type: 'B', data: {} }], 0);
    assert.equal(await c.get('s-1'), 2, 'an append here is seen');
    await other.append('s-1', [{ type: 'C', data: {} }], 1);
    assert.equal(await c.get('s-1'), 3, 'an append through another connection is seen');
    assert.equal(c.reads(), 3);
  });

  it('remembers at most `limit` streams per store: the longest remembered is read again', async () => {
    const c = counted(new StreamFacts<number>(2));
    for (const s of ['a', 'b', 'c']) await t.store.append(s, [{ type: 'A', data: {} }], 'no_stream');
    for (const s of ['a', 'b', 'c']) await c.get(s);
    assert.equal(c.reads(), 3);
    await c.get('c');
    assert.equal(c.reads(), 3, 'c is remembered');
    await c.get('a');
    assert.equal(c.reads(), 4, 'a was forgotten');
  });

  it('a reservation released or taken through another connection is seen on the next look', async () => {
    await reserveName(t.store, 'username-ann', 'u1', 'username');
    assert.equal(await reservationHolder(t.store, 'username-ann'), 'u1');
    assert.equal(await reservationHolder(t.store, 'username-ann'), 'u1');
    await releaseName(other, 'username-ann', 'u1');
    assert.equal(await reservationHolder(t.store, 'username-ann'), null, 'the release elsewhere is seen');
    await reserveName(other, 'username-ann', 'u2', 'username');
    assert.equal(await reservationHolder(t.store, 'username-ann'), 'u2', 'the new holder is seen');
  });
});
