/**
 * The per-client-address limits on real loopback sockets (Linux routes all of 127.0.0.0/8 to lo,
 * so 127.0.0.2 and 127.0.0.3 are other clients): connections over a limit are closed at once,
 * unfinished headers time out, other addresses are served, a trusted proxy's connections are
 * limited by the forwarded address after headers, and TLS connections are followed too.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, request, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { after, describe, it } from 'node:test';
import express from 'express';
import { ConnectionLimiter, type ConnectionLimits, type RefusalReason } from './connection-limits.js';

const HAS_OPENSSL = spawnSync('openssl', ['version']).status === 0;

interface Started {
  server: Server;
  port: number;
  limiter: ConnectionLimiter;
  refused: RefusalReason[];
  /** requests the app holds open until `release()` */
  release(): void;
}

/** An Express app behind the limiter: `/hold` answers only when released, anything else at once. */
async function start(
  limits: ConnectionLimits,
  options: { trustProxy?: string; tls?: { cert: Buffer; key: Buffer } } = {},
): Promise<Started> {
  const app = express();
  if (options.trustProxy) app.set('trust proxy', options.trustProxy);
  const refused: RefusalReason[] = [];
  const trust = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
  const limiter = new ConnectionLimiter(
    limits,
    (address) => trust(address, 0),
    (reason) => refused.push(reason),
  );
  let held: (() => void)[] = [];
  app.use(limiter.middleware);
  app.get('/hold', (_req, res) => {
    held.push(() => res.end('released'));
  });
  app.use((_req, res) => {
    res.end('ok');
  });
  const server = options.tls ? (createHttpsServer(options.tls, app) as unknown as Server) : createHttpServer(app);
  limiter.attach(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    port: (server.address() as { port: number }).port,
    limiter,
    refused,
    release: () => {
      for (const end of held) end();
      held = [];
    },
  };
}

