/**
 * Connection limits per client address (issue 33, item 7), in both modes. Linux routes all of
 * 127.0.0.0/8 to the loopback interface, so a client bound to 127.0.0.2 is one address and one
 * bound to 127.0.0.3 another:
 * - a flood of half-open requests (headers never finished) from one address: past
 *   BURROW_MAX_UNFINISHED_HEADERS_PER_ADDRESS its connections are closed at once, the ones held
 *   are closed after BURROW_HEADERS_TIMEOUT_SECONDS, and another address is served meanwhile (a
 *   health probe and an upload);
 * - an address holding BURROW_MAX_CONNECTIONS_PER_ADDRESS connections (requests waiting for their
 *   bodies) cannot open one more, while another address can;
 * - with the default limits, a standalone process with 1024 file descriptors keeps serving other
 *   addresses through a flood of 2,000 half-open requests (before the limits, the flood took every
 *   descriptor and other clients' connections were reset).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startMultiProcess } from './harness/multi-process.js';
import { startStandalone, type TestTarget } from './harness/standalone.js';
import { startStandaloneProcess } from './harness/standalone-process.js';
import { b32 } from './harness/storage-client.js';
import { userWithDevice } from './scenarios/storage-fixtures.js';

const HAS_PRLIMIT = spawnSync('prlimit', ['--version']).status === 0;
const LIMITS = {
  BURROW_MAX_CONNECTIONS_PER_ADDRESS: '30',
  BURROW_MAX_UNFINISHED_HEADERS_PER_ADDRESS: '10',
  BURROW_HEADERS_TIMEOUT_SECONDS: '8',
};
const HEADERS_TIMEOUT_MS = 8000;
const PARTIAL = 'GET /healthz HTTP/1.1\r\nHost: burrow\r\n';

interface Connection {
  opened: number;
  /** when it closed (ms since the epoch), once it has */
  closedAt?: number;
  received: string;
  socket: Socket;
  closed: Promise<void>;
}

/** A connection from `from` to the target that sends `data` once connected. */
function connection(url: string, from: string, data: string): Connection {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port), localAddress: from });
  const c: Connection = { opened: Date.now(), received: '', socket, closed: Promise.resolve() };
  c.closed = new Promise((resolve) => {
    socket.on('connect', () => socket.write(data));
    socket.on('data', (chunk: Buffer) => (c.received += chunk.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      c.closedAt = Date.now();
      resolve();
    });
  });
  return c;
}

/** One whole request from `from`: its status (0 when the connection failed) and how long it took. */
function send(
  url: string,
  from: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; ms: number; error?: string }> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  return new Promise((resolve) => {
    const req = request(
      {
        host: hostname,
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers,
        localAddress: from,
        agent: false,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: Date.now() - started }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ status: 0, ms: Date.now() - started, error: error.code ?? error.message }),
    );
    req.setTimeout(15_000, () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.end(options.body);
  });
}

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function modes(): [string, () => Promise<TestTarget>, string | false][] {
  const natsUrl = process.env.NATS_URL;
  return [
    ['standalone', () => startStandalone(LIMITS), false],
    [
      'multi-process',
      () => startMultiProcess(natsUrl!, LIMITS),
      natsUrl ? false : 'NATS_URL not set: multi-process suites skipped',
    ],
  ];
}

