/**
 * Webhooks end to end inside the accounts service: real HTTP receivers on 127.0.0.1 (the test
 * context allows http and loopback targets, as an operator may), the service's handlers, the
 * delivery worker on the SQLite store, and a clock the tests move (retries in milliseconds, the
 * retry window and the auto-disable in "days").
 */
import { MAX_WEBHOOKS_PER_PARTNER, type PublicEvent, type WebhookWithSecret } from '@burrow/contracts';
import { MemoryKeyValueStore } from '@burrow/kv';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestAccounts, type TestAccounts, TEST_WEBHOOKS } from '../testing/test-context.js';
import { DeliveryWorker, leaseTtlMs } from './delivery-worker.js';
import type { WebhookSettings } from './webhook-settings.js';
import { HttpDelivery } from './http-delivery.js';
import { verifySignature } from './signing.js';
import { WebhooksHandlers } from './webhooks.handlers.js';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/** An HTTP receiver answering each POST with the next status of `plan` (then 200). */
async function startReceiver(): Promise<{
  url: string;
  port: number;
  got: Received[];
  plan: number[];
  server: Server;
}> {
  const got: Received[] = [];
  const plan: number[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const status = plan.shift() ?? 200;
      got.push({ headers: req.headers, body, status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  // a receiver never keeps the test process alive (one was seen to outlive its test once)
  server.unref();
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, port, got, plan, server };
}

/**
 * A receiver that accepts every POST and never answers; it counts the requests open at once, in
 * all and per path (each endpoint registers its own path).
 */
async function startHangingReceiver(): Promise<{
  url: (path: string) => string;
  open: () => number;
  maxOpen: () => number;
  maxOpenPerPath: () => number;
  close: () => void;
}> {
  let open = 0;
  let maxOpen = 0;
  let maxOpenPerPath = 0;
  const perPath = new Map<string, number>();
  const server = createServer((req) => {
    const path = req.url ?? '';
    open += 1;
    perPath.set(path, (perPath.get(path) ?? 0) + 1);
    maxOpen = Math.max(maxOpen, open);
    maxOpenPerPath = Math.max(maxOpenPerPath, perPath.get(path)!);
    req.resume();
    req.socket.once('close', () => {
      open -= 1;
      perPath.set(path, perPath.get(path)! - 1);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}/${path}`,
    open: () => open,
    maxOpen: () => maxOpen,
    maxOpenPerPath: () => maxOpenPerPath,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}

async function eventually(check: () => Promise<void> | void, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

const header = (r: Received, name: string) => String(r.headers[name.toLowerCase()]);
const verified = (r: Received, secret: string) =>
  verifySignature(secret, Number(header(r, 'Burrow-Timestamp')), r.body, header(r, 'Burrow-Signature'));

describe('webhooks', () => {
  let t: TestAccounts;
  let offsetMs = 0;
  const nowMs = () => Date.now() + offsetMs;
  let worker: DeliveryWorker;
  let sender: HttpDelivery;
  let hooks: WebhooksHandlers;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let partnerId: string;
  let otherPartner: string;
  let endpoint: WebhookWithSecret;
  const kv = new MemoryKeyValueStore({ now: nowMs });

  async function startWorker(
    on: TestAccounts,
    settings: WebhookSettings = TEST_WEBHOOKS,
  ): Promise<{ worker: DeliveryWorker; sender: HttpDelivery }> {
    const s = new HttpDelivery({
      allowHttp: settings.allowHttp,
      allowPrivate: settings.allowPrivate,
      timeoutMs: settings.timeoutMs,
      resolver: settings.resolver,
    });
    const w = new DeliveryWorker(
      on.ctx,
      settings,
      await kv.bucket('webhook-leases', { ttlMs: leaseTtlMs(settings) }),
      s,
      { nowMs, idleMs: 50 },
    );
    w.start();
    return { worker: w, sender: s };
  }

  before(async () => {
    t = await startTestAccounts({ now: () => Math.floor(nowMs() / 1000) });
    ({ worker, sender } = await startWorker(t));
    hooks = new WebhooksHandlers(t.ctx);
    receiver = await startReceiver();
    partnerId = (await t.createPartner()).partner_id;
    otherPartner = (await t.createPartner()).partner_id;
  });
  after(async () => {
    receiver.server.close();
    receiver.server.closeAllConnections();
    await worker.stop();
    await sender.close();
    await t.close();
  });

  const createUser = (username: string, p = partnerId) =>
    t.users.create({ partnerId: p, username, name: username, email: `${username}@hooks.example` });
  const deliveries = () => hooks.deliveries({ partnerId, webhookId: endpoint.id });

  it('registers an endpoint and shows its secret once; another partner cannot see it', async () => {
    endpoint = await hooks.create({ partnerId, url: receiver.url, event_types: ['user.created', 'user.disabled'] });
    assert.match(endpoint.secret, /^whsec_/);
    const listed = await hooks.list({ partnerId });
    assert.deepEqual(
      listed.map((w) => w.id),
      [endpoint.id],
    );
    assert.ok(!JSON.stringify(listed).includes(endpoint.secret));
    assert.ok(!JSON.stringify(await hooks.get({ partnerId, webhookId: endpoint.id })).includes('whsec_'));
    assert.deepEqual(await hooks.list({ partnerId: otherPartner }), []);
    await expectError(hooks.get({ partnerId: otherPartner, webhookId: endpoint.id }), 404);
    await expectError(hooks.delete({ partnerId: otherPartner, webhookId: endpoint.id }), 404);
    const events = (await t.store.readStream(`webhook-${endpoint.id}`)).map((e) => JSON.stringify(e));
    assert.ok(!events.join().includes(endpoint.secret), 'the secret is in no event');
  });

  it("delivers a signed event, with its delivery id and event id; another partner's events never come", async () => {
    await createUser('bob', otherPartner);
    await createUser('ann');
    await eventually(() => assert.equal(receiver.got.length, 1));
    const [r] = receiver.got;
    const event = JSON.parse(r.body) as PublicEvent;
    assert.equal(event.type, 'user.created');
    assert.equal((event.data as { username: string }).username, 'ann');
    assert.ok(verified(r, endpoint.secret), 'the receiver verifies the signature with the secret');
    assert.equal(header(r, 'Burrow-Event-Id'), event.id);
    assert.equal(header(r, 'Burrow-Event-Type'), 'user.created');
    assert.equal(header(r, 'Burrow-Webhook-Id'), endpoint.id);
    await eventually(async () => {
      const [d] = await deliveries();
      assert.deepEqual(
        [d.id, d.status, d.attempts, d.last_status_code, d.event_id],
        [header(r, 'Burrow-Delivery-Id'), 'succeeded', 1, 200, event.id],
      );
    });
  });

  it('a receiver answering 500 twice then 200 gets exactly one successful delivery after retries', async () => {
    receiver.got.length = 0;
    receiver.plan.push(500, 500);
    await createUser('cy');
    await eventually(async () => assert.equal((await deliveries())[0].status, 'succeeded'));
    await worker.idle();
    assert.deepEqual(
      receiver.got.map((r) => r.status),
      [500, 500, 200],
    );
    assert.equal(
      new Set(receiver.got.map((r) => header(r, 'Burrow-Delivery-Id'))).size,
      1,
      'one delivery, three attempts',
    );
    assert.equal(new Set(receiver.got.map((r) => header(r, 'Burrow-Event-Id'))).size, 1);
    const [d] = await deliveries();
    assert.deepEqual(
      d.history.map((a) => [a.attempt, a.status_code, a.error]),
      [
        [1, 500, 'HTTP 500'],
        [2, 500, 'HTTP 500'],
        [3, 200, null],
      ],
    );
  });

  it('after a rotation both secrets verify, until the previous one expires', async () => {
    receiver.got.length = 0;
    const rotated = await hooks.rotateSecret({ partnerId, webhookId: endpoint.id, previous_secret_expires_in: 3600 });
    assert.notEqual(rotated.secret, endpoint.secret);
    await createUser('dee');
    await eventually(() => assert.equal(receiver.got.length, 1));
    assert.match(header(receiver.got[0], 'Burrow-Signature'), /^v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    assert.ok(verified(receiver.got[0], rotated.secret), 'the new secret verifies');
    assert.ok(verified(receiver.got[0], endpoint.secret), 'the previous secret verifies');
    offsetMs += 3601_000;
    await createUser('eve');
    await eventually(() => assert.equal(receiver.got.length, 2));
    assert.ok(verified(receiver.got[1], rotated.secret));
    assert.ok(!verified(receiver.got[1], endpoint.secret), 'the previous secret has expired');
    endpoint = rotated;
  });

  it('redelivers an event as a new delivery; events of types not subscribed are not delivered', async () => {
    receiver.got.length = 0;
    await t.users.update({ partnerId, user: 'ann', changes: { name: 'Ann B' } });
    const [latest] = await deliveries();
    const again = await hooks.redeliver({ partnerId, webhookId: endpoint.id, deliveryId: latest.id });
    assert.equal(again.redelivery_of, latest.id);
    assert.notEqual(again.id, latest.id);
    await eventually(() => assert.equal(receiver.got.length, 1));
    assert.equal(header(receiver.got[0], 'Burrow-Event-Id'), latest.event_id);
    assert.equal(header(receiver.got[0], 'Burrow-Delivery-Id'), again.id);
    assert.ok(!receiver.got.some((r) => r.body.includes('user.changed')), 'user.changed is not subscribed');
    await expectError(hooks.redeliver({ partnerId: otherPartner, webhookId: endpoint.id, deliveryId: latest.id }), 404);
  });

  it('retries for the whole window, then fails; after days of failures the endpoint is disabled, and re-enabled by the partner', async () => {
    receiver.got.length = 0;
    receiver.plan.push(...Array(50).fill(503));
    await createUser('fay');
    await eventually(async () => assert.ok((await deliveries())[0].attempts >= 2));
    // a day later the window (24 hours in the test settings) is over
    offsetMs += 25 * 3_600_000;
    worker.poke();
    await eventually(async () => assert.equal((await deliveries())[0].status, 'failed'));
    const [failed] = await deliveries();
    assert.equal(failed.next_attempt_at, null);
    assert.equal(failed.last_error, 'HTTP 503');
    assert.ok(
      (await hooks.get({ partnerId, webhookId: endpoint.id })).enabled,
      'one day of failures is not enough to disable',
    );

    // three days after the streak began, one more failure disables it
    offsetMs += 2 * 86_400_000;
    await createUser('gus');
    await eventually(async () => assert.equal((await hooks.get({ partnerId, webhookId: endpoint.id })).enabled, false));
    const disabled = await hooks.get({ partnerId, webhookId: endpoint.id });
    assert.match(disabled.disabled_reason!, /^deliveries failing since /);
    await eventually(async () => assert.equal((await deliveries())[0].status, 'failed'));
    const before = receiver.got.length;
    await createUser('hal');
    await t.runner.catchUp();
    assert.ok(!(await deliveries()).some((d) => d.status === 'pending'), 'nothing is delivered to a disabled endpoint');
    await expectError(
      hooks.redeliver({ partnerId, webhookId: endpoint.id, deliveryId: (await deliveries())[0].id }),
      409,
    );

    receiver.plan.length = 0;
    const enabled = await hooks.enable({ partnerId, webhookId: endpoint.id });
    assert.deepEqual([enabled.enabled, enabled.disabled_reason, enabled.failing_since], [true, null, null]);
    await createUser('ivy');
    await eventually(() =>
      assert.ok(receiver.got.slice(before).some((r) => r.body.includes('"ivy"') && r.status === 200)),
    );
  });

  it('refuses a bad URL, and more than the endpoints a partner may have', async () => {
    await expectError(hooks.create({ partnerId, url: 'ftp://example.com/', event_types: ['*'] }), 400);
    await expectError(hooks.create({ partnerId, url: 'https://user:pw@example.com/', event_types: ['*'] }), 400);
    for (let i = (await hooks.list({ partnerId: otherPartner })).length; i < MAX_WEBHOOKS_PER_PARTNER; i++) {
      await hooks.create({ partnerId: otherPartner, url: `${receiver.url}?n=${i}`, event_types: ['group.created'] });
    }
    await expectError(hooks.create({ partnerId: otherPartner, url: receiver.url, event_types: ['*'] }), 409);
  });

  it('a scan that fails (read models unreachable) is tried again by itself: a delivery due meanwhile still goes, with no new work to wake the worker', async () => {
    const own = await startTestAccounts({ now: () => Math.floor(nowMs() / 1000) });
    let failing = true;
    let failures = 0;
    // the worker's view of the read models: the delivery queue cannot be read while `failing`
    const docs = new Proxy(own.ctx.docs, {
      get(target, prop) {
        if (prop !== 'collection') return Reflect.get(target, prop, target);
        return (name: string) => {
          const collection = target.collection(name);
          return new Proxy(collection, {
            get(c, p) {
              if (p === 'find' && failing) {
                return async () => {
                  failures++;
                  throw new Error('read models unreachable');
                };
              }
              const value = Reflect.get(c, p, c);
              return typeof value === 'function' ? value.bind(c) : value;
            },
          });
        };
      },
    });
    const s = new HttpDelivery({
      allowHttp: true,
      allowPrivate: true,
      timeoutMs: TEST_WEBHOOKS.timeoutMs,
      resolver: TEST_WEBHOOKS.resolver,
    });
    const w = new DeliveryWorker(
      { ...own.ctx, docs },
      TEST_WEBHOOKS,
      await new MemoryKeyValueStore().bucket('leases-outage', { ttlMs: 10_000 }),
      s,
      { nowMs, idleMs: 50 },
    );
    try {
      const p = (await own.createPartner()).partner_id;
      await new WebhooksHandlers(own.ctx).create({ partnerId: p, url: receiver.url, event_types: ['user.created'] });
      w.start();
      await own.users.create({
        partnerId: p,
        username: 'outage-user',
        name: 'outage-user',
        email: 'outage-user@hooks.example',
      });
      await eventually(() => assert.ok(failures >= 1, 'the worker tried and failed'));
      failing = false;
      await eventually(() =>
        assert.ok(
          receiver.got.some((r) => r.body.includes('outage-user')),
          'delivered once the read models answer again',
        ),
      );
    } finally {
      await w.stop();
      await s.close();
      await own.close();
    }
  });

  it('an attempt to an endpoint that accepts and never answers is given up after the delivery timeout', async () => {
    const hanging = await startHangingReceiver();
    try {
      const p = (await t.createPartner()).partner_id;
      const hook = await hooks.create({ partnerId: p, url: hanging.url('never'), event_types: ['user.created'] });
      await createUser('silent', p);
      await eventually(async () => {
        const [d] = await hooks.deliveries({ partnerId: p, webhookId: hook.id });
        assert.equal(d?.last_error, `no response within ${TEST_WEBHOOKS.timeoutMs} ms`);
      });
      await hooks.delete({ partnerId: p, webhookId: hook.id });
    } finally {
      hanging.close();
    }
  });

  it('two replicas deliver each event once', async () => {
    const replica = await startTestAccounts({ dir: t.dir, now: () => Math.floor(nowMs() / 1000) });
    const second = await startWorker(replica);
    const own = await startReceiver();
    try {
      const hook = await hooks.create({ partnerId, url: own.url, event_types: ['user.created'] });
      await replica.runner.catchUp();
      const names = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'];
      for (const name of names) await createUser(name);
      await eventually(async () =>
        assert.equal(
          (await hooks.deliveries({ partnerId, webhookId: hook.id })).filter((d) => d.status === 'succeeded').length,
          names.length,
        ),
      );
      await Promise.all([worker.idle(), second.worker.idle()]);
      const delivered = own.got.map((r) => (JSON.parse(r.body) as PublicEvent<'user.created'>).data.username).sort();
      assert.deepEqual(delivered, names, 'each event reached the receiver exactly once');
    } finally {
      own.server.close();
      own.server.closeAllConnections();
      await second.worker.stop();
      await second.sender.close();
      await replica.close({ keepFiles: true });
    }
  });
});

describe("webhooks: no requests into the operator's network", () => {
  let t: TestAccounts;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let worker: DeliveryWorker;
  let sender: HttpDelivery;
  // DNS rebinding: the name is public when registered, loopback when connected to
  let lookups = 0;
  const settings: WebhookSettings = {
    ...TEST_WEBHOOKS,
    allowPrivate: false,
    resolver: async () => [{ address: lookups++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }],
  };

  before(async () => {
    t = await startTestAccounts({ webhooks: settings });
    receiver = await startReceiver();
    sender = new HttpDelivery({ allowHttp: true, allowPrivate: false, timeoutMs: 2000, resolver: settings.resolver });
    worker = new DeliveryWorker(
      t.ctx,
      settings,
      await new MemoryKeyValueStore().bucket('leases', { ttlMs: 10_000 }),
      sender,
      { idleMs: 50 },
    );
    worker.start();
  });
  after(async () => {
    receiver.server.close();
    receiver.server.closeAllConnections();
    await worker.stop();
    await sender.close();
    await t.close();
  });

  it('refuses a loopback or private URL at registration', async () => {
    const hooks = new WebhooksHandlers(t.ctx);
    const partnerId = (await t.createPartner()).partner_id;
    for (const url of [
      receiver.url,
      'http://[::1]/hook',
      'http://10.0.0.8/hook',
      'http://169.254.169.254/latest/meta-data',
    ]) {
      const error = await expectError(hooks.create({ partnerId, url, event_types: ['*'] }), 400);
      assert.deepEqual(error.body.fields, ['url']);
    }
  });

  it('checks the address it connects to: a name rebound to 127.0.0.1 after registration is refused, and the receiver never hears of it', async () => {
    const hooks = new WebhooksHandlers(t.ctx);
    const partnerId = (await t.createPartner()).partner_id;
    const hook = await hooks.create({
      partnerId,
      url: `http://rebind.example:${receiver.port}/hook`,
      event_types: ['*'],
    });
    await t.users.create({ partnerId, username: 'rebound', name: 'R', email: 'rebound@hooks.example' });
    await eventually(async () =>
      assert.ok((await hooks.deliveries({ partnerId, webhookId: hook.id }))[0]?.attempts >= 1),
    );
    const [d] = await hooks.deliveries({ partnerId, webhookId: hook.id });
    assert.match(d.last_error!, /^refused: rebind\.example resolves to 127\.0\.0\.1 is a loopback address/);
    assert.equal(receiver.got.length, 0);
  });
});