const servers: Server[] = [];
after(() => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

/** A connection from `from` that sends `data` and keeps what comes back; `closed` resolves when it ends. */
function open(port: number, from: string, data: string, tls = false) {
  let received = '';
  let socket: Socket;
  const connected = new Promise<void>((resolve) => {
    socket = tls
      ? tlsConnect(
          { socket: connect({ host: '127.0.0.1', port, localAddress: from }), rejectUnauthorized: false },
          () => resolve(),
        )
      : connect({ host: '127.0.0.1', port, localAddress: from }, () => resolve());
  });
  const closed = new Promise<void>((resolve) => {
    socket!.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket!.on('error', () => undefined);
    socket!.on('close', () => resolve());
  });
  void connected.then(() => socket.write(data));
  return { connected, closed, received: () => received, socket: () => socket, isClosed: () => socket.destroyed };
}

/** A whole GET from `from`; the status and body. */
function get(
  port: number,
  from: string,
  path = '/',
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, localAddress: from, headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer to GET ${path} from ${from} within 10 s`)));
    req.end();
  });
}

const PARTIAL = 'GET / HTTP/1.1\r\nHost: x\r\n';

/** Waits (with a deadline) until the server has seen every connection and request of `address` end. */
async function settled(limiter: ConnectionLimiter, address: string): Promise<void> {
  const deadline = Date.now() + 5000;
  const busy = () => Object.values(limiter.held(address)).some((n) => n > 0);
  while (busy() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(limiter.held(address), { open: 0, unfinished: 0, requests: 0 });
}

describe('ConnectionLimiter', () => {
  it('closes an address’s connections past its unfinished-headers limit at once, times the held ones out, and serves other addresses', async () => {
    const s = await start({ perAddress: 100, unfinishedHeadersPerAddress: 5, headersTimeoutSeconds: 1.5 });
    servers.push(s.server);
    const started = Date.now();
    const flood = Array.from({ length: 30 }, () => open(s.port, '127.0.0.2', PARTIAL));
    await Promise.all(flood.map((c) => c.connected));
    // the 25 past the limit are closed without an answer, long before the headers timeout
    const deadline = Date.now() + 1000;
    while (flood.filter((c) => c.isClosed()).length < 25 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    assert.equal(flood.filter((c) => c.isClosed()).length, 25);
    assert.ok(
      flood.every((c) => c.received() === ''),
      'no answer to a refused connection',
    );
    assert.ok(Date.now() - started < 1500);
    assert.deepEqual(s.limiter.held('127.0.0.2'), { open: 5, unfinished: 5, requests: 0 });
    // another address is served meanwhile
    assert.deepEqual(await get(s.port, '127.0.0.3'), { status: 200, body: 'ok' });
    // the five held ones are closed once their headers are late
    await Promise.all(flood.map((c) => c.closed));
    assert.ok(Date.now() - started >= 1400, 'held until the headers timeout');
    await settled(s.limiter, '127.0.0.2');
    assert.equal(s.refused.filter((r) => r === 'unfinished_headers').length, 25);
    assert.equal(s.refused.filter((r) => r === 'headers_timeout').length, 5);
    // and the address is served again
    assert.equal((await get(s.port, '127.0.0.2')).status, 200);
  });

  it('closes connections past the open-connection limit, counting connections whose headers arrived', async () => {
    const s = await start({ perAddress: 4, unfinishedHeadersPerAddress: 4, headersTimeoutSeconds: 10 });
    servers.push(s.server);
    const holding = Array.from({ length: 4 }, () => open(s.port, '127.0.0.4', 'GET /hold HTTP/1.1\r\nHost: x\r\n\r\n'));
    await Promise.all(holding.map((c) => c.connected));
    const deadline = Date.now() + 5000;
    while (s.limiter.held('127.0.0.4').requests < 4 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(s.limiter.held('127.0.0.4'), { open: 4, unfinished: 0, requests: 4 });
    const fifth = open(s.port, '127.0.0.4', 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await fifth.closed;
    assert.equal(fifth.received(), '', 'closed without an answer');
    assert.deepEqual(s.refused, ['connections']);
    assert.equal((await get(s.port, '127.0.0.5')).status, 200);
    s.release();
    for (const c of holding) c.socket().end();
    await Promise.all(holding.map((c) => c.closed));
    assert.ok(holding.every((c) => c.received().includes('released')));
    await settled(s.limiter, '127.0.0.4');
    assert.equal((await get(s.port, '127.0.0.4')).status, 200);
  });

  it('behind a trusted proxy: no limit at the socket, and requests in progress limited per forwarded address (429)', async () => {
    const s = await start(
      { perAddress: 3, unfinishedHeadersPerAddress: 2, headersTimeoutSeconds: 10 },
      { trustProxy: 'loopback' },
    );
    servers.push(s.server);
    // the proxy's own connections are many clients': more than the limits allow one address
    const partial = Array.from({ length: 6 }, () => open(s.port, '127.0.0.6', PARTIAL));
    await Promise.all(partial.map((c) => c.connected));
    const forwarded = (client: string) =>
      open(s.port, '127.0.0.6', `GET /hold HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${client}\r\n\r\n`);
    const holding = Array.from({ length: 3 }, () => forwarded('203.0.113.7'));
    const deadline = Date.now() + 5000;
    while (s.limiter.held('203.0.113.7').requests < 3 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    assert.equal(s.limiter.held('203.0.113.7').requests, 3);
    assert.ok(
      partial.every((c) => !c.isClosed()),
      'a trusted proxy is not limited at the socket',
    );
    const refused = await get(s.port, '127.0.0.6', '/', { 'X-Forwarded-For': '203.0.113.7' });
    assert.equal(refused.status, 429);
    assert.match(JSON.parse(refused.body).reason, /too many requests in progress/);
    assert.equal(
      (await get(s.port, '127.0.0.6', '/', { 'X-Forwarded-For': '203.0.113.8' })).status,
      200,
      'another client behind the proxy',
    );
    // an IPv6 client counts by its /64
    const v6 = Array.from({ length: 3 }, (_, i) => forwarded(`2001:db8:1:2::${i + 1}`));
    while (s.limiter.held('2001:db8:1:2::99').requests < 3 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    assert.equal((await get(s.port, '127.0.0.6', '/', { 'X-Forwarded-For': '2001:db8:1:2:ffff::1' })).status, 429);
    s.release();
    for (const c of [...holding, ...v6, ...partial]) c.socket().destroy();
    await settled(s.limiter, '203.0.113.7');
    assert.equal((await get(s.port, '127.0.0.6', '/', { 'X-Forwarded-For': '203.0.113.7' })).status, 200);
    assert.deepEqual(s.refused, ['requests', 'requests']);
  });

  it(
    'follows TLS connections: the handshake counts as unfinished headers, a request ends that',
    { skip: HAS_OPENSSL ? false : 'openssl not found' },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'burrow-limits-'));
      try {
        execFileSync(
          'openssl',
          [
            'req',
            '-x509',
            '-newkey',
            'ec',
            '-pkeyopt',
            'ec_paramgen_curve:P-256',
            '-nodes',
            '-days',
            '1',
            '-subj',
            '/CN=t',
            '-keyout',
            join(dir, 'k'),
            '-out',
            join(dir, 'c'),
          ],
          { stdio: 'ignore' },
        );
        const tls = { cert: readFileSync(join(dir, 'c')), key: readFileSync(join(dir, 'k')) };
        const s = await start({ perAddress: 10, unfinishedHeadersPerAddress: 2, headersTimeoutSeconds: 10 }, { tls });
        servers.push(s.server);
        // two handshaken connections that never send a request, then a third is refused before its handshake
        const idle = [open(s.port, '127.0.0.7', '', true), open(s.port, '127.0.0.7', '', true)];
        await Promise.all(idle.map((c) => c.connected));
        assert.deepEqual(s.limiter.held('127.0.0.7'), { open: 2, unfinished: 2, requests: 0 });
        const third = open(s.port, '127.0.0.7', '', true);
        await third.closed;
        assert.deepEqual(s.refused, ['unfinished_headers']);
        // a connection that sent its request no longer counts as unfinished (kept alive, it stays open)
        for (const c of idle) c.socket().write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
        const deadline = Date.now() + 5000;
        while (!idle.every((c) => c.received().includes('ok')) && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 10));
        assert.deepEqual(s.limiter.held('127.0.0.7'), { open: 2, unfinished: 0, requests: 0 });
        const fourth = open(s.port, '127.0.0.7', 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', true);
        await fourth.closed;
        assert.match(fourth.received(), /^HTTP\/1\.1 200/);
        for (const c of idle) c.socket().destroy();
        await Promise.all(idle.map((c) => c.closed));
        await settled(s.limiter, '127.0.0.7');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
