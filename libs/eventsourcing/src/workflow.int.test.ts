/**
 * The workflow runner (`defineWorkflow` + `ProcessLog.run`) on the real SQLite store: the steps run
 * in order between their fault points (a step whose `when` says no has none), what a step learned
 * is noted before the next one, the request waits for the read models up to the commit point or
 * what `complete` appended after it (unless the workflow leaves that to its caller), and a failure
 * before the commit point undoes the steps that apply, last first, records it and rethrows.
 * Recovery compensates with the same undos.
 */
import { conflict } from '@burrow/contracts';
import { MemoryDocumentStore } from '@burrow/documents';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { appendEvents } from './append.js';
import { ProjectionRunner } from './projection-runner.js';
import { openTempStore, type TempStore } from './testing/temp-store.js';
import { defineWorkflow } from './workflow.js';
import { claimNewStream, pendingProcessesProjection, ProcessRecovery } from './process-recovery.js';
import { ProcessLog, processStream } from './write-process.js';

interface Make {
  thingId: string;
  withLabel: boolean;
  /** noted by the `number` step */
  number?: number;
}

describe('workflow runner', () => {
  let t: TempStore;
  let docs: MemoryDocumentStore;
  let runner: ProjectionRunner;
  let trail: string[];
  let waited: number[];
  let failCommit: boolean;
  let stopAt: string | null;

  const log = (options: { wait?: boolean } = {}) =>
    new ProcessLog(t.store, 'test', {
      faults(point) {
        trail.push(point);
        if (point === stopAt) return new Promise<void>(() => {});
      },
      waitFor: options.wait === false ? undefined : async (position) => void waited.push(position),
    });

  const make = (readYourWrites = true) =>
    defineWorkflow<Make, { name: string }>({
      kind: 'Make',
      readYourWrites,
      steps: [
        {
          name: 'reserve',
          run: async () => void trail.push('run reserve'),
          undo: async () => void trail.push('undo reserve'),
        },
        {
          name: 'label',
          when: (data) => data.withLabel,
          run: async () => void trail.push('run label'),
          undo: async () => void trail.push('undo label'),
        },
        { name: 'number', run: async () => 42, noted: (n: number) => ({ number: n }) },
      ],
      async commit({ id, data, input }) {
        if (failCommit) throw conflict('taken', ['name']);
        return (
          await appendEvents(
            t.store,
            `thing-${data.thingId}`,
            [{ type: 'ThingMade', data: { name: input.name, number: data.number } }],
            'no_stream',
            { processId: id },
          )
        ).position;
      },
      settle: (data) =>
        claimNewStream(t.store, `thing-${data.thingId}`, { type: 'ThingAbandoned', data: {} }, 'ThingMade'),
      async complete(data) {
        return (await appendEvents(t.store, `label-${data.thingId}`, [{ type: 'Labelled', data: {} }], 'any')).position;
      },
    });

  const typesOf = async (stream: string) => (await t.store.readStream(stream)).map((e) => e.type);

  beforeEach(async () => {
    t = await openTempStore();
    docs = new MemoryDocumentStore();
    runner = new ProjectionRunner(t.store, docs, [pendingProcessesProjection('test')]);
    await runner.start();
    trail = [];
    waited = [];
    failCommit = false;
    stopAt = null;
  });
  afterEach(async () => {
    await runner.stop();
    await t.dispose();
  });

  it('runs the steps between their fault points, notes what they learned, and waits for what complete appended', async () => {
    const run = await log().run(make(), { thingId: 'a', withLabel: false }, { name: 'alpha' });
    assert.deepEqual(trail, [
      'Make:reserve:before',
      'run reserve',
      'Make:reserve:after',
      'Make:number:before',
      'Make:number:after',
      'Make:commit:before',
      'Make:commit:after',
      'Make:complete:before',
      'Make:complete:after',
    ]);
    assert.deepEqual(run.data, { thingId: 'a', withLabel: false, number: 42 });
    assert.deepEqual(await typesOf(processStream('test', run.id)), [
      'ProcessStarted',
      'ProcessNoted',
      'ProcessCompleted',
    ]);
    assert.deepEqual((await t.store.readStream('thing-a'))[0].data, { name: 'alpha', number: 42 });
    const labelled = (await t.store.readStream('label-a'))[0].position;
    assert.equal(run.position, labelled, 'the position of what complete appended, after the commit point');
    assert.deepEqual(waited, [labelled]);
  });

  it('leaves the wait to the caller when the workflow says so', async () => {
    const run = await log({ wait: false }).run(make(false), { thingId: 'b', withLabel: true }, { name: 'beta' });
    assert.ok(trail.includes('run label') && trail.includes('Make:label:after'));
    assert.equal(typeof run.position, 'number');
    assert.deepEqual(waited, []);
  });

  it('a failure before the commit point undoes the steps that apply, last first, records it and rethrows', async () => {
    failCommit = true;
    await assert.rejects(log().run(make(), { thingId: 'c', withLabel: false }, { name: 'gamma' }), /taken/);
    assert.deepEqual(trail.slice(-2), ['Make:commit:before', 'undo reserve']);
    trail = [];
    await assert.rejects(log().run(make(), { thingId: 'd', withLabel: true }, { name: 'delta' }), /taken/);
    assert.deepEqual(trail.slice(-2), ['undo label', 'undo reserve']);
    assert.deepEqual(waited, []);
    await runner.catchUp();
    assert.deepEqual(await docs.collection('pending_processes').find({}), []);
  });

  it('recovery undoes a crashed run with the same declaration', async () => {
    stopAt = 'Make:commit:before';
    void log().run(make(), { thingId: 'e', withLabel: true }, { name: 'epsilon' });
    while (!trail.includes(stopAt)) await new Promise((r) => setTimeout(r, 5));
    await runner.catchUp();
    trail = [];
    const report = await new ProcessRecovery(log(), docs, [make()], 0).run();
    assert.equal(report.compensated.length, 1);
    assert.deepEqual(trail, ['undo label', 'undo reserve']);
    assert.deepEqual(await typesOf('thing-e'), ['ThingAbandoned']);
  });
});
