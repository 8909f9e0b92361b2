/**
 * The projection runner against what production does to it: two replicas on one read-model
 * database, a crash between applying a batch and saving its checkpoint, a document store that goes
 * away and comes back, an event store that is not the one the read models came from, a projection
 * that throws, and a rebuild of 100k events. In memory always; on MongoDB too when MONGODB_URL is
 * set (FerretDB in CI), each test in its own database.
 */
import {
  type Checkpoint,
  type DocumentStore,
  MemoryDocumentStore,
  MongoDocumentStore,
  SqliteDocumentStore,
  type Write,
} from '@burrow/documents';
import { type NewEvent, SqliteEventStore } from '@burrow/event-store';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { type Projection, StoreBehindError, StoreMismatchError } from './projection.js';
import { ProjectionRunner } from './projection-runner.js';

interface Total {
  _id: string;
  total: number;
  events: number;
  [key: string]: unknown;
}

/** Read, add, write back (what the usage projections do): applying an event twice counts it twice. */
const counting: Projection = {
  name: 'totals',
  prefixes: ['counter-'],
  async init(docs) {
    await docs.collection('totals').ensureIndex({ events: 1 });
  },
  async apply(e, docs) {
    const by = e.data.by as number;
    for (const [collection, id] of [
      ['totals', e.stream],
      ['sums', 'all'],
    ]) {
      const c = docs.collection<Total>(collection);
      const doc = (await c.get(id)) ?? { _id: id, total: 0, events: 0 };
      doc.total += by;
      doc.events += 1;
      await c.upsert(doc);
    }
  },
};

const increments = (n: number, by = 1): NewEvent[] =>
  Array.from({ length: n }, () => ({ type: 'Incremented', data: { by } }));

