/**
 * The SSE stream's own behaviour, on a real HTTP server with the feed replaced by a function: idle
 * streams get heartbeats, a client that stops reading stops the fetching (backpressure), a client
 * that goes stops the loop, an absent accounts service keeps the stream open, and a refused fetch
 * (the partner's password changed) ends it.
 */
import { type FeedPage, type PublicEvent, serviceUnavailable, unauthorized } from '@burrow/contracts';
import express from 'express';
import assert from 'node:assert/strict';
import { type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, it } from 'node:test';
import { type FeedFetch, streamFeed } from './sse.js';

const silentLog = { error: () => undefined };
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

const event = (position: number, size = 2000): PublicEvent => ({
  id: `evt_${position}`,
  position,
  type: 'user.deleted',
  time: '2026-01-01T00:00:00.000Z',
  data: { username: `user${position}`.padEnd(size, 'x') },
});

/** Waits until `check` holds (the stream's timing is the machine's, not the test's). */
async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`never happened: ${what}`);
    await pause(20);
  }
}

let server: Server | undefined;
afterEach(() => server?.close());

async function serve(fetch: FeedFetch, options = { heartbeatMs: 50, maxMs: 60_000 }): Promise<string> {
  const app = express();
  app.get('/events', (_req, res) => void streamFeed(res, 0, fetch, options, silentLog));
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server!.once('listening', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
}

/** Opens the stream; `text()` is what has arrived; `pause()`/`resume()` stop and restart reading. */
function open(url: string) {
  let text = '';
  let received = 0;
  let res: IncomingMessage | undefined;
  const req = request(url, (r) => {
    res = r;
    r.setEncoding('utf8');
    // the latest megabyte is enough for any check
    r.on('data', (c: string) => {
      received += c.length;
      text = (text + c).slice(-1_000_000);
    });
  });
  req.end();
  return {
    text: () => text,
    received: () => received,
    pause: () => {
      assert.ok(res, 'no response yet');
      res.pause();
    },
    resume: () => res?.resume(),
    close: () => req.destroy(),
  };
}

describe('SSE stream', () => {
  it('an idle stream gets heartbeat comments', async () => {
    const url = await serve(async (after, _limit, waitMs) => {
      await pause(waitMs);
      return { events: [], next_after: after, has_more: false };
    });
    const client = open(url);
    await until(() => client.text().split(': heartbeat\n\n').length > 2, 'two heartbeats');
    client.close();
    assert.match(client.text(), /^retry: \d+\n: connected\n\n: heartbeat\n\n: heartbeat\n\n/);
  });

  it('frames each event with its position as id, and a client that goes stops the fetching', async () => {
    let calls = 0;
    const url = await serve(async (after) => {
      calls++;
      await pause(5);
      return { events: [event(after + 1)], next_after: after + 1, has_more: true } satisfies FeedPage;
    });
    const client = open(url);
    await until(() => /id: 2\n/.test(client.text()), 'two events');
    assert.match(client.text(), /id: 1\nevent: user\.deleted\ndata: \{"id":"evt_1","position":1,/);
    client.close();
    await pause(100);
    const after = calls;
    await pause(300);
    assert.ok(calls <= after + 1, `still fetching after the client left: ${after} -> ${calls}`);
  });

  it('a client that stops reading stops the fetching until it reads again (backpressure)', async () => {
    let calls = 0;
    // 1 MB per fetch: the socket buffers (several MB on loopback) fill after a few fetches
    const url = await serve(async (after) => {
      calls++;
      return {
        events: Array.from({ length: 50 }, (_, i) => event(after + i + 1, 20_000)),
        next_after: after + 50,
        has_more: true,
      };
    });
    const client = open(url);
    await until(() => client.received() > 100_000, 'the first events');
    client.pause();
    // once the buffers are full the stream waits: the count stops moving
    let last = -1;
    for (let i = 0; i < 100 && calls !== last; i++) {
      last = calls;
      await pause(200);
    }
    const stalled = calls;
    await pause(1000);
    assert.equal(calls, stalled, 'no fetch while the client does not read');
    // reading again lets it go on
    client.resume();
    await until(() => calls > stalled + 2, 'fetching resumes with reading');
    client.close();
  });

  it('a fetch refused with 401 (the partner password changed) ends the stream at once, saying why, and fetches no more', async () => {
    let calls = 0;
    const errors: object[] = [];
    const app = express();
    app.get(
      '/events',
      (_req, res) =>
        void streamFeed(
          res,
          0,
          async (after) => {
            calls++;
            if (calls === 2) throw unauthorized('the partner password has changed');
            return { events: [event(after + 1)], next_after: after + 1, has_more: false };
          },
          { heartbeatMs: 50, maxMs: 60_000 },
          { error: (details) => void errors.push(details) },
        ),
    );
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server!.once('listening', r));
    const text = await new Promise<string>((resolve, reject) => {
      request(`http://127.0.0.1:${(server!.address() as AddressInfo).port}/events`, (res) => {
        let body = '';
        res
          .setEncoding('utf8')
          .on('data', (c: string) => (body += c))
          .on('end', () => resolve(body));
      })
        .on('error', reject)
        .end();
    });
    assert.match(
      text,
      /id: 1\n[^]*: the partner password has changed: the stream ends; reconnect with the new credentials\n\n$/,
    );
    assert.equal(calls, 2);
    assert.deepEqual(errors, [], 'an expected end, not an error');
  });

  it('while the accounts service does not answer, the stream stays open and then goes on', async () => {
    let calls = 0;
    const url = await serve(async (after) => {
      calls++;
      if (calls === 1) throw serviceUnavailable('accounts service did not answer in time');
      return calls === 2
        ? { events: [event(after + 1)], next_after: after + 1, has_more: false }
        : (await pause(50), { events: [], next_after: after, has_more: false });
    });
    const client = open(url);
    await until(() => /id: 1\n/.test(client.text()), 'the event after the outage');
    client.close();
    assert.match(client.text(), /: connected\n\n: waiting for the feed\n\n(: heartbeat\n\n)*id: 1\n/);
  });
});