for (const [mode, start, skip] of modes()) {
  describe(`connection limits per client address (${mode})`, { skip }, () => {
    let target: TestTarget;
    before(async () => {
      target = await start();
    });
    after(async () => {
      await target?.close();
    });

    it('a flood of half-open requests from one address: past the limit closed at once, the rest after the headers timeout; another address is served', async () => {
      const { username, auth } = await userWithDevice(target, 'lim', 'user-password-1');
      const flood = Array.from({ length: 300 }, () => connection(target.url, '127.0.0.2', PARTIAL));
      // 290 are over the limit of 10 unfinished: closed without an answer, long before the headers timeout
      await until(
        () => flood.filter((c) => c.closedAt !== undefined).length >= 290,
        HEADERS_TIMEOUT_MS / 2,
        'the connections past the limit are closed',
      );
      assert.ok(
        flood.every((c) => c.received === ''),
        'a refused connection gets no answer',
      );
      const held = flood.filter((c) => c.closedAt === undefined);
      assert.equal(held.length, 10);
      // meanwhile another address is served promptly: a health probe, an upload
      const probe = await send(target.url, '127.0.0.3', { path: '/healthz' });
      assert.equal(probe.status, 200, JSON.stringify(probe));
      assert.ok(probe.ms < 5000, `the probe took ${probe.ms} ms`);
      const put = await send(target.url, '127.0.0.3', {
        method: 'PUT',
        path: `/storage/${b32(username)}/laptop/during-flood.txt`,
        headers: { ...auth, 'Content-Type': 'application/octet-stream' },
        body: 'uploaded during the flood',
      });
      assert.equal(put.status, 201, JSON.stringify(put));
      // the flooding address itself gets nothing more while it holds its 10
      assert.equal((await send(target.url, '127.0.0.2', { path: '/healthz' })).status, 0);
      // the held ones are closed once their headers are late, not before
      await Promise.all(held.map((c) => c.closed));
      for (const c of held)
        assert.ok(c.closedAt! - c.opened >= HEADERS_TIMEOUT_MS - 500, `held ${c.closedAt! - c.opened} ms`);
      // then the address is served again
      assert.equal((await send(target.url, '127.0.0.2', { path: '/healthz' })).status, 200);
    });

    it('an address holding its 30 connections (requests waiting for their bodies) cannot open another; another address can', async () => {
      // each sends its headers (`Expect: 100-continue`: the gateway says when it has them) and then no body
      const waiting =
        'POST /browse/login HTTP/1.1\r\nHost: burrow\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n';
      const held: Connection[] = [];
      // five at a time: fewer than the 10 unfinished headers the address may have
      for (let batch = 0; batch < 6; batch++) {
        const five = Array.from({ length: 5 }, () => connection(target.url, '127.0.0.4', waiting));
        await until(
          () => five.every((c) => c.received.startsWith('HTTP/1.1 100 Continue')),
          15_000,
          'the gateway has the headers',
        );
        held.push(...five);
      }
      const refused = connection(target.url, '127.0.0.4', 'GET /healthz HTTP/1.1\r\nHost: burrow\r\n\r\n');
      await refused.closed;
      assert.equal(refused.received, '', 'the 31st connection is closed without an answer');
      assert.ok(
        held.every((c) => c.closedAt === undefined),
        'the 30 stay open',
      );
      assert.equal((await send(target.url, '127.0.0.5', { path: '/healthz' })).status, 200);
      for (const c of held) c.socket.destroy();
      // once they are gone, the address is served again (the gateway sees them close)
      const deadline = Date.now() + 10_000;
      let status = 0;
      while (status !== 200 && Date.now() < deadline)
        status = (await send(target.url, '127.0.0.4', { path: '/healthz' })).status;
      assert.equal(status, 200);
    });
  });
}

describe(
  'the default limits: a standalone process with 1024 file descriptors through a flood of 2,000 half-open requests',
  { skip: HAS_PRLIMIT ? false : 'prlimit (util-linux) not found' },
  () => {
    it('keeps serving other addresses', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'burrow-limits-'));
      const server = await startStandaloneProcess(dir, { LOG_LEVEL: 'warn' }, ['prlimit', '--nofile=1024:1024']);
      const flood: Connection[] = [];
      try {
        for (let i = 0; i < 2000; i++) flood.push(connection(server.url, '127.0.0.2', PARTIAL));
        await until(
          () => flood.every((c) => c.closedAt !== undefined || c.socket.readyState === 'open'),
          30_000,
          'every flood connection was accepted or closed',
        );
        const probes = [];
        for (let i = 0; i < 16; i++) {
          probes.push(await send(server.url, `127.0.0.${3 + (i % 4)}`, { path: '/healthz' }));
        }
        assert.deepEqual(
          probes.filter((p) => p.status !== 200),
          [],
          'every probe from another address is answered',
        );
        assert.ok(
          flood.filter((c) => c.closedAt === undefined).length <= 64,
          'the flooding address holds at most 64 connections',
        );
      } finally {
        for (const c of flood) c.socket.destroy();
        await server.kill();
        await rm(dir, { recursive: true, force: true });
      }
    });
  },
);
