/**
 * What the PostgreSQL event store does beyond the shared contract: several processes creating the
 * schema at once, a LISTEN connection or pooled connections dropped by the server, and appends
 * that defer the WAL flush. Runs when POSTGRES_URL names a server (the test runner sets it when one
 * listens on 127.0.0.1:5432), each test in a database of its own, dropped after.
 */
import { DependencyUnavailableError } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Socket, connect } from 'node:net';
import { afterEach, describe, it } from 'node:test';
import pg from 'pg';
import { deferDurability } from './port.js';
import { createPostgresDatabase, dropPostgresDatabase, PostgresEventStore } from './postgres.js';
import type { RecordedEvent } from './port.js';

const server = process.env.POSTGRES_URL;

async function waitFor(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A TCP proxy to the server whose connections can stop passing bytes while staying open, as a
 * frozen server or a network that drops packets does: `freeze()` holds every connection open now
 * (and, with `all`, those made later too) without passing a byte either way; `thaw()` passes again.
 */
async function startFreezingProxy(target: URL) {
  const pairs: { client: Socket; upstream: Socket }[] = [];
  let freezeNew = false;
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
    pairs.push({ client, upstream });
    if (freezeNew) {
      client.pause();
      upstream.pause();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    via(url: string): string {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    freeze(all: boolean) {
      freezeNew = all;
      for (const { client, upstream } of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    thaw() {
      freezeNew = false;
      for (const { client, upstream } of pairs) {
        client.pipe(upstream);
        upstream.pipe(client);
      }
    },
    async close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `promise`, or a failure naming `what` if it takes longer than `ms`. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe(
  'PostgresEventStore on a real server',
  { skip: server ? false : 'POSTGRES_URL not set and no PostgreSQL server on 127.0.0.1:5432', timeout: 60_000 },
  () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    async function database(): Promise<{ url: string; name: string }> {
      const name = `burrow_test_${randomBytes(6).toString('hex')}`;
      const url = await createPostgresDatabase(server!, name);
      cleanups.push(() => dropPostgresDatabase(server!, name));
      return { url, name };
    }

    async function open(url: string, pollIntervalMs = 30_000): Promise<PostgresEventStore> {
      const store = await PostgresEventStore.connect(url, { pollIntervalMs });
      cleanups.push(() => store.close());
      return store;
    }

    /** Runs one statement on the database as an operator would, on a connection of its own. */
    async function admin<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query<T>(sql)).rows;
      } finally {
        await client.end();
      }
    }

    const listenerPids = async (url: string, db: string) =>
      (
        await admin<{ pid: number }>(
          url,
          `SELECT pid FROM pg_stat_activity WHERE datname = '${db}' AND query LIKE 'LISTEN %'`,
        )
      ).map((r) => r.pid);

    it('several processes creating the schema at once all start, and agree on the store id', async () => {
      const { url } = await database();
      const stores = await Promise.all(Array.from({ length: 5 }, () => open(url)));
      const ids = new Set(await Promise.all(stores.map((s) => s.storeId())));
      assert.equal(ids.size, 1);
      await stores[0].append('s-1', [{ type: 'A', data: {} }], 'no_stream');
      assert.equal((await stores[4].readStream('s-1')).length, 1);
    });

    it('the store id survives a restart and differs between databases', async () => {
      const a = await database();
      const b = await database();
      const first = await open(a.url);
      const id = await first.storeId();
      await first.close();
      assert.equal(await (await open(a.url)).storeId(), id);
      assert.notEqual(await (await open(b.url)).storeId(), id);
    });

    it('when the LISTEN connection is dropped, subscriptions go on by polling and it reconnects', async () => {
      const { url, name } = await database();
      const subscriber = await open(url, 200);
      const writer = await open(url);
      const seen: RecordedEvent[] = [];
      const sub = subscriber.subscribeToAll(
        { fromPosition: 0, prefixes: ['s-'] },
        { onEvent: (e) => void seen.push(e) },
      );
      cleanups.push(() => sub.stop());
      await waitFor(async () => (await listenerPids(url, name)).length === 2, 'both stores listening');
      const before = await listenerPids(url, name);

      await admin(
        url,
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND query LIKE 'LISTEN %'`,
      );
      await writer.append('s-1', [{ type: 'A', data: { n: 1 } }], 'no_stream');
      await waitFor(() => seen.length === 1, 'the event, by polling or after the reconnect');
      await waitFor(async () => {
        const now = await listenerPids(url, name);
        return now.length === 2 && now.every((pid) => !before.includes(pid));
      }, 'both stores listening again on new connections');

      await writer.append('s-1', [{ type: 'A', data: { n: 2 } }], 0);
      await waitFor(() => seen.length === 2, 'the next event');
      assert.deepEqual(
        seen.map((e) => e.data.n),
        [1, 2],
      );
    });

    it('pooled connections the server drops are replaced: appends and reads go on', async () => {
      const { url, name } = await database();
      const store = await open(url);
      await Promise.all(
        Array.from({ length: 6 }, (_, i) => store.append(`s-${i}`, [{ type: 'A', data: {} }], 'no_stream')),
      );
      await admin(
        url,
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`,
      );
      await new Promise((r) => setTimeout(r, 100)); // the pool hears of the drops
      const r = await store.append('s-0', [{ type: 'B', data: {} }], 0);
      assert.equal(r.revision, 1);
      assert.equal((await store.readStream('s-0')).length, 2);
    });

    it('a server that stops answering, connections open: appends and reads fail as unavailable within the query timeout, and go on once it answers', async () => {
      const { url } = await database();
      const proxy = await startFreezingProxy(new URL(url));
      const store = await PostgresEventStore.connect(proxy.via(url), {
        queryTimeoutMs: 400,
        connectTimeoutMs: 400,
        listenCheckMs: 200,
      });
      cleanups.push(() => store.close());
      // first: a store still waiting on a frozen connection closes once the proxy drops it
      cleanups.push(() => proxy.close());
      await store.append('s-1', [{ type: 'A', data: { n: 1 } }], 'no_stream');

      proxy.freeze(true);
      const append = store.append('s-1', [{ type: 'A', data: { n: 2 } }], 0);
      await assert.rejects(within(5000, 'an append to a frozen server', append), DependencyUnavailableError);
      await assert.rejects(
        within(5000, 'a read from a frozen server', store.readStream('s-1')),
        DependencyUnavailableError,
      );
      await assert.rejects(within(5000, 'a ping of a frozen server', store.ping()), DependencyUnavailableError);

      proxy.thaw();
      // the frozen append's bytes reach the server when it thaws, so it may have committed: either way, no holes
      await waitFor(
        () =>
          store.append('s-1', [{ type: 'A', data: { n: 3 } }], 'any').then(
            () => true,
            () => false,
          ),
        'an append once the server answers again',
      );
      const events = await store.readStream('s-1');
      assert.deepEqual(
        events.map((e) => e.revision),
        events.map((_, i) => i),
      );
      assert.deepEqual(events.at(-1)!.data, { n: 3 });
    });

    it('connections that go silent while new ones work (a failover, a dropped NAT entry): the LISTEN connection is replaced and subscribers hear of appends', async () => {
      const { url, name } = await database();
      const proxy = await startFreezingProxy(new URL(url));
      // no polling to fall back on within the test: only a live LISTEN connection delivers in time
      const subscriber = await PostgresEventStore.connect(proxy.via(url), {
        pollIntervalMs: 60_000,
        queryTimeoutMs: 400,
        listenCheckMs: 200,
      });
      cleanups.push(() => subscriber.close());
      const writer = await open(url);
      const seen: RecordedEvent[] = [];
      let stop: (() => Promise<void>) | null = null;
      // as the projection runner does: a subscription that fails (its read timed out) starts again where it was
      const follow = (from: number) => {
        const sub = subscriber.subscribeToAll(
          { fromPosition: from, prefixes: ['s-'] },
          {
            onEvent: (e) => void seen.push(e),
            onError: () => follow(seen.at(-1)?.position ?? 0),
          },
        );
        stop = () => sub.stop();
      };
      follow(0);
      cleanups.push(() => stop!());
      cleanups.push(() => proxy.close());
      await writer.append('s-1', [{ type: 'A', data: { n: 1 } }], 'no_stream');
      await waitFor(() => seen.length === 1, 'the first event');
      const before = await listenerPids(url, name);

      proxy.freeze(false);
      await waitFor(async () => {
        const now = await listenerPids(url, name);
        return now.some((pid) => !before.includes(pid));
      }, 'a new LISTEN connection');
      await writer.append('s-1', [{ type: 'A', data: { n: 2 } }], 0);
      await waitFor(() => seen.length === 2, 'the next event, told by the new LISTEN connection', 10_000);
      assert.deepEqual(
        seen.map((e) => e.data.n),
        [1, 2],
      );
    });

    it('a deferred append is visible at once, in order, and the relaxed commit does not leak to later ones', async () => {
      const { url } = await database();
      const store = await open(url);
      const deferred = deferDurability(store);
      assert.notEqual(deferred, store, 'PostgreSQL offers a deferring view');
      const a = await deferred.append('s-1', [{ type: 'Step', data: { n: 1 } }], 'no_stream');
      const b = await store.append('s-1', [{ type: 'Done', data: { n: 2 } }], 0);
      assert.ok(b.position > a.position);
      assert.deepEqual(
        (await store.readStream('s-1')).map((e) => e.type),
        ['Step', 'Done'],
      );
      assert.equal(await deferred.storeId(), await store.storeId());
      // every pooled connection still commits synchronously outside a deferred append
      const pool = (store as unknown as { pool: pg.Pool }).pool;
      const clients = await Promise.all(Array.from({ length: 3 }, () => pool.connect()));
      try {
        for (const client of clients)
          assert.equal((await client.query('SHOW synchronous_commit')).rows[0].synchronous_commit, 'on');
      } finally {
        for (const client of clients) client.release();
      }
    });

    it('concurrent appends go in groups (group commit): far fewer transactions than appends, positions in call order, no holes', async () => {
      const { url } = await database();
      const store = await open(url);
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => store.append(`group-${i}`, [{ type: 'Made', data: { i } }], 'no_stream')),
      );
      assert.deepEqual(
        results.map((r) => r.position),
        Array.from({ length: 100 }, (_, i) => i + 1),
        'each append in the order it was made',
      );
      // xmin: the transaction that wrote the row. The first append goes at once; the 99 made while it
      // was in flight wait for it, then go together.
      const [{ transactions }] = await admin<{ transactions: string }>(
        url,
        'SELECT count(DISTINCT xmin::text) AS transactions FROM burrow_events',
      );
      assert.ok(Number(transactions) <= 3, `${transactions} transactions for 100 concurrent appends`);
    });

    it('in a group, an append with a wrong expected revision fails alone: the others commit, and of racing writers to one revision exactly one wins', async () => {
      const { url } = await database();
      const store = await open(url);
      await store.append('taken', [{ type: 'Made', data: {} }], 'no_stream');
      const outcomes = await Promise.allSettled([
        store.append('fresh-1', [{ type: 'Made', data: {} }], 'no_stream'),
        store.append('taken', [{ type: 'Made', data: {} }], 'no_stream'), // exists already: refused
        store.append(
          'fresh-2',
          [
            { type: 'Made', data: {} },
            { type: 'Changed', data: {} },
          ],
          'no_stream',
        ),
        ...Array.from({ length: 5 }, () => store.append('taken', [{ type: 'Changed', data: {} }], 0)), // one of five wins
        store.append('fresh-1', [{ type: 'Changed', data: {} }], 0), // sees fresh-1 from earlier in the same group
      ]);
      assert.equal(outcomes[0].status, 'fulfilled');
      assert.equal(outcomes[1].status, 'rejected');
      assert.equal(outcomes[1].reason.name, 'WrongExpectedRevisionError');
      assert.equal(outcomes[1].reason.actual, 0);
      assert.equal(outcomes[2].status, 'fulfilled');
      const racers = outcomes.slice(3, 8);
      assert.equal(racers.filter((o) => o.status === 'fulfilled').length, 1, 'exactly one writer of revision 1');
      assert.ok(racers.every((o) => o.status === 'fulfilled' || o.reason.name === 'WrongExpectedRevisionError'));
      assert.equal(outcomes[8].status, 'fulfilled');
      assert.deepEqual(
        (await store.readStream('taken')).map((e) => e.type),
        ['Made', 'Changed'],
      );
      assert.deepEqual(
        (await store.readStream('fresh-1')).map((e) => e.revision),
        [0, 1],
      );
      const positions = (
        await admin<{ position: string }>(url, 'SELECT position FROM burrow_events ORDER BY position')
      ).map((r) => Number(r.position));
      assert.deepEqual(
        positions,
        Array.from({ length: positions.length }, (_, i) => i + 1),
        'no holes where appends were refused',
      );
    });

    it('an event the server refuses in a group fails alone; the others of its group commit', async () => {
      const { url } = await database();
      const store = await open(url);
      const outcomes = await Promise.allSettled([
        store.append('first', [{ type: 'Made', data: {} }], 'no_stream'),
        store.append('ok-1', [{ type: 'Made', data: {} }], 'no_stream'),
        store.append('bad', [{ type: 'Made\u0000', data: {} }], 'no_stream'), // text cannot hold NUL
        store.append('ok-2', [{ type: 'Made', data: {} }], 'no_stream'),
      ]);
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
      );
      assert.deepEqual((await store.readStream('ok-2')).length, 1);
      assert.deepEqual((await store.readStream('bad')).length, 0);
    });
  },
);
