/** The running-total ledger on the real SQLite store: exact totals under concurrency, a limit that holds, entries found by ref. */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { appendToLedger, ensureLedgerEntry, findEntry, ledgerHead, undoLedgerEntry } from './ledger.js';
import { openTempStore, type TempStore } from './testing/temp-store.js';

describe('ledger', () => {
  let t: TempStore;
  beforeEach(async () => {
    t = await openTempStore();
  });
  afterEach(async () => {
    await t.dispose();
  });

  it('concurrent appends keep every running total exact', async () => {
    const deltas = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? -(i + 1) : 10 * (i + 1)));
    await Promise.all(
      deltas.map((delta, i) => appendToLedger(t.store, 'allocation-p', { delta, ref: `w${i}`, reason: 'test' })),
    );
    const entries = await t.store.readStream('allocation-p');
    assert.equal(entries.length, deltas.length);
    let total = 0;
    for (const e of entries) {
      total += e.data.delta as number;
      assert.equal(e.data.total, total, `entry ${e.revision}`);
    }
    assert.equal(
      total,
      deltas.reduce((a, b) => a + b, 0),
    );
    assert.deepEqual(await ledgerHead(t.store, 'allocation-p'), { total, revision: deltas.length - 1 });
    assert.deepEqual(entries.map((e) => e.data.ref).sort(), deltas.map((_, i) => `w${i}`).sort());
  });

  it('under concurrency the limit holds: exactly as many writes as fit go in, the rest are refused', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        appendToLedger(t.store, 'allocation-q', {
          delta: 10,
          ref: `w${i}`,
          reason: 'test',
          limit: 95,
          refusal: () => new Error('over the limit'),
        }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 9);
    for (const r of results) if (r.status === 'rejected') assert.equal((r.reason as Error).message, 'over the limit');
    assert.equal((await ledgerHead(t.store, 'allocation-q')).total, 90);
    // a negative delta is never refused, a zero delta appends nothing
    await appendToLedger(t.store, 'allocation-q', { delta: -100, ref: 'back', reason: 'test', limit: 0 });
    await appendToLedger(t.store, 'allocation-q', { delta: 0, ref: 'nothing', reason: 'test' });
    assert.deepEqual(await ledgerHead(t.store, 'allocation-q'), { total: -10, revision: 9 });
  });

  it('ensureLedgerEntry reads the ledger once when nothing was appended since the write began, and is still idempotent', async () => {
    await appendToLedger(t.store, 'usage-u', { delta: 5, ref: 'earlier', reason: 'test' });
    const after = (await ledgerHead(t.store, 'usage-u')).revision;
    const reads: string[] = [];
    const readStream = t.store.readStream.bind(t.store);
    t.store.readStream = (stream, options) => {
      reads.push(stream);
      return readStream(stream, options);
    };
    await ensureLedgerEntry(t.store, 'usage-u', { delta: 7, ref: 'p1', reason: 'test', after });
    assert.equal(reads.length, 1, 'the head only: no search for an entry that cannot be there');
    // redone (a recovery): the head moved, so the entry is looked for, found, and not appended twice
    await ensureLedgerEntry(t.store, 'usage-u', { delta: 7, ref: 'p1', reason: 'test', after });
    assert.deepEqual(
      (await t.store.readStream('usage-u')).map((e) => e.data.ref),
      ['earlier', 'p1'],
    );
    // undone once, then a second undo finds the undo; an undo of a write that made nothing appends nothing
    await undoLedgerEntry(t.store, 'usage-u', 'p1', after);
    await undoLedgerEntry(t.store, 'usage-u', 'p1', after);
    await undoLedgerEntry(t.store, 'usage-u', 'never', (await ledgerHead(t.store, 'usage-u')).revision);
    assert.deepEqual(
      (await t.store.readStream('usage-u')).map((e) => e.data.ref),
      ['earlier', 'p1', 'undo:p1'],
    );
    assert.equal((await ledgerHead(t.store, 'usage-u')).total, 5);
  });

  it('ensureLedgerEntry given the head the write began on appends without reading, and a head moved since is read again', async () => {
    await appendToLedger(t.store, 'usage-h', { delta: 5, ref: 'earlier', reason: 'test' });
    const head = await ledgerHead(t.store, 'usage-h');
    const reads: string[] = [];
    const readStream = t.store.readStream.bind(t.store);
    t.store.readStream = (stream, options) => {
      reads.push(stream);
      return readStream(stream, options);
    };
    await ensureLedgerEntry(t.store, 'usage-h', {
      delta: 7,
      ref: 'p1',
      reason: 'test',
      after: head.revision,
      head,
      limit: 12,
    });
    assert.equal(reads.length, 0, 'the head it was given: nothing to read');
    assert.deepEqual(await ledgerHead(t.store, 'usage-h'), { total: 12, revision: 1 });

    // another write appended after the head was read: the append on the stale head loses the race,
    // the next attempt reads, and the total and the limit are the ledger's, not the stale head's
    const stale = await ledgerHead(t.store, 'usage-h');
    await appendToLedger(t.store, 'usage-h', { delta: 3, ref: 'meanwhile', reason: 'test' });
    await assert.rejects(
      ensureLedgerEntry(t.store, 'usage-h', {
        delta: 4,
        ref: 'p2',
        reason: 'test',
        after: stale.revision,
        head: stale,
        limit: 18,
        refusal: () => new Error('over the limit'),
      }),
      /over the limit/,
    );
    await ensureLedgerEntry(t.store, 'usage-h', {
      delta: 4,
      ref: 'p3',
      reason: 'test',
      after: stale.revision,
      head: stale,
      limit: 19,
    });
    const entries = await readStream('usage-h');
    assert.deepEqual(
      entries.map((e) => [e.data.ref, e.data.total]),
      [
        ['earlier', 5],
        ['p1', 12],
        ['meanwhile', 15],
        ['p3', 19],
      ],
    );
    // redone with the same stale head (a retried step): found, not appended twice
    await ensureLedgerEntry(t.store, 'usage-h', {
      delta: 4,
      ref: 'p3',
      reason: 'test',
      after: stale.revision,
      head: stale,
      limit: 19,
    });
    assert.equal((await readStream('usage-h')).length, 4);
    // a head that is not the one the write began on (`after`) is not used
    reads.length = 0;
    await ensureLedgerEntry(t.store, 'usage-h', { delta: 1, ref: 'p4', reason: 'test', after: 3, head: stale });
    assert.ok(reads.length >= 1);
    assert.deepEqual(await ledgerHead(t.store, 'usage-h'), { total: 20, revision: 4 });
  });

  it('findEntry finds an entry by ref after a revision, across pages', async () => {
    await appendToLedger(t.store, 'allocation-r', { delta: 5, ref: 'early', reason: 'before' });
    const { revision: seen } = await ledgerHead(t.store, 'allocation-r');
    for (let i = 0; i < 600; i++)
      await appendToLedger(t.store, 'allocation-r', { delta: 1, ref: `filler-${i}`, reason: 'filler' });
    await appendToLedger(t.store, 'allocation-r', { delta: 42, ref: 'target', reason: 'the write' });

    assert.deepEqual(await findEntry(t.store, 'allocation-r', 'target', seen), {
      delta: 42,
      total: 5 + 600 + 42,
      ref: 'target',
      reason: 'the write',
    });
    assert.equal(
      await findEntry(t.store, 'allocation-r', 'early', seen),
      null,
      'entries at or before the revision are not searched',
    );
    assert.equal((await findEntry(t.store, 'allocation-r', 'early', null))?.delta, 5);
    assert.equal(await findEntry(t.store, 'allocation-r', 'missing', seen), null);
    assert.equal(await findEntry(t.store, 'allocation-r', 'target', 601), null);
    assert.equal(await findEntry(t.store, 'allocation-empty', 'target', null), null);
  });
});
