/**
 * Multi-step writes (WriteProcess) on the real SQLite store: a process that ends is no longer
 * pending, `abandon` compensates and says so, and recovery settles a process whose request died
 * at any step (a fault hook that never returns, which is what kill -9 looks like to the store):
 * committed ones are completed, the others compensated, each exactly once even when two recoveries
 * run at the same time. The test process reserves a name, then creates `thing-<id>` (its commit
 * point, claimed by recovery with `ThingAbandoned`).
 */
import { DomainError } from '@burrow/contracts';
import { MemoryDocumentStore } from '@burrow/documents';
import { WrongExpectedRevisionError } from '@burrow/event-store';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { appendEvents } from './append.js';
import { ProjectionRunner } from './projection-runner.js';
import { releaseName, reservationHolder, reserveName } from './reservation.js';
import { openTempStore, type TempStore } from './testing/temp-store.js';
import {
  claimNewStream,
  claimRevision,
  pendingProcessesCollection,
  pendingProcessesProjection,
  ProcessRecovery,
} from './process-recovery.js';
import { type ProcessDefinition, ProcessLog, processStream } from './write-process.js';

interface MakeThing {
  thingId: string;
  name: string;
  /** noted by the request once it knows it */
  label?: string;
}

describe('write processes', () => {
  let t: TempStore;
  let docs: MemoryDocumentStore;
  let runner: ProjectionRunner;
  let log: ProcessLog;
  let now: number;
  let crash: { point: string; arrived: () => void; hold?: Promise<void> } | null;
  const calls = { complete: [] as string[], compensate: [] as string[] };

  const nameStream = (name: string) => `name-${name}`;
  const thingStream = (id: string) => `thing-${id}`;
  const definition: ProcessDefinition<MakeThing> = {
    kind: 'MakeThing',
    settle: (d) =>
      claimNewStream(t.store, thingStream(d.thingId), { type: 'ThingAbandoned', data: {} }, 'ThingCreated'),
    async complete(d) {
      calls.complete.push(d.thingId);
    },
    async compensate(d) {
      calls.compensate.push(d.thingId);
      await releaseName(t.store, nameStream(d.name), d.thingId);
    },
  };

  /** What a request handler does: steps, commit point, complete or abandon. */
  async function makeThing(
    name: string,
    thingId: string = randomUUID(),
    processId: string = randomUUID(),
  ): Promise<string> {
    const process = await log.begin(definition, { thingId, name }, processId);
    try {
      await process.step('reserve', () => reserveName(t.store, nameStream(name), thingId, 'name'));
      await process.note({ label: `label of ${name}` });
      await process.step('commit', () =>
        appendEvents(t.store, thingStream(thingId), [{ type: 'ThingCreated', data: { name } }], 'no_stream', {
          processId: process.id,
        }),
      );
    } catch (error) {
      return process.abandon(error);
    }
    await process.complete();
    return process.id;
  }

  /** Starts a request that stops for good at `point`; resolves once it is stuck there. */
  async function crashedAt(point: string, name: string): Promise<{ thingId: string }> {
    const thingId = randomUUID();
    const reached = new Promise<void>((arrived) => (crash = { point, arrived }));
    const request = makeThing(name, thingId).then(
      () => assert.fail(`the request finished without reaching ${point}`),
      (e: unknown) => assert.fail(`the request failed before ${point}: ${String(e)}`),
    );
    await Promise.race([reached, request]);
    return { thingId };
  }

  /** Starts a request that stalls at `point` until resumed; resolves once it is there and the read models show it. */
  async function stalledAt(
    point: string,
    name: string,
  ): Promise<{ thingId: string; request: Promise<string>; resume: () => void }> {
    let resume!: () => void;
    const hold = new Promise<void>((r) => (resume = r));
    const thingId = randomUUID();
    const reached = new Promise<void>((arrived) => (crash = { point, arrived, hold }));
    const request = makeThing(name, thingId);
    await reached;
    await runner.catchUp();
    return { thingId, request, resume };
  }

  const processIdOf = async (thingId: string) => {
    const pending = await pendingProcessesCollection(docs).find({});
    const found = pending.find((p) => (p.data as MakeThing).thingId === thingId);
    assert.ok(found, `no pending process for ${thingId}`);
    return found._id;
  };
  const typesOf = async (stream: string) => (await t.store.readStream(stream)).map((e) => e.type);

  beforeEach(async () => {
    t = await openTempStore();
    docs = new MemoryDocumentStore();
    runner = new ProjectionRunner(t.store, docs, [pendingProcessesProjection('test')]);
    await runner.start();
    now = 1_000;
    crash = null;
    calls.complete.length = 0;
    calls.compensate.length = 0;
    log = new ProcessLog(t.store, 'test', {
      now: () => now,
      faults(point) {
        if (!crash || crash.point !== point) return;
        const { arrived, hold } = crash;
        crash = null;
        arrived();
        return hold ?? new Promise<void>(() => {});
      },
    });
  });
  afterEach(async () => {
    await runner.stop();
    await t.dispose();
  });

  it('a process that completes leaves no pending doc, and its stream says how it ended', async () => {
    const id = await makeThing('alpha');
    await runner.catchUp();
    assert.deepEqual(await pendingProcessesCollection(docs).find({}), []);
    const events = await t.store.readStream(processStream('test', id));
    assert.deepEqual(
      events.map((e) => e.type),
      ['ProcessStarted', 'ProcessNoted', 'ProcessCompleted'],
    );
    assert.ok(events.every((e) => e.metadata.processId === id));
    assert.deepEqual(events[0].data, {
      kind: 'MakeThing',
      data: { thingId: (events[0].data.data as MakeThing).thingId, name: 'alpha' },
      startedAt: 1_000,
    });
    assert.equal(calls.complete.length, 1);
    assert.equal(calls.compensate.length, 0);
    assert.deepEqual((await t.store.readStream(thingStream(calls.complete[0])))[0].metadata, {
      schemaVersion: 1,
      processId: id,
    });
  });

  it('abandon runs compensate, records ProcessCompensated with the reason and rethrows', async () => {
    // the commit point fails (the stream exists): the name taken by the first step is given back
    const thingId = randomUUID();
    await t.store.append(thingStream(thingId), [{ type: 'SomethingElse', data: {} }], 'no_stream');
    await assert.rejects(makeThing('beta', thingId, 'p-beta'), WrongExpectedRevisionError);
    assert.equal(await reservationHolder(t.store, nameStream('beta')), null);
    assert.deepEqual(await typesOf(nameStream('beta')), ['NameReserved', 'NameReleased']);
    assert.deepEqual(calls.compensate, [thingId]);
    const ended = (await t.store.readStream(processStream('test', 'p-beta'))).at(-1)!;
    assert.equal(ended.type, 'ProcessCompensated');
    assert.match(ended.data.reason as string, /expected revision no_stream/);
    assert.equal(ended.data.at, 1_000);

    // a refused first step: compensation must not free the name someone else holds
    const holderThing = randomUUID();
    await makeThing('gamma', holderThing);
    const error = await makeThing('gamma', randomUUID(), 'p-gamma').then(
      () => assert.fail('expected a 409'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof DomainError && error.status === 409);
    assert.equal(await reservationHolder(t.store, nameStream('gamma')), holderThing);
    assert.deepEqual(await typesOf(nameStream('gamma')), ['NameReserved']);
    assert.equal(calls.compensate.length, 2);
    assert.deepEqual((await t.store.readStream(processStream('test', 'p-gamma'))).at(-1)!.data, {
      at: 1_000,
      reason: 'name already in use',
    });
    await runner.catchUp();
    assert.deepEqual(await pendingProcessesCollection(docs).find({}), []);
  });

  it('recovery settles crashed processes: committed ones completed, the others compensated, once each under two concurrent recoveries', async () => {
    const beforeReserve = await crashedAt('MakeThing:reserve:before', 'r0');
    const afterReserve = await crashedAt('MakeThing:reserve:after', 'r1');
    const beforeCommit = await crashedAt('MakeThing:commit:before', 'r2');
    const afterCommit = await crashedAt('MakeThing:commit:after', 'r3');
    const afterComplete = await crashedAt('MakeThing:complete:after', 'r4');
    await runner.catchUp();
    const ids = {
      beforeReserve: await processIdOf(beforeReserve.thingId),
      afterReserve: await processIdOf(afterReserve.thingId),
      beforeCommit: await processIdOf(beforeCommit.thingId),
      afterCommit: await processIdOf(afterCommit.thingId),
      afterComplete: await processIdOf(afterComplete.thingId),
    };
    assert.equal(
      ((await pendingProcessesCollection(docs).get(ids.beforeCommit))!.data as MakeThing).label,
      'label of r2',
      'noted values reach recovery',
    );
    calls.complete.length = 0;

    const [first, second] = await Promise.all([
      new ProcessRecovery(log, docs, [definition as ProcessDefinition<never>], 0).run(),
      new ProcessRecovery(log, docs, [definition as ProcessDefinition<never>], 0).run(),
    ]);
    assert.deepEqual([...first.failed, ...second.failed], []);
    assert.deepEqual(
      [...first.completed, ...second.completed].map((p) => p.id).sort(),
      [ids.afterCommit, ids.afterComplete].sort(),
    );
    assert.deepEqual(
      [...first.compensated, ...second.compensated].map((p) => p.id).sort(),
      [ids.beforeReserve, ids.afterReserve, ids.beforeCommit].sort(),
    );

    for (const id of Object.values(ids)) {
      const types = await typesOf(processStream('test', id));
      assert.equal(
        types.filter((x) => x === 'ProcessCompleted' || x === 'ProcessCompensated').length,
        1,
        `${id}: ${types.join(',')}`,
      );
    }
    assert.equal((await typesOf(processStream('test', ids.afterCommit))).at(-1), 'ProcessCompleted');
    assert.equal((await typesOf(processStream('test', ids.afterReserve))).at(-1), 'ProcessCompensated');
    // the names: held by what committed, free (released once) for what did not
    assert.equal(await reservationHolder(t.store, nameStream('r0')), null);
    assert.deepEqual(await typesOf(nameStream('r0')), []);
    assert.deepEqual(await typesOf(nameStream('r1')), ['NameReserved', 'NameReleased']);
    assert.deepEqual(await typesOf(nameStream('r2')), ['NameReserved', 'NameReleased']);
    assert.equal(await reservationHolder(t.store, nameStream('r3')), afterCommit.thingId);
    assert.equal(await reservationHolder(t.store, nameStream('r4')), afterComplete.thingId);
    // the uncommitted creates are claimed, the committed ones untouched
    assert.deepEqual(await typesOf(thingStream(beforeCommit.thingId)), ['ThingAbandoned']);
    assert.deepEqual(await typesOf(thingStream(afterCommit.thingId)), ['ThingCreated']);

    await runner.catchUp();
    assert.deepEqual(await pendingProcessesCollection(docs).find({}), []);
    assert.deepEqual(await new ProcessRecovery(log, docs, [definition as ProcessDefinition<never>], 0).run(), {
      completed: [],
      compensated: [],
      failed: [],
    });
  });

  it('a request that only stalled, resumed after recovery settled its process, fails with 503 and changes nothing', async () => {
    const { thingId, request, resume } = await stalledAt('MakeThing:reserve:after', 'stalled');
    assert.equal(
      (await new ProcessRecovery(log, docs, [definition as ProcessDefinition<never>], 0).run()).compensated.length,
      1,
    );
    resume();
    const error = await request.then(
      () => assert.fail('expected a 503'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof DomainError && error.status === 503, String(error));
    assert.equal(await reservationHolder(t.store, nameStream('stalled')), null);
    assert.deepEqual(await typesOf(thingStream(thingId)), ['ThingAbandoned']);
  });

  it('a process appends its end at the revision it knows, without reading its stream; an end recovery recorded first wins, once', async () => {
    const read: string[] = [];
    const readStream = t.store.readStream.bind(t.store);
    t.store.readStream = (stream, options) => {
      read.push(stream);
      return readStream(stream, options);
    };
    const id = await makeThing('known');
    assert.deepEqual(
      read.filter((s) => s.startsWith('process-')),
      [],
      'the end was appended without a read of the process stream',
    );
    assert.deepEqual(await typesOf(processStream('test', id)), ['ProcessStarted', 'ProcessNoted', 'ProcessCompleted']);

    // stalled after its commit point: recovery completes it, then the request's own end loses the race
    const { thingId, request, resume } = await stalledAt('MakeThing:complete:before', 'late');
    assert.equal(
      (await new ProcessRecovery(log, docs, [definition as ProcessDefinition<never>], 0).run()).completed.length,
      1,
    );
    resume();
    const late = await request;
    assert.deepEqual(
      await typesOf(processStream('test', late)),
      ['ProcessStarted', 'ProcessNoted', 'ProcessCompleted'],
      'one end',
    );
    assert.deepEqual(await typesOf(thingStream(thingId)), ['ThingCreated']);
  });

  it('recovery leaves processes younger than the grace period alone', async () => {
    const crashed = await crashedAt('MakeThing:commit:before', 'young');
    await runner.catchUp();
    const id = await processIdOf(crashed.thingId);
    const recovery = new ProcessRecovery(log, docs, [definition], 60);
    now = 1_059;
    assert.deepEqual(await recovery.run(), { completed: [], compensated: [], failed: [] });
    assert.equal(await reservationHolder(t.store, nameStream('young')), crashed.thingId);
    now = 1_060;
    assert.deepEqual(
      (await recovery.run()).compensated.map((p) => p.id),
      [id],
    );
    assert.equal(await reservationHolder(t.store, nameStream('young')), null);
  });

  it('a process of an unknown kind is reported as failed and stays pending', async () => {
    await crashedAt('MakeThing:commit:before', 'orphan');
    await runner.catchUp();
    const report = await new ProcessRecovery(log, docs, [], 0).run();
    assert.equal(report.failed.length, 1);
    assert.match(report.failed[0].error, /no definition for MakeThing/);
    assert.equal((await pendingProcessesCollection(docs).find({})).length, 1);
  });

  describe('claimRevision', () => {
    const marker = { type: 'ChangeAbandoned', data: { processId: 'p1' } };
    beforeEach(async () => {
      await appendEvents(
        t.store,
        'thing-x',
        [
          { type: 'ThingCreated', data: {} },
          { type: 'ThingChanged', data: {} },
        ],
        'no_stream',
      );
    });

    it('claims the revision a change was decided on, so the late change fails', async () => {
      assert.equal(await claimRevision(t.store, 'thing-x', 1, 'p1', marker), 'abandoned');
      await assert.rejects(
        appendEvents(t.store, 'thing-x', [{ type: 'ThingChanged', data: {} }], 1, { processId: 'p1' }),
        WrongExpectedRevisionError,
      );
      const events = await t.store.readStream('thing-x');
      assert.deepEqual(
        events.map((e) => e.type),
        ['ThingCreated', 'ThingChanged', 'ChangeAbandoned'],
      );
      assert.equal(events[2].metadata.processId, undefined, "the marker is not the process's own write");
      // a second recovery: still abandoned, nothing more appended
      assert.equal(await claimRevision(t.store, 'thing-x', 1, 'p1', marker), 'abandoned');
      assert.equal((await t.store.readStream('thing-x')).length, 3);
    });

    it('says committed when an event of the process follows the revision', async () => {
      await appendEvents(t.store, 'thing-x', [{ type: 'Other', data: {} }], 1);
      await appendEvents(t.store, 'thing-x', [{ type: 'ThingChanged', data: {} }], 2, { processId: 'p1' });
      assert.equal(await claimRevision(t.store, 'thing-x', 1, 'p1', marker), 'committed');
      assert.equal((await t.store.readStream('thing-x')).length, 4);
    });

    it('says abandoned, appending nothing, when other writes moved the stream past the revision', async () => {
      await appendEvents(t.store, 'thing-x', [{ type: 'Other', data: {} }], 1, { processId: 'p2' });
      assert.equal(await claimRevision(t.store, 'thing-x', 1, 'p1', marker), 'abandoned');
      assert.equal((await t.store.readStream('thing-x')).length, 3);
    });
  });

  describe('claimNewStream', () => {
    it('claims a stream that was never created, so a late create fails', async () => {
      assert.equal(
        await claimNewStream(t.store, 'thing-late', { type: 'ThingAbandoned', data: {} }, 'ThingCreated'),
        'abandoned',
      );
      await assert.rejects(
        appendEvents(t.store, 'thing-late', [{ type: 'ThingCreated', data: {} }], 'no_stream'),
        WrongExpectedRevisionError,
      );
      assert.deepEqual(await typesOf('thing-late'), ['ThingAbandoned']);
      // claiming again (a second recovery) still says abandoned and appends nothing
      assert.equal(
        await claimNewStream(t.store, 'thing-late', { type: 'ThingAbandoned', data: {} }, 'ThingCreated'),
        'abandoned',
      );
      assert.deepEqual(await typesOf('thing-late'), ['ThingAbandoned']);
    });

    it('says committed, appending nothing, when the stream begins with the create', async () => {
      await appendEvents(
        t.store,
        'thing-made',
        [
          { type: 'ThingCreated', data: {} },
          { type: 'ThingChanged', data: {} },
        ],
        'no_stream',
      );
      assert.equal(
        await claimNewStream(t.store, 'thing-made', { type: 'ThingAbandoned', data: {} }, 'ThingCreated'),
        'committed',
      );
      assert.deepEqual(await typesOf('thing-made'), ['ThingCreated', 'ThingChanged']);
    });
  });
});