async function until(what: string, predicate: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A document store that can be made unreachable, as a database outage looks to its client. */
class FlakyDocuments implements DocumentStore {
  down = false;
  commits = 0;
  constructor(readonly inner: DocumentStore) {}
  private check(): void {
    if (this.down) throw new Error('connect ECONNREFUSED (simulated outage)');
  }
  collection<T extends { _id: string; [key: string]: unknown }>(name: string) {
    const inner = this.inner.collection<T>(name);
    const guard =
      <A extends unknown[], R>(f: (...a: A) => Promise<R>) =>
      async (...a: A): Promise<R> => {
        this.check();
        return f(...a);
      };
    return {
      get: guard((id: string) => inner.get(id)),
      find: guard((f?: Record<string, unknown>, o?: object) => inner.find(f, o)),
      findOne: guard((f: Record<string, unknown>) => inner.findOne(f)),
      count: guard((f?: Record<string, unknown>) => inner.count(f)),
      upsert: guard((d: T) => inner.upsert(d)),
      delete: guard((id: string) => inner.delete(id)),
      deleteMany: guard((f: Record<string, unknown>) => inner.deleteMany(f)),
      ensureIndex: guard((s: Record<string, 1 | -1>, o?: { unique?: boolean }) => inner.ensureIndex(s, o)),
      dropIndex: guard((s: Record<string, 1 | -1>, o?: { unique?: boolean }) => inner.dropIndex(s, o)),
    };
  }
  async dropAll() {
    this.check();
    return this.inner.dropAll();
  }
  async readCheckpoint(name: string): Promise<Checkpoint | null> {
    this.check();
    return this.inner.readCheckpoint(name);
  }
  async commit(name: string, expected: number, state: Record<string, unknown>, writes: Write[]) {
    this.check();
    this.commits++;
    return this.inner.commit(name, expected, state, writes);
  }
  async ping() {
    this.check();
  }
  async close() {}
}

/**
 * What a replica's commit meets when another replica applied the same events from the same
 * checkpoint first (MongoDocumentStore's `adopted`): the next commit, once `adoptNext` is set, is
 * made with the other writer's documents (`adoptNext` of each write) and reported adopted.
 */
class AdoptingDocuments extends FlakyDocuments {
  adoptNext: ((w: Write) => Write) | null = null;
  adopted = 0;
  override async commit(name: string, expected: number, state: Record<string, unknown>, writes: Write[]) {
    const other = this.adoptNext;
    if (!other) return super.commit(name, expected, state, writes);
    this.adoptNext = null;
    const made = await this.inner.commit(name, expected, state, writes.map(other));
    assert.equal(made.committed, true);
    this.adopted++;
    return { committed: true, rejected: [], adopted: true as const };
  }
}

/** A document store whose commits, once `stallCommits` is set, wait until `release()` (an operation that does not return). */
class StallingDocuments extends FlakyDocuments {
  stallCommits = false;
  private readonly held: (() => void)[] = [];
  override async commit(name: string, expected: number, state: Record<string, unknown>, writes: Write[]) {
    if (this.stallCommits) await new Promise<void>((resolve) => this.held.push(resolve));
    return super.commit(name, expected, state, writes);
  }
  release(): void {
    this.stallCommits = false;
    for (const go of this.held.splice(0)) go();
  }
}

interface Target {
  name: string;
  /** a connection to the test's read-model database (a second call: a second replica's connection) */
  connect(options?: {
    faults?: (point: 'claimed' | 'written') => Promise<void> | void;
    abandonedJournalMs?: number;
  }): Promise<DocumentStore>;
  cleanup(): Promise<void>;
}

const mongoUrl = process.env.MONGODB_URL;
const targets: { name: string; skip?: string; create: () => Target }[] = [
  {
    name: 'in memory',
    create: () => {
      const shared = new MemoryDocumentStore();
      return { name: 'memory', connect: async () => shared, cleanup: async () => undefined };
    },
  },
  {
    // every connect() is another connection to one file: replicas as two processes would be
    name: 'on SQLite',
    create: () => {
      const dir = mkdtempSync(join(tmpdir(), 'runner-docs-'));
      const opened: SqliteDocumentStore[] = [];
      return {
        name: 'sqlite',
        connect: async () => {
          const store = SqliteDocumentStore.open(join(dir, 'read-models.sqlite'));
          opened.push(store);
          return store;
        },
        cleanup: async () => {
          for (const s of opened) await s.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'on MongoDB',
    skip: mongoUrl ? undefined : 'MONGODB_URL not set: no MongoDB server on this machine',
    create: () => {
      const db = `burrow_runner_${randomBytes(5).toString('hex')}`;
      const opened: MongoDocumentStore[] = [];
      return {
        name: 'mongo',
        connect: async (options = {}) => {
          const store = await MongoDocumentStore.connect(mongoUrl!, db, options);
          opened.push(store);
          return store;
        },
        cleanup: async () => {
          await opened[0]?.dropDatabase().catch(() => undefined);
          for (const s of opened) await s.close().catch(() => undefined);
        },
      };
    },
  },
];

for (const t of targets) {
  describe(`ProjectionRunner ${t.name}`, { skip: t.skip, timeout: 240_000 }, () => {
    let dir: string;
    let events: SqliteEventStore;
    let target: Target;
    const runners: ProjectionRunner[] = [];
    const run = (docs: DocumentStore, projections = [counting], options = {}) => {
      const runner = new ProjectionRunner(events, docs, projections, { retryMinMs: 20, retryMaxMs: 200, ...options });
      runners.push(runner);
      return runner;
    };
    const totals = async (docs: DocumentStore) => {
      const all = await docs.collection<Total>('totals').find({}, { sort: { _id: 1 } });
      return Object.fromEntries(all.map((d) => [d._id, [d.total, d.events]]));
    };

    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'runner-'));
      events = SqliteEventStore.open(join(dir, 'events.sqlite'), { pollIntervalMs: 20 });
      target = t.create();
    });
    afterEach(async () => {
      for (const r of runners.splice(0)) await r.stop();
      await target.cleanup();
      await events.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('a restart resumes from the checkpoint, which also records the events none of its projections read', async () => {
      await events.append('counter-a', increments(3), 'any');
      for (let i = 0; i < 11; i++)
        await events.append(
          `other-${i}`,
          Array.from({ length: 1000 }, () => ({ type: 'Other', data: {} })),
          'any',
        );
      const docs = await target.connect();
      const first = run(docs);
      await first.start();
      assert.equal(first.resumedFrom, 0);
      await first.stop();
      const second = run(docs);
      await second.start();
      assert.equal(second.resumedFrom, await events.headPosition(), 'nothing is read again');
      assert.deepEqual(await totals(docs), { 'counter-a': [3, 3] });
    });

    it('two replicas on one read-model database apply every event once, and one killed mid-stream loses nothing', async () => {
      await events.append('counter-a', increments(50), 'any');
      const docsA = await target.connect();
      const docsB = await target.connect();
      const a = run(docsA, [counting], { maxBatchEvents: 7 });
      const b = run(docsB, [counting], { maxBatchEvents: 5 });
      await Promise.all([a.start(), b.start()]);
      // both replicas append (as both serve requests) while both project
      for (let i = 0; i < 40; i++) {
        await events.append(`counter-${'abc'[i % 3]}`, increments(3, 2), 'any');
        if (i === 20) void a.stop(); // a replica dies mid-stream
      }
      const head = await events.headPosition();
      await b.waitFor(head, 20_000);
      const expected = {
        'counter-a': [50 + 14 * 6, 50 + 14 * 3],
        'counter-b': [13 * 6, 13 * 3],
        'counter-c': [13 * 6, 13 * 3],
      };
      assert.deepEqual(await totals(docsB), expected);
      assert.deepEqual(await docsB.collection<Total>('sums').get('all'), {
        _id: 'all',
        total: 50 + 40 * 6,
        events: 50 + 40 * 3,
      });
      // a third replica starting now applies nothing again
      const c = run(await target.connect());
      await c.start();
      assert.deepEqual(await totals(docsB), expected);
    });

    it('after a commit adopted from another replica, the documents the store holds are read, not the ones this replica wrote', async () => {
      const docs = new AdoptingDocuments(await target.connect());
      const runner = run(docs);
      await events.append('counter-a', increments(2), 'any');
      await runner.start();
      // the other replica's documents differ (it read them at another moment): told apart by +1000
      docs.adoptNext = (w) =>
        w.kind === 'put' ? { ...w, doc: { ...w.doc, total: (w.doc.total as number) + 1000 } } : w;
      await runner.waitFor((await events.append('counter-a', increments(1), 'any')).position);
      assert.equal(docs.adopted, 1);
      await runner.waitFor((await events.append('counter-a', increments(1), 'any')).position);
      assert.deepEqual(await totals(docs), { 'counter-a': [1004, 4] });
    });

    it('a document store outage: retries by itself, reports it, and resumes without losing or repeating an event', async () => {
      const flaky = new FlakyDocuments(await target.connect());
      const runner = run(flaky, [counting], { lagLimitMs: 100 });
      await events.append('counter-a', increments(10), 'any');
      await runner.start();
      assert.equal((await runner.health()).ok, true);
      flaky.down = true;
      const during = await events.append('counter-a', increments(5), 'any');
      await until('the runner to notice the outage', async () => (await runner.health()).state === 'retrying');
      const health = await runner.health();
      assert.equal(health.ok, false);
      assert.match(health.reason!, /not being updated: .*ECONNREFUSED/);
      await assert.rejects(
        runner.waitFor(during.position, 200),
        (e: { status?: number; message: string }) => e.status === 503 && /not being updated/.test(e.message),
      );
      await events.append('counter-b', increments(3), 'any');
      flaky.down = false;
      await runner.waitFor(await events.headPosition(), 10_000);
      assert.deepEqual(await totals(flaky), { 'counter-a': [15, 15], 'counter-b': [3, 3] });
      await until('readiness to come back', async () => (await runner.health()).ok);
    });

    it('a read-model commit that does not return is logged by name and fails readiness, and the runner goes on once it returns', async () => {
      const stalling = new StallingDocuments(await target.connect());
      const logged: { level: string; msg: string; extra?: object }[] = [];
      const runner = run(stalling, [counting], {
        lagLimitMs: 300,
        slowStepMs: 100,
        log: (level: string, msg: string, extra?: object) => logged.push({ level, msg, extra }),
      });
      await events.append('counter-a', increments(2), 'any');
      await runner.start();
      assert.equal((await runner.health()).ok, true);
      stalling.stallCommits = true;
      const stalled = await events.append('counter-a', increments(1), 'any');
      // (on a slow store, loading the checkpoint at start may have been logged as slow too)
      const isCommitWarning = (l: (typeof logged)[number]) =>
        l.msg === 'a read-model step is taking long' && /committing/.test(JSON.stringify(l.extra));
      await until('the stalled commit to be logged', () => logged.some(isCommitWarning));
      const warn = logged.find(isCommitWarning)!;
      assert.equal(warn.level, 'warn');
      assert.match(JSON.stringify(warn.extra), /committing \d+ writes \(events up to position \d+\)/);
      // (behind the head, too: the stalled step is the reason given once it passes the lag limit itself)
      await until('readiness to name the stalled commit', async () =>
        /stalled/.test((await runner.health()).reason ?? ''),
      );
      assert.match(
        (await runner.health()).reason!,
        /^read models are stalled: committing \d+ writes \(events up to position \d+\) has not finished after \d+ s$/,
      );
      stalling.release();
      await runner.waitFor(stalled.position, 5_000);
      await until('readiness to come back', async () => (await runner.health()).ok);
      assert.ok(logged.some((l) => l.level === 'info' && l.msg === 'a slow read-model step finished'));
      assert.deepEqual(await totals(stalling), { 'counter-a': [3, 3] });
    });

    it('a projection that does not return from an event is named by readiness', async () => {
      let hold: (() => void) | null = null;
      const stuck: Projection = {
        name: 'stuck',
        prefixes: ['stuck-'],
        apply: () => new Promise<void>((resolve) => (hold = resolve)),
      };
      const runner = run(await target.connect(), [counting, stuck], { lagLimitMs: 200 });
      await runner.start();
      const { position } = await events.append('stuck-1', [{ type: 'Jammed', data: {} }], 'any');
      await until('readiness to name the stalled step', async () =>
        /stalled/.test((await runner.health()).reason ?? ''),
      );
      assert.match(
        (await runner.health()).reason!,
        new RegExp(
          `^read models are stalled: applying Jammed at position ${position} to stuck has not finished after \\d+ s$`,
        ),
      );
      hold!();
      await runner.waitFor(position, 5_000);
      await until('readiness to come back', async () => (await runner.health()).ok);
    });

    it('an outage at start: start waits for the store instead of failing', async () => {
      const flaky = new FlakyDocuments(await target.connect());
      flaky.down = true;
      await events.append('counter-a', increments(4), 'any');
      const runner = run(flaky);
      const started = runner.start();
      await until('retrying', async () => (await runner.health()).state === 'retrying');
      flaky.down = false;
      await started;
      assert.deepEqual(await totals(flaky), { 'counter-a': [4, 4] });
    });

    it('read models of another event store are rebuilt from this one, or refused', async () => {
      const docs = await target.connect();
      await events.append('counter-a', increments(7), 'any');
      const first = run(docs);
      await first.start();
      await first.stop();
      assert.deepEqual(await totals(docs), { 'counter-a': [7, 7] });

      // a fresh event store beside the same read models (restored from elsewhere, or re-created)
      const other = SqliteEventStore.open(join(dir, 'other.sqlite'), { pollIntervalMs: 20 });
      try {
        await other.append('counter-z', increments(2), 'any');
        const refusing = new ProjectionRunner(other, docs, [counting], { onStoreMismatch: 'refuse' });
        await assert.rejects(refusing.start(), StoreMismatchError);
        await refusing.stop();
        assert.deepEqual(await totals(docs), { 'counter-a': [7, 7] }, 'refused: nothing touched');

        const rebuilding = new ProjectionRunner(other, docs, [counting]);
        await rebuilding.start();
        assert.deepEqual(await totals(docs), { 'counter-z': [2, 2] }, 'only what the new store holds');
        await rebuilding.stop();
      } finally {
        await other.close();
      }
    });

    it('read models ahead of their event store (its tail lost, or restored from a backup) are rebuilt, or refused', async () => {
      await events.append('counter-a', increments(3), 'any');
      await events.close();
      // the backup: the same store (same identity), holding the first three events
      copyFileSync(join(dir, 'events.sqlite'), join(dir, 'backup.sqlite'));
      events = SqliteEventStore.open(join(dir, 'events.sqlite'), { pollIntervalMs: 20 });
      await events.append('counter-b', increments(4), 'any');
      const docs = await target.connect();
      const first = run(docs);
      await first.start();
      await first.stop();
      assert.deepEqual(await totals(docs), { 'counter-a': [3, 3], 'counter-b': [4, 4] });

      await events.close();
      copyFileSync(join(dir, 'backup.sqlite'), join(dir, 'events.sqlite'));
      events = SqliteEventStore.open(join(dir, 'events.sqlite'), { pollIntervalMs: 20 });
      const refusing = new ProjectionRunner(events, docs, [counting], { onStoreMismatch: 'refuse' });
      await assert.rejects(
        refusing.start(),
        (e: Error) =>
          e instanceof StoreBehindError && /up to position 7, but the event store ends at 3/.test(e.message),
      );
      await refusing.stop();

      const rebuilding = run(docs);
      await rebuilding.start();
      assert.deepEqual(await totals(docs), { 'counter-a': [3, 3] }, 'only what the store holds');
      // new events take the positions the lost ones had: they are applied, not skipped
      const next = await events.append('counter-c', increments(2), 'any');
      assert.ok(next.position <= 7, 'a position the lost events had');
      await rebuilding.waitFor(next.position);
      assert.deepEqual(await totals(docs), { 'counter-a': [3, 3], 'counter-c': [2, 2] });
    });

    it('a projection that throws on an event loses that event only (nothing half-written), the others go on', async () => {
      const docs = await target.connect();
      const failing: Projection = {
        name: 'picky',
        prefixes: ['counter-'],
        async apply(e, uow) {
          await uow.collection<Total>('picky').upsert({ _id: `${e.position}`, total: 1, events: 1 });
          if (e.stream === 'counter-bad') throw new Error('bug');
        },
      };
      const logged: string[] = [];
      const runner = run(docs, [counting, failing], { log: (_level: string, msg: string) => logged.push(msg) });
      await events.append('counter-a', increments(2), 'any');
      const bad = await events.append('counter-bad', increments(1), 'any');
      await events.append('counter-a', increments(1), 'any');
      await runner.start();
      assert.deepEqual(await totals(docs), { 'counter-a': [3, 3], 'counter-bad': [1, 1] });
      assert.equal(await docs.collection('picky').count(), 3);
      assert.equal(await docs.collection('picky').get(`${bad.position}`), null);
      assert.ok(logged.includes('projection failed on event'));
    });

    it('a rebuild of 100k events batches its writes and takes as long as it needs', async () => {
      const n = t.name === 'in memory' ? 100_000 : 20_000;
      for (let i = 0; i < n / 500; i++) await events.append(`counter-${i % 20}`, increments(500), 'any');
      const flaky = new FlakyDocuments(await target.connect());
      const logged: string[] = [];
      const runner = run(flaky, [counting], {
        log: (_level: string, msg: string) => logged.push(msg),
        progressEveryMs: 200,
      });
      await runner.start();
      assert.equal(runner.currentPosition, n);
      const all = await flaky.collection<Total>('sums').get('all');
      assert.deepEqual(all, { _id: 'all', total: n, events: n });
      assert.ok(flaky.commits <= n / 1000 + 2, `${flaky.commits} commits for ${n} events`);
      assert.ok(logged.includes('read models caught up'));
    });
  });
}

describe("ProjectionRunner and the store's announcements", () => {
  it("a write's deferred steps reach the read models in its commit point's batch, and a waiter for a deferred append is not kept waiting", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runner-'));
    // no poll and no announcement of deferred appends on their own within the test: only the
    // durable append's announcement and the runner's own wake-up can move the read models
    const events = SqliteEventStore.open(join(dir, 'events.sqlite'), {
      pollIntervalMs: 60_000,
      deferredAnnounceMs: 60_000,
    });
    const docs = new FlakyDocuments(new MemoryDocumentStore());
    const runner = new ProjectionRunner(events, docs, [counting]);
    try {
      await runner.start();
      const before = docs.commits;
      const deferred = events.deferringDurability();
      await deferred.append('counter-a', increments(1), 'no_stream');
      await deferred.append('counter-b', increments(1), 'no_stream');
      const commit = await events.append('counter-c', increments(1), 'no_stream');
      await runner.waitFor(commit.position);
      assert.equal(docs.commits - before, 1, 'one read-model commit for the three appends');
      const alone = await deferred.append('counter-d', increments(2), 'no_stream');
      await runner.waitFor(alone.position, 10_000);
      assert.deepEqual(
        Object.fromEntries(
          (await docs.collection<Total>('totals').find({}, { sort: { _id: 1 } })).map((d) => [d._id, d.total]),
        ),
        { 'counter-a': 1, 'counter-b': 1, 'counter-c': 1, 'counter-d': 2 },
      );
    } finally {
      await runner.stop();
      await events.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ProjectionRunner: batches bounded by the size of their documents', () => {
  it('commits a batch once its documents make maxBatchBytes of JSON, however few events and documents it holds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runner-'));
    const events = SqliteEventStore.open(join(dir, 'events.sqlite'), { pollIntervalMs: 60_000 });
    // every event writes one document of ~10 KB and rewrites one small one
    const bulky: Projection = {
      name: 'bulky',
      prefixes: ['counter-'],
      async apply(e, docs) {
        await docs.collection('pages').upsert({ _id: `${e.position}`, text: 'x'.repeat(10_000) });
        const sums = docs.collection<Total>('sums');
        const all = (await sums.get('all')) ?? { _id: 'all', total: 0, events: 0 };
        await sums.upsert({ ...all, total: all.total + 1, events: all.events + 1 });
      },
    };
    const run = async (options: { maxBatchBytes?: number }) => {
      const docs = new FlakyDocuments(new MemoryDocumentStore());
      const runner = new ProjectionRunner(events, docs, [bulky], options);
      await runner.start();
      await runner.stop();
      assert.equal(await docs.collection('pages').count(), 60);
      assert.deepEqual(await docs.collection('sums').get('all'), { _id: 'all', total: 60, events: 60 });
      return docs.commits;
    };
    try {
      await events.append('counter-a', increments(60), 'no_stream');
      assert.ok((await run({})) <= 2, 'under the default bound: one batch');
      // 35 KB: a commit after every fourth event (the small document rewritten counts once)
      const commits = await run({ maxBatchBytes: 35_000 });
      assert.ok(commits >= 15 && commits <= 17, `${commits} commits`);
    } finally {
      await events.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe(
  'ProjectionRunner on MongoDB: a crash between applying a batch and saving its checkpoint',
  { skip: mongoUrl ? undefined : 'MONGODB_URL not set: no MongoDB server on this machine', timeout: 60_000 },
  () => {
    it('the next process finishes the batch from its journal; no event is applied twice or lost', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'runner-crash-'));
      const events = SqliteEventStore.open(join(dir, 'events.sqlite'), { pollIntervalMs: 20 });
      const db = `burrow_crash_${randomBytes(5).toString('hex')}`;
      let frozen = false;
      let reached!: () => void;
      const crashed = new Promise<void>((r) => (reached = r));
      // the first process: after its second batch is written, before the checkpoint moves, it stops
      // for good (what kill -9 looks like to the database)
      let commits = 0;
      const dying = await MongoDocumentStore.connect(mongoUrl!, db, {
        faults: (point) => {
          if (point === 'written' && ++commits === 2) {
            frozen = true;
            reached();
            return new Promise<void>(() => undefined);
          }
        },
      });
      const survivor = await MongoDocumentStore.connect(mongoUrl!, db, { abandonedJournalMs: 500 });
      try {
        await events.append('counter-a', increments(10), 'any');
        const first = new ProjectionRunner(events, dying, [counting], { maxBatchEvents: 4 });
        void first.start().catch(() => undefined);
        await crashed;
        assert.ok(frozen);
        await events.append('counter-a', increments(5), 'any');
        const second = new ProjectionRunner(events, survivor, [counting], { maxBatchEvents: 4 });
        await second.start();
        await second.waitFor(await events.headPosition());
        assert.deepEqual(await survivor.collection<Total>('totals').get('counter-a'), {
          _id: 'counter-a',
          total: 15,
          events: 15,
        });
        await second.stop();
      } finally {
        await survivor.dropDatabase();
        await survivor.close();
        await dying.close().catch(() => undefined);
        await events.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    /**
     * A process of its own that commits one batch to `db` and stops after writing it, before the
     * checkpoint moves (the journal stays): it then waits, alive, until the test kills it.
     */
    async function stuckWriter(db: string): Promise<ChildProcess> {
      const script = `
      import { MongoDocumentStore } from '@burrow/documents';
      const store = await MongoDocumentStore.connect(${JSON.stringify(mongoUrl)}, ${JSON.stringify(db)}, {
        faults: (point) => { if (point === 'written') { process.stdout.write('written\\n'); return new Promise(() => undefined); } },
      });
      await store.commit('projections', 0, { at: 1 }, [{ kind: 'put', collection: 'totals', doc: { _id: 'a', total: 1 } }]);
    `;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        cwd: new URL('.', import.meta.url).pathname,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('written') && resolve());
        child.once('exit', (code) => reject(new Error(`writer exited (${code}) before writing`)));
      });
      return child;
    }

    it('a journal whose writer is alive is left to it; once that process is gone (kill -9) the next reader finishes it at once', async () => {
      const db = `burrow_gone_${randomBytes(5).toString('hex')}`;
      // a time limit far beyond the test's: only knowing the writer is gone can finish the journal
      const reader = await MongoDocumentStore.connect(mongoUrl!, db, { abandonedJournalMs: 3_600_000 });
      const writer = await stuckWriter(db);
      try {
        const read = reader.readCheckpoint('projections');
        const first = await Promise.race([
          read.then(() => 'finished'),
          new Promise((r) => setTimeout(() => r('waiting'), 1500)),
        ]);
        assert.equal(first, 'waiting', "a live writer's journal is not taken over");
        writer.kill('SIGKILL');
        await new Promise((r) => writer.once('exit', r));
        assert.deepEqual(await read, { version: 1, state: { at: 1 } });
        assert.deepEqual(await reader.collection('totals').get('a'), { _id: 'a', total: 1 });
      } finally {
        writer.kill('SIGKILL');
        await reader.dropDatabase();
        await reader.close();
      }
    });
  },
);
