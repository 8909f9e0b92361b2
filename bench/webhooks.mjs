#!/usr/bin/env node
/**
 * Webhook delivery latency: from an event (its `time`, when the event store recorded it) to the
 * moment a receiver on 127.0.0.1 has the delivery, p50/p99 over BENCH_EVENTS events made one at a
 * time, next to a baseline measured in the same run against the same receiver: a bare HTTP POST
 * of the same body from this process (keep-alive, no Burrow). Also from the API call that made
 * the event to the delivery (what a partner sees: write, projection, delivery). Then the same again
 * while another partner's 20 endpoints accept and never answer (a noisy neighbour). Standalone mode.
 *
 *   npm run bench:webhooks
 */
import { createServer, Agent, request } from 'node:http';

const { startStandalone } = await import('../apps/e2e/dist/harness/standalone.js');

const EVENTS = Number(process.env.BENCH_EVENTS ?? 300);
const agent = new Agent({ keepAlive: true, maxSockets: 4 });

function call(url, { method = 'GET', auth, body } = {}) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        agent,
        headers: {
          ...(auth ? { authorization: 'Basic ' + Buffer.from(auth).toString('base64') } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () =>
          res.statusCode < 400
            ? resolve(text ? JSON.parse(text) : null)
            : reject(new Error(`${method} ${url}: ${res.statusCode} ${text}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));
  });
}

/** The receiver: resolves the waiter of each event id (or baseline id) the moment its POST is read. */
const waiters = new Map();
const arrived = new Map();
const receiver = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const at = Date.now();
    const hr = process.hrtime.bigint();
    res.writeHead(200).end();
    const id = req.headers['burrow-event-id'] ?? req.headers['x-baseline-id'];
    const event = req.headers['burrow-event-id'] ? JSON.parse(body) : null;
    arrived.set(id, { at, hr, event });
    waiters.get(id)?.();
  });
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

/** Endpoints that accept every POST and never answer (a noisy neighbour's). */
let held = 0;
const silent = createServer((req) => {
  held += 1;
  req.resume();
  req.socket.once('close', () => (held -= 1));
});
await new Promise((r) => silent.listen(0, '127.0.0.1', r));
const silentUrl = `http://127.0.0.1:${silent.address().port}/silent`;
const silentOpen = () => held;

const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const pick = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: pick(0.5), p99: pick(0.99) };
};
const fmt = (s) => `p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms`;

// ---- baseline: a bare POST to the same receiver --------------------------------------------------
const sample = JSON.stringify({
  id: 'evt_baseline',
  position: 1,
  type: 'user.disabled',
  time: new Date().toISOString(),
  data: { username: 'someone' },
});
const baseline = [];
for (let i = 0; i < EVENTS + 50; i++) {
  const id = `b${i}`;
  const got = new Promise((r) => waiters.set(id, r));
  const t = process.hrtime.bigint();
  await new Promise((resolve, reject) => {
    const u = new URL(receiverUrl);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'x-baseline-id': id },
      },
      (res) => {
        res.resume();
        res.on('end', resolve);
      },
    );
    req.on('error', reject);
    req.end(sample);
  });
  await got;
  if (i >= 50) baseline.push(Number(arrived.get(id).hr - t) / 1e6);
}

// ---- Burrow: event -> receiver ---------------------------------------------------------------------
const target = await startStandalone({
  BURROW_WEBHOOK_ALLOW_HTTP: 'true',
  BURROW_WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
  LOG_LEVEL: 'warn',
});
const auth = `${target.partner.username}:${target.partner.password}`;
try {
  await call(`${target.url}/webhooks/`, {
    method: 'POST',
    auth,
    body: { url: receiverUrl, event_types: ['user.enabled', 'user.disabled'] },
  });
  await call(`${target.url}/users/`, {
    method: 'POST',
    auth,
    body: { username: 'bench', name: 'Bench', email: 'bench@example.com' },
  });
  const measure = async (events) => {
    const fromEvent = [];
    const fromCall = [];
    let after = (await call(`${target.url}/events/?after=0&limit=1000`, { auth })).next_after;
    for (let i = 0; i < events + 20; i++) {
      const hr = process.hrtime.bigint();
      await call(`${target.url}/users/bench`, { method: 'POST', auth, body: { enabled: i % 2 === 1 } });
      // the event's id, from the feed (read-your-writes: it is there once the write has answered)
      let page = await call(`${target.url}/events/?after=${after}&limit=1000`, { auth });
      while (page.has_more) page = await call(`${target.url}/events/?after=${page.next_after}&limit=1000`, { auth });
      const event = page.events.at(-1);
      after = page.next_after;
      if (!arrived.has(event.id)) await new Promise((r) => waiters.set(event.id, r));
      const got = arrived.get(event.id);
      if (i < 20) continue; // warm-up
      fromEvent.push(got.at - Date.parse(event.time));
      fromCall.push(Number(got.hr - hr) / 1e6);
    }
    return { viaEvent: stats(fromEvent), viaCall: stats(fromCall) };
  };
  const { viaEvent, viaCall } = await measure(EVENTS);
  const base = stats(baseline);
  console.log(`webhook delivery latency, ${EVENTS} events one at a time, standalone, receiver on 127.0.0.1`);
  console.log(`  baseline: bare HTTP POST to the receiver      ${fmt(base)}`);
  console.log(
    `  event recorded -> receiver has the delivery   ${fmt(viaEvent)}   (${(viaEvent.p50 / base.p50).toFixed(1)}x / ${(viaEvent.p99 / base.p99).toFixed(1)}x the baseline; ms clock)`,
  );
  console.log(
    `  API call -> receiver has the delivery         ${fmt(viaCall)}   (${(viaCall.p50 / base.p50).toFixed(1)}x / ${(viaCall.p99 / base.p99).toFixed(1)}x the baseline)`,
  );

  // Another partner with 20 endpoints that accept and never answer, and deliveries piling up for
  // them (issue 33, item 5): they hold that partner's slots only, so this partner's latency stays.
  const noisy = { username: 'noisy-neighbour', password: 'noisy-password-1' };
  await target.operator.call('accounts.partners.create', { company_name: 'Noisy', bytes_available: null, ...noisy });
  const noisyAuth = `${noisy.username}:${noisy.password}`;
  for (let i = 0; i < 20; i++)
    await call(`${target.url}/webhooks/`, {
      method: 'POST',
      auth: noisyAuth,
      body: { url: `${silentUrl}/${i}`, event_types: ['*'] },
    });
  for (let i = 0; i < 5; i++)
    await call(`${target.url}/users/`, {
      method: 'POST',
      auth: noisyAuth,
      body: { username: `noisy${i}`, name: 'Noisy', email: `noisy${i}@example.com` },
    });
  const neighbour = await measure(Math.ceil(EVENTS / 3));
  console.log(`  the same, while another partner's 20 endpoints never answer (${silentOpen()} requests held open)`);
  console.log(
    `    event recorded -> receiver has the delivery ${fmt(neighbour.viaEvent)}   (${(neighbour.viaEvent.p50 / viaEvent.p50).toFixed(1)}x / ${(neighbour.viaEvent.p99 / viaEvent.p99).toFixed(1)}x without the neighbour)`,
  );
} finally {
  // the attempts held open fail at once when their connections go, so the service stops promptly
  silent.close();
  silent.closeAllConnections();
  await target.close();
  receiver.close();
  agent.destroy();
}
