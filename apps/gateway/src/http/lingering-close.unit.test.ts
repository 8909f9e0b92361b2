import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { closeAfterAnswer } from './lingering-close.js';

/** A server that refuses every upload once 64 KiB of it arrived, closing the connection. */
function refusingServer(lingering: boolean) {
  return http.createServer((req, res) => {
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received <= 65_536 || res.headersSent) return;
      req.pause();
      if (lingering) closeAfterAnswer(req, res);
      else res.setHeader('Connection', 'close');
      res.writeHead(507, { 'content-type': 'application/json' }).end('{"reason":"quota"}');
    });
  });
}

/** PUTs 16 MiB chunked; what the client saw: the status, and whether its request failed. */
function upload(port: number): Promise<{ status?: number; error?: string }> {
  return new Promise((resolve) => {
    const seen: { status?: number; error?: string } = {};
    const req = http.request(
      { port, host: '127.0.0.1', method: 'PUT', agent: false, headers: { 'transfer-encoding': 'chunked' } },
      (res) => {
        seen.status = res.statusCode;
        res.resume();
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => (seen.error = error.code ?? error.message));
    req.on('close', () => resolve(seen));
    const chunk = Buffer.alloc(256 * 1024);
    let sent = 0;
    const pump = () => {
      while (sent < 16 * 1024 * 1024) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

describe('a refused upload closes its connection lingering', () => {
  const servers: http.Server[] = [];
  const ports: Record<string, number> = {};
  before(async () => {
    for (const [name, lingering] of [
      ['plain', false],
      ['lingering', true],
    ] as const) {
      const server = refusingServer(lingering);
      servers.push(server);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      ports[name] = (server.address() as AddressInfo).port;
    }
  });
  after(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

  it('the client reads the refusal and its sending ends without a reset, every time', async () => {
    for (let i = 0; i < 20; i++) assert.deepEqual(await upload(ports.lingering), { status: 507 });
  });

  it('(what it prevents: a plain close resets a client that is still sending)', async () => {
    const seen = await Promise.all(Array.from({ length: 20 }, () => upload(ports.plain)));
    assert.ok(
      seen.some((s) => s.error !== undefined),
      `no plain close reset its client: ${JSON.stringify(seen)}`,
    );
  });
});
