/**
 * A MongoDB-protocol server that keeps its connections open but stops answering (a private
 * FerretDB stopped with SIGSTOP: a hung database, or a connection whose server vanished without
 * closing it) must not hold an operation for ever: reads, and a read-model commit, fail within the
 * operation timeout as unavailable, and work again once it answers. Without the timeout they wait
 * until the server is continued.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MongoDocumentStore } from './mongo.js';

const binary = [process.env.FERRETDB_BIN, join(homedir(), 'go', 'bin', 'ferretdb-v1.24.0')].find((b): b is string =>
  Boolean(b && existsSync(b)),
);
const skip = binary ? false : 'no FerretDB binary (scripts/ensure-ferretdb.sh builds one)';

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createConnection(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

/** Settles with how long `p` took, or null if it is still pending after `ms`. */
async function within(p: Promise<unknown>, ms: number): Promise<{ ms: number; error: unknown } | null> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    p.then(
      () => ({ ms: Date.now() - started, error: null }),
      (error: unknown) => ({ ms: Date.now() - started, error }),
    ),
    new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms))),
  ]);
  clearTimeout(timer);
  return outcome;
}

/**
 * Stops the server and waits until every thread of it is stopped: the signal reaches a thread on
 * another core only when it is next interrupted, and a request sent in between was answered (a
 * read right after the kill succeeded in 54 ms on a loaded machine).
 */
async function stopped(server: ChildProcess): Promise<void> {
  server.kill('SIGSTOP');
  const state = (task: string) => {
    try {
      return /\) (\S)/.exec(readFileSync(`/proc/${server.pid}/task/${task}/stat`, 'utf8'))?.[1];
    } catch {
      return 'T'; // a thread that ended is not answering either
    }
  };
  const deadline = Date.now() + 5000;
  while (!readdirSync(`/proc/${server.pid}/task`).every((task) => state(task) === 'T')) {
    assert.ok(Date.now() < deadline, 'the server stopped within 5 s');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe(
  'MongoDocumentStore against a database that stops answering (a private FerretDB, SIGSTOP)',
  { skip, timeout: 120_000 },
  () => {
    let child: ChildProcess;
    let dir: string;
    let url: string;

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'ferretdb-stopped-'));
      const [port, debugPort] = [await freePort(), await freePort()];
      child = spawn(
        binary!,
        [
          '--handler=sqlite',
          `--sqlite-url=file:${dir}/`,
          `--listen-addr=127.0.0.1:${port}`,
          `--debug-addr=127.0.0.1:${debugPort}`,
          `--state-dir=${dir}`,
          '--telemetry=disable',
          '--log-level=error',
        ],
        { stdio: 'ignore' },
      );
      const deadline = Date.now() + 20_000;
      while (!(await accepts(port))) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error('ferretdb did not start');
        await new Promise((r) => setTimeout(r, 50));
      }
      url = `mongodb://127.0.0.1:${port}/stopped`;
    });

    after(async () => {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });

    it('a client that fails every operation while the database answers is replaced after a while of failing pings', async () => {
      const store = await MongoDocumentStore.connect(url, 'wedged', {
        operationTimeoutMs: 1000,
        serverSelectionTimeoutMs: 1000,
        replaceClientAfterMs: 300,
      });
      try {
        const things = store.collection<{ _id: string; n: number }>('things');
        await things.upsert({ _id: 'a', n: 1 });
        await store.breakClientForTests();
        await assert.rejects(things.get('a'));
        const deadline = Date.now() + 10_000;
        let pings = 0;
        for (;;) {
          pings++;
          if (
            await store.ping().then(
              () => true,
              () => false,
            )
          )
            break;
          assert.ok(Date.now() < deadline, `still failing after ${pings} pings`);
          await new Promise((r) => setTimeout(r, 100));
        }
        assert.ok(pings > 1, 'the first ping failed (the client was broken)');
        // the collection adapter made before takes the new client's collection
        assert.deepEqual(await things.get('a'), { _id: 'a', n: 1 });
        assert.equal(store.clientGeneration, 1);
      } finally {
        await store.close();
      }
    });

    it('a read and a commit fail within the operation timeout, as unavailable, and succeed once it answers again', async () => {
      const store = await MongoDocumentStore.connect(url, 'stopped', {
        operationTimeoutMs: 1000,
        serverSelectionTimeoutMs: 1000,
      });
      try {
        const things = store.collection<{ _id: string; n: number }>('things');
        await things.upsert({ _id: 'a', n: 1 });
        assert.equal(
          (await store.commit('cp', 0, { at: 1 }, [{ kind: 'put', collection: 'things', doc: { _id: 'b', n: 2 } }]))
            .committed,
          true,
        );

        await stopped(child);
        const read = await within(things.get('a'), 8000);
        assert.ok(read, 'the read is still waiting 8 s after the database stopped answering');
        assert.ok(read.ms < 4000, `the read failed only after ${read.ms} ms`);
        assert.equal((read.error as Error)?.name, 'DocumentStoreTimeoutError', String(read.error));
        const commit = await within(
          store.commit('cp', 1, { at: 2 }, [{ kind: 'put', collection: 'things', doc: { _id: 'c', n: 3 } }]),
          12_000,
        );
        assert.ok(commit, 'the commit is still waiting 12 s after the database stopped answering');
        assert.ok(commit.error instanceof Error, 'the commit failed');

        child.kill('SIGCONT');
        assert.deepEqual(await things.get('a'), { _id: 'a', n: 1 });
        // the commit, tried again, lands once (whatever the failed attempt left)
        const again = await store.commit('cp', 1, { at: 2 }, [
          { kind: 'put', collection: 'things', doc: { _id: 'c', n: 3 } },
        ]);
        assert.equal(again.committed, true);
        assert.deepEqual(await store.readCheckpoint('cp'), { version: 2, state: { at: 2 } });
        assert.deepEqual(await things.get('c'), { _id: 'c', n: 3 });
      } finally {
        child.kill('SIGCONT');
        await store.close();
      }
    });
  },
);
