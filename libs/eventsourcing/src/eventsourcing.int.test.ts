import { badRequest, type Decider } from '@burrow/contracts';
import { MemoryDocumentStore } from '@burrow/documents';
import { SqliteEventStore } from '@burrow/event-store';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { handleCommand } from './command-handler.js';
import { ProjectionRunner } from './projection-runner.js';

type CounterEvent = { type: 'Incremented'; data: { by: number } };
const counter: Decider<{ total: number }, { type: 'Increment'; by: number }, CounterEvent> = {
  initialState: { total: 0 },
  decide: (c) => {
    if (c.by <= 0) throw badRequest('by must be positive', ['by']);
    return [{ type: 'Incremented', data: { by: c.by } }];
  },
  evolve: (s, e) => ({ total: s.total + e.data.by }),
};

describe('command handler and projection runner', () => {
  let dir: string;
  let store: SqliteEventStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'es-'));
    store = SqliteEventStore.open(join(dir, 'events.sqlite'), { pollIntervalMs: 10_000 });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('retries on concurrency conflicts: 30 parallel commands, no lost update', async () => {
    await Promise.all(
      Array.from({ length: 30 }, () => handleCommand(store, 'counter-1', counter, { type: 'Increment', by: 1 })),
    );
    const events = await store.readStream('counter-1');
    assert.equal(events.length, 30);
    assert.deepEqual(
      events.map((e) => e.revision),
      Array.from({ length: 30 }, (_, i) => i),
    );
  });

  it('passes domain errors through and appends nothing', async () => {
    await assert.rejects(
      handleCommand(store, 'counter-2', counter, { type: 'Increment', by: 0 }),
      /by must be positive/,
    );
    assert.equal((await store.readStream('counter-2')).length, 0);
  });

  it('waitFor resolves once the projection has applied the position (read-your-writes)', async () => {
    const docs = new MemoryDocumentStore();
    const totals = docs.collection<{ _id: string; total: number }>('totals');
    const runner = new ProjectionRunner(store, docs, [
      {
        name: 'totals',
        prefixes: ['counter-'],
        async apply(e, uow) {
          const totals = uow.collection<{ _id: string; total: number }>('totals');
          const doc = (await totals.get(e.stream)) ?? { _id: e.stream, total: 0 };
          doc.total += e.data.by as number;
          await totals.upsert(doc);
        },
      },
    ]);
    await handleCommand(store, 'counter-3', counter, { type: 'Increment', by: 2 });
    await runner.start();
    assert.equal((await totals.get('counter-3'))?.total, 2, 'catch-up applied history before start resolved');
    // the poll interval is 10 s: only the append notification can make this fast
    const { position } = await handleCommand(store, 'counter-3', counter, { type: 'Increment', by: 5 });
    await runner.waitFor(position, 2000);
    assert.equal((await totals.get('counter-3'))?.total, 7);
    // events of other streams advance the checkpoint without being applied
    const other = await store.append('unrelated-1', [{ type: 'X', data: {} }], 'any');
    await runner.waitFor(other.position, 2000);
    assert.equal(runner.currentPosition, other.position);
    await runner.stop();
  });

  it('waitFor gives up with a 503 when the position never arrives', async () => {
    const runner = new ProjectionRunner(store, new MemoryDocumentStore(), []);
    await runner.start();
    await assert.rejects(runner.waitFor(999, 100), (e: { status?: number }) => e.status === 503);
    await runner.stop();
  });

  it('a restarted runner on a durable document store resumes from its checkpoint', async () => {
    const docs = new MemoryDocumentStore();
    const applied: number[] = [];
    const projection = {
      name: 'p',
      prefixes: ['counter-'],
      apply: async (e: { position: number }) => void applied.push(e.position),
    };
    await handleCommand(store, 'counter-4', counter, { type: 'Increment', by: 1 });
    const first = new ProjectionRunner(store, docs, [projection]);
    await first.start();
    await first.stop();
    const { position } = await handleCommand(store, 'counter-4', counter, { type: 'Increment', by: 1 });
    const second = new ProjectionRunner(store, docs, [projection]);
    await second.start();
    await second.waitFor(position);
    await second.stop();
    assert.equal(applied.length, 2, 'each event applied exactly once across the restart');
  });
});
