/**
 * Webhooks over HTTP, in both modes, against a target whose operator allows http and loopback
 * targets (the receivers run in the test on 127.0.0.1) and retries in milliseconds
 * (WEBHOOK_TEST_ENV): a receiver verifies each delivery's signature with each of two secrets, a
 * receiver answering 500 twice then 200 gets exactly one successful delivery, the delivery log and
 * redelivery, and isolation between partners.
 */
import type { PublicEvent, WebhookDelivery, WebhookWithSecret } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import { createPartner, type PartnerApi } from '../harness/client.js';
import { assertError, createUser, eventually, unique } from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';

/** What the operator sets for these scenarios: http and loopback receivers, fast retries. */
export const WEBHOOK_TEST_ENV = {
  BURROW_WEBHOOK_ALLOW_HTTP: 'true',
  BURROW_WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
  BURROW_WEBHOOK_RETRY_BASE_MS: '50',
};

export interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/** A receiver in the test: answers each POST with the next status of `plan` (then 200). */
export async function startReceiver(): Promise<{ url: string; got: Delivery[]; plan: number[]; close(): void }> {
  const got: Delivery[] = [];
  const plan: number[] = [];
  const server: Server = createServer((req, res) => {
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
  // a receiver never keeps the test process alive
  server.unref();
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, got, plan, close: () => server.close() };
}

/** What a receiver does with its secret: HMAC-SHA256 of `<timestamp>.<body>`, hex, among the v1 values. */
export function verifies(d: Delivery, secret: string): boolean {
  const timestamp = String(d.headers['burrow-timestamp']);
  const expected = createHmac('sha256', secret).update(`${timestamp}.${d.body}`).digest('hex');
  return String(d.headers['burrow-signature'])
    .split(',')
    .some((part) => part.trim() === `v1=${expected}`);
}

const usernameOf = (d: Delivery) => ((JSON.parse(d.body) as PublicEvent).data as { username?: string }).username;

export function webhooksScenarios({ target }: ScenarioContext) {
  let api: PartnerApi;
  let other: PartnerApi;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let hook: WebhookWithSecret;

  before(async () => {
    api = (await createPartner(target())).api;
    other = (await createPartner(target())).api;
    receiver = await startReceiver();
    const res = await api.post('/webhooks/', {
      url: receiver.url,
      event_types: ['user.created', 'user.disabled'],
      description: 'e2e',
    });
    assert.equal(res.status, 201, res.text);
    hook = res.body;
    assert.match(res.headers.location, new RegExp(`/webhooks/${hook.id}$`));
  });
  after(() => receiver?.close());

  const log = async () => (await api.get(`/webhooks/${hook.id}/deliveries/`).expect(200)).body as WebhookDelivery[];

  it('a delivery carries the event, its id and a delivery id, signed; the secret is shown only at creation', async () => {
    assert.match(hook.secret, /^whsec_/);
    const shown = await api.get(`/webhooks/${hook.id}`).expect(200);
    assert.equal(shown.body.secret, undefined);
    assert.ok(!JSON.stringify((await api.get('/webhooks/').expect(200)).body).includes(hook.secret));
    const user = await createUser(api, { username: unique('hooked') });
    await eventually(async () => assert.ok(receiver.got.some((d) => usernameOf(d) === user.username)), 15_000);
    const d = receiver.got.find((x) => usernameOf(x) === user.username)!;
    const event = JSON.parse(d.body) as PublicEvent;
    assert.ok(verifies(d, hook.secret), 'the receiver verifies the signature');
    assert.equal(d.headers['burrow-event-id'], event.id);
    assert.equal(d.headers['burrow-event-type'], 'user.created');
    const feed = (await api.get(`/events/?after=${event.position - 1}&limit=1`).expect(200)).body;
    assert.deepEqual(feed.events[0], event, "the delivered event is the feed's");
    await eventually(async () => {
      const entry = (await log()).find((x) => x.id === d.headers['burrow-delivery-id']);
      assert.deepEqual([entry?.status, entry?.attempts, entry?.event_id], ['succeeded', 1, event.id]);
    });
  });

  it('after a secret rotation the receiver verifies the signature with each of the two secrets', async () => {
    const rotated = (
      await api.post(`/webhooks/${hook.id}?action=rotate_secret`, { previous_secret_expires_in: 3600 }).expect(200)
    ).body as WebhookWithSecret;
    assert.notEqual(rotated.secret, hook.secret);
    const user = await createUser(api, { username: unique('rotated') });
    await eventually(async () => assert.ok(receiver.got.some((d) => usernameOf(d) === user.username)), 15_000);
    const d = receiver.got.find((x) => usernameOf(x) === user.username)!;
    assert.ok(verifies(d, rotated.secret), 'verified with the new secret');
    assert.ok(verifies(d, hook.secret), 'verified with the previous secret');
    assert.ok(!verifies(d, 'whsec_not-the-secret'));
    hook = rotated;
  });

  it('a receiver answering 500 twice then 200 gets exactly one successful delivery after retries', async () => {
    const before = receiver.got.length;
    receiver.plan.push(500, 500);
    const user = await createUser(api, { username: unique('flaky') });
    await eventually(async () => assert.ok(receiver.got.slice(before).some((d) => d.status === 200)), 15_000);
    const attempts = receiver.got.slice(before).filter((d) => usernameOf(d) === user.username);
    assert.deepEqual(
      attempts.map((d) => d.status),
      [500, 500, 200],
    );
    assert.equal(new Set(attempts.map((d) => d.headers['burrow-delivery-id'])).size, 1);
    const entry = await eventually(async () => {
      const found = (await log()).find((x) => x.id === attempts[0].headers['burrow-delivery-id']);
      assert.equal(found?.status, 'succeeded');
      return found;
    });
    assert.deepEqual(
      entry.history.map((h) => h.status_code),
      [500, 500, 200],
    );
    // nothing more arrives for it
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(receiver.got.filter((d) => usernameOf(d) === user.username && d.status === 200).length, 1);
  });

  it('redelivers an event on request, as a new delivery', async () => {
    const [latest] = await log();
    const res = await api.post(`/webhooks/${hook.id}/deliveries/${latest.id}?action=redeliver`);
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.redelivery_of, latest.id);
    await eventually(
      async () =>
        assert.ok(receiver.got.some((d) => d.headers['burrow-delivery-id'] === res.body.id && d.status === 200)),
      15_000,
    );
    const again = receiver.got.find((d) => d.headers['burrow-delivery-id'] === res.body.id)!;
    assert.equal(again.headers['burrow-event-id'], latest.event_id);
    // the receiver has it before the worker has recorded the answer
    await eventually(
      async () =>
        assert.equal(
          (await api.get(`/webhooks/${hook.id}/deliveries/${res.body.id}`).expect(200)).body.status,
          'succeeded',
        ),
      15_000,
    );
  });

  it("isolation: another partner's events never reach the endpoint, and its webhooks are out of the other's reach", async () => {
    const theirs = await createUser(other, { username: unique('other') });
    const ours = await createUser(api, { username: unique('ours') });
    await eventually(async () => assert.ok(receiver.got.some((d) => usernameOf(d) === ours.username)), 15_000);
    assert.ok(!receiver.got.some((d) => usernameOf(d) === theirs.username));
    assertError(await other.get(`/webhooks/${hook.id}`), 404);
    assertError(await other.get(`/webhooks/${hook.id}/deliveries/`), 404);
    assertError(await other.post(`/webhooks/${hook.id}`, { url: 'http://127.0.0.1:1/x' }), 404);
    assertError(await other.delete(`/webhooks/${hook.id}`), 404);
    assert.deepEqual((await other.get('/webhooks/').expect(200)).body, []);
    assert.equal((await api.get(`/webhooks/${hook.id}`).expect(200)).body.url, receiver.url);
  });

  it('disable, enable, change and delete through interface A', async () => {
    assert.equal((await api.post(`/webhooks/${hook.id}?action=disable`).expect(200)).body.enabled, false);
    assert.equal((await api.post(`/webhooks/${hook.id}?action=enable`).expect(200)).body.enabled, true);
    const changed = (await api.post(`/webhooks/${hook.id}`, { event_types: ['*'], description: 'all' }).expect(200))
      .body;
    assert.deepEqual([changed.event_types, changed.description], [['*'], 'all']);
    assertError(await api.post(`/webhooks/${hook.id}`, { event_types: ['no.such.type'] }), 400);
    await api.delete(`/webhooks/${hook.id}`).expect(200);
    assertError(await api.get(`/webhooks/${hook.id}`), 404);
  });
}