describe("webhooks: one partner's slow receivers do not delay another partner's deliveries (issue 33, item 5)", () => {
  // the attempts to receivers that never answer last the whole test: only the slot caps let others through
  const settings: WebhookSettings = {
    ...TEST_WEBHOOKS,
    timeoutMs: 60_000,
    concurrency: 4,
    perPartner: 2,
    perEndpoint: 1,
  };
  let t: TestAccounts;
  let worker: DeliveryWorker;
  let sender: HttpDelivery;
  let hanging: Awaited<ReturnType<typeof startHangingReceiver>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  before(async () => {
    t = await startTestAccounts({ webhooks: settings });
    hanging = await startHangingReceiver();
    receiver = await startReceiver();
    sender = new HttpDelivery({ allowHttp: true, allowPrivate: true, timeoutMs: settings.timeoutMs });
    worker = new DeliveryWorker(
      t.ctx,
      settings,
      await new MemoryKeyValueStore().bucket('leases-fair', { ttlMs: leaseTtlMs(settings) }),
      sender,
      { idleMs: 50 },
    );
    worker.start();
  });
  after(async () => {
    // the hung attempts fail at once when their connections go; then the worker can stop
    hanging.close();
    receiver.server.close();
    receiver.server.closeAllConnections();
    await worker.stop();
    await sender.close();
    await t.close();
  });

  it("20 endpoints that accept and never answer hold their partner's slots only: another partner's delivery goes at once", async () => {
    const hooks = new WebhooksHandlers(t.ctx);
    const slow = (await t.createPartner()).partner_id;
    const other = (await t.createPartner()).partner_id;
    for (let i = 0; i < 20; i++)
      await hooks.create({ partnerId: slow, url: hanging.url(`slow-${i}`), event_types: ['user.created'] });
    for (let i = 0; i < 3; i++)
      await t.users.create({ partnerId: slow, username: `pile${i}`, name: 'P', email: `pile${i}@slow.example` });
    // 60 deliveries of the slow partner are due; its 2 slots are taken by receivers that never answer
    await eventually(() => assert.ok(hanging.open() >= settings.perPartner));

    await hooks.create({ partnerId: other, url: receiver.url, event_types: ['user.created'] });
    await t.users.create({ partnerId: other, username: 'prompt', name: 'Prompt', email: 'prompt@other.example' });
    await eventually(
      () =>
        assert.ok(
          receiver.got.some((r) => r.body.includes('"prompt"')),
          "the other partner's delivery arrived",
        ),
      20_000,
    );
    assert.equal(hanging.maxOpen(), settings.perPartner, 'the slow partner never held more than its share');
    assert.equal(hanging.maxOpenPerPath(), settings.perEndpoint, 'nor more than one per endpoint');
  });

  it("one endpoint that never answers holds its endpoint's slots only: its partner's other endpoint gets every delivery at once", async () => {
    const hooks = new WebhooksHandlers(t.ctx);
    const mixed = (await t.createPartner()).partner_id;
    const openBefore = hanging.open();
    await hooks.create({ partnerId: mixed, url: hanging.url('mixed-slow'), event_types: ['user.created'] });
    const healthy = await hooks.create({
      partnerId: mixed,
      url: `${receiver.url}?healthy`,
      event_types: ['user.created'],
    });
    for (let i = 0; i < 4; i++)
      await t.users.create({ partnerId: mixed, username: `mixed${i}`, name: 'M', email: `mixed${i}@mixed.example` });
    await eventually(async () => {
      const done = (await hooks.deliveries({ partnerId: mixed, webhookId: healthy.id })).filter(
        (d) => d.status === 'succeeded',
      );
      assert.equal(done.length, 4);
    }, 20_000);
    assert.equal(
      hanging.open(),
      openBefore + settings.perEndpoint,
      'the slow endpoint holds one slot, its 3 other deliveries wait',
    );
    assert.equal(hanging.maxOpenPerPath(), settings.perEndpoint);
  });
});
