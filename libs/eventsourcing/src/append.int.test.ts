/** The one append path: schema version and process id reach the stored metadata. */
import { type Decider } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { appendEvents, SCHEMA_VERSION } from './append.js';
import { handleCommand } from './command-handler.js';
import { appendToLedger } from './ledger.js';
import { reserveName } from './reservation.js';
import { openTempStore, type TempStore } from './testing/temp-store.js';

describe('appendEvents', () => {
  let t: TempStore;
  beforeEach(async () => {
    t = await openTempStore();
  });
  afterEach(async () => {
    await t.dispose();
  });

  it('stamps every event with the schema version, and the process id when given', async () => {
    assert.equal(SCHEMA_VERSION, 1);
    await appendEvents(
      t.store,
      'thing-1',
      [
        { type: 'A', data: { x: 1 } },
        { type: 'B', data: {} },
      ],
      'no_stream',
    );
    await appendEvents(t.store, 'thing-1', [{ type: 'C', data: {} }], 1, { processId: 'p-42' });
    const events = await t.store.readStream('thing-1');
    assert.deepEqual(
      events.map((e) => e.metadata),
      [{ schemaVersion: 1 }, { schemaVersion: 1 }, { schemaVersion: 1, processId: 'p-42' }],
    );
    assert.deepEqual(events[0].data, { x: 1 });
  });

  it('the building blocks append through it: commands, reservations and ledger entries carry the version', async () => {
    const decider: Decider<null, { type: 'Do' }, { type: 'Done'; data: object }> = {
      initialState: null,
      decide: () => [{ type: 'Done', data: {} }],
      evolve: (s) => s,
    };
    await handleCommand(t.store, 'agg-1', decider, { type: 'Do' }, { metadata: { processId: 'p-7' } });
    await reserveName(t.store, 'username-z', 'u1', 'username');
    await appendToLedger(t.store, 'allocation-z', { delta: 1, ref: 'r', reason: 'test' });
    assert.deepEqual((await t.store.readStream('agg-1'))[0].metadata, { schemaVersion: 1, processId: 'p-7' });
    assert.deepEqual((await t.store.readStream('username-z'))[0].metadata, { schemaVersion: 1 });
    assert.deepEqual((await t.store.readStream('allocation-z'))[0].metadata, { schemaVersion: 1 });
  });

  it('respects the expected revision', async () => {
    await appendEvents(t.store, 'thing-2', [{ type: 'A', data: {} }], 'no_stream');
    await assert.rejects(appendEvents(t.store, 'thing-2', [{ type: 'B', data: {} }], 'no_stream'), /expected revision/);
    assert.equal((await t.store.readStream('thing-2')).length, 1);
  });
});
