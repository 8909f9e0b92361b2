/**
 * The pure parts of webhooks: secrets derived from a nonce and a service key (never stored), the
 * signature a receiver checks (each of two secrets verifies), the retry schedule, and which target
 * addresses are refused (no SSRF into the operator's network).
 */
import type { DomainError } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import { describe, it } from 'node:test';
import {
  addressRefusal,
  allowedAddresses,
  guardedLookup,
  literalHostRefusal,
  type Resolver,
} from './address-policy.js';
import { nextAttemptAt, retryDelay } from './backoff.js';
import { DeliverySlots, type DueDelivery } from './delivery-slots.js';
import { endpointDecider } from './endpoint.js';
import { newSecretRef, signatureHeader, verifySignature, webhookSecret } from './signing.js';
import { checkWebhookUrl } from './webhook-url.js';

const KEY = 'k'.repeat(40);

describe('webhook secrets and signatures', () => {
  it('a secret is derived from its reference and the service key; another key or nonce gives another', () => {
    const ref = newSecretRef(KEY);
    const secret = webhookSecret(KEY, 'endpoint-1', ref);
    assert.match(secret!, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.equal(webhookSecret(KEY, 'endpoint-1', ref), secret, 'every replica derives the same');
    assert.notEqual(webhookSecret(KEY, 'endpoint-2', ref), secret);
    assert.notEqual(webhookSecret(KEY, 'endpoint-1', newSecretRef(KEY)), secret);
    assert.ok(!JSON.stringify(ref).includes(secret!.slice(6, 20)), 'the reference does not hold the secret');
  });

  it('a rotated service key still derives old secrets while it is listed, and none once dropped', () => {
    const ref = newSecretRef(KEY);
    const secret = webhookSecret(KEY, 'e', ref);
    const rotated = `${'n'.repeat(40)},${KEY}`;
    assert.equal(webhookSecret(rotated, 'e', ref), secret);
    assert.equal(webhookSecret('n'.repeat(40), 'e', ref), null);
  });

  it('each of two secrets verifies a delivery signed with both; a third, a changed body or timestamp does not', () => {
    const [a, b, c] = ['whsec_a', 'whsec_b', 'whsec_c'];
    const body = '{"id":"evt_1"}';
    const header = signatureHeader([a, b], 1700000000, body);
    assert.match(header, /^v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    assert.ok(verifySignature(a, 1700000000, body, header));
    assert.ok(verifySignature(b, 1700000000, body, header));
    assert.ok(!verifySignature(c, 1700000000, body, header));
    assert.ok(!verifySignature(a, 1700000001, body, header));
    assert.ok(!verifySignature(a, 1700000000, `${body} `, header));
    assert.ok(!verifySignature(a, 1700000000, body, 'v1=zz'));
  });
});

describe('retry schedule', () => {
  const policy = { baseMs: 30_000, maxDelayMs: 3_600_000, windowMs: 72 * 3_600_000 };
  it('doubles from the base, capped at an hour, with at most 10% jitter', () => {
    assert.deepEqual(
      [1, 2, 3, 4].map((n) => retryDelay(policy, n, () => 0)),
      [30_000, 60_000, 120_000, 240_000],
    );
    assert.equal(
      retryDelay(policy, 30, () => 0),
      3_600_000,
    );
    assert.equal(
      retryDelay(policy, 1, () => 1),
      33_000,
    );
  });

  it('retries for the whole window, at least 24 hours, then stops', () => {
    let now = 0;
    let attempts = 1;
    for (;;) {
      const next = nextAttemptAt(policy, 0, attempts, now, () => 0);
      if (next === null) break;
      now = next;
      attempts += 1;
    }
    assert.ok(now >= 24 * 3_600_000, `retried for ${now / 3_600_000} hours`);
    assert.ok(now <= policy.windowMs);
    assert.ok(attempts < 100, `${attempts} attempts`);
  });
});

describe('webhook target addresses', () => {
  it('refuses loopback, private, link-local (cloud metadata), CGNAT, unique-local and mapped forms; allows public unicast', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '192.168.1.1',
      '172.16.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fc00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '224.0.0.1',
    ]) {
      assert.ok(addressRefusal(a, false), `${a} must be refused`);
    }
    for (const a of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'])
      assert.equal(addressRefusal(a, false), null, a);
    assert.equal(addressRefusal('127.0.0.1', true), null, 'an operator may allow private targets');
  });

  it('checks literal hosts as URLs spell them', () => {
    assert.ok(literalHostRefusal('127.0.0.1', false));
    assert.ok(literalHostRefusal('[::1]', false));
    assert.equal(literalHostRefusal('example.com', false), null);
  });

  // Issue 33, item 10: `https://[::127.0.0.1]/` was accepted (stored as https://[::7f00:1]/).
  const INTERNAL_IPV6_SPELLINGS: [url: string, reason: RegExp][] = [
    ['https://[::127.0.0.1]/', /IPv4-compatible IPv6 address carrying 127\.0\.0\.1/],
    ['https://[::7f00:1]/', /IPv4-compatible IPv6 address carrying 127\.0\.0\.1/],
    ['https://[0:0:0:0:0:0:127.0.0.1]/', /IPv4-compatible IPv6 address carrying 127\.0\.0\.1/],
    ['https://[0000::0000:7F00:0001]/', /IPv4-compatible IPv6 address carrying 127\.0\.0\.1/],
    ['https://[::10.0.0.1]/', /IPv4-compatible IPv6 address carrying 10\.0\.0\.1/],
    ['https://[::169.254.169.254]/', /IPv4-compatible IPv6 address carrying 169\.254\.169\.254/],
    ['https://[::0.0.0.2]/', /IPv4-compatible IPv6 address carrying 0\.0\.0\.2/],
    ['https://[::8.8.8.8]/', /IPv4-compatible IPv6 address carrying 8\.8\.8\.8/],
    ['https://[::ffff:127.0.0.1]/', /IPv4-mapped form of 127\.0\.0\.1, a loopback address/],
    ['https://[::ffff:7f00:1]/', /IPv4-mapped form of 127\.0\.0\.1, a loopback address/],
    ['https://[::ffff:a9fe:a9fe]/', /IPv4-mapped form of 169\.254\.169\.254, a linkLocal address/],
    ['https://[::ffff:0:127.0.0.1]/', /IPv4-translated \(RFC 6145\) address carrying 127\.0\.0\.1/],
    ['https://[64:ff9b::127.0.0.1]/', /NAT64 \(RFC 6052\) address carrying 127\.0\.0\.1/],
    ['https://[64:ff9b::a00:1]/', /NAT64 \(RFC 6052\) address carrying 10\.0\.0\.1/],
    ['https://[64:ff9b:1::a00:1]/', /NAT64 \(RFC 6052\) address/],
    ['https://[2002:7f00:1::]/', /6to4 address carrying 127\.0\.0\.1/],
    ['https://[2002:c0a8:101::1]/', /6to4 address carrying 192\.168\.1\.1/],
    // Teredo: server 65.54.227.120, client 127.0.0.1 (inverted in the last 32 bits)
    ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', /Teredo address carrying 127\.0\.0\.1/],
    ['https://[::]/', /unspecified/],
    ['https://[::1]/', /loopback/],
    ['https://[fe80::1]/', /linkLocal/],
    ['https://0x7f.1/', /127\.0\.0\.1 is a loopback address/],
    ['https://2130706433/', /127\.0\.0\.1 is a loopback address/],
  ];
  const noDns: Resolver = () => Promise.reject(new Error('a literal address is never looked up'));

  it('refuses every IPv6 form that carries an internal IPv4 address, as a URL spells it (registration)', async () => {
    for (const [url, reason] of INTERNAL_IPV6_SPELLINGS) {
      const error = await checkWebhookUrl(url, { allowHttp: false, allowPrivate: false }, noDns).then(
        () => null,
        (e: DomainError) => e,
      );
      assert.ok(error, `${url} must be refused`);
      assert.equal(error.status, 400, url);
      assert.deepEqual(error.body.fields, ['url'], url);
      assert.match(error.message, reason, url);
      // and again before a delivery's request (a URL stored by an older version)
      assert.match(literalHostRefusal(new URL(url).hostname, false) ?? '', reason, `delivery of ${url}`);
    }
    assert.equal(
      await checkWebhookUrl(
        'https://[2606:2800:220:1:248:1893:25c8:1946]/',
        { allowHttp: false, allowPrivate: false },
        noDns,
      ),
      'https://[2606:2800:220:1:248:1893:25c8:1946]/',
    );
    assert.equal(
      await checkWebhookUrl('https://[::ffff:93.184.216.34]/', { allowHttp: false, allowPrivate: false }, noDns),
      'https://[::ffff:5db8:d822]/',
    );
  });

  it('refuses the same forms when a name resolves to them (at registration and at every connection: DNS rebinding)', async () => {
    for (const [url, reason] of INTERNAL_IPV6_SPELLINGS) {
      // what a resolver may answer: the address as the URL standard writes it, and as spelled here
      const written = url.includes('[') ? url.slice(url.indexOf('[') + 1, url.indexOf(']')) : null;
      const spellings = new Set([new URL(url).hostname.replace(/^\[|\]$/g, ''), ...(written ? [written] : [])]);
      for (const address of spellings) {
        const resolve: Resolver = async () => [{ address, family: isIP(address) }];
        await assert.rejects(
          allowedAddresses('rebound.example', false, resolve),
          (e: Error) => reason.test(e.message),
          `${address} (from ${url})`,
        );
        await assert.rejects(
          checkWebhookUrl('https://rebound.example/', { allowHttp: false, allowPrivate: false }, resolve),
          (e: DomainError) => e.status === 400,
          `${address} at registration`,
        );
        const lookedUp = await new Promise<NodeJS.ErrnoException | null>((done) =>
          guardedLookup(false, resolve)('rebound.example', { all: true }, (e) => done(e)),
        );
        assert.match(lookedUp?.message ?? '', reason, `${address} at connect time`);
      }
    }
  });

  it('refuses a name when any of its addresses is refused', async () => {
    const resolve = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.1.1.1', family: 4 },
    ];
    await assert.rejects(allowedAddresses('mixed.example', false, resolve), /10\.1\.1\.1 is a private address/);
    assert.equal((await allowedAddresses('mixed.example', true, resolve)).length, 2);
  });
});

describe('delivery slots (fair per partner and per endpoint)', () => {
  const due = (partnerId: string, endpointId: string, n: number, from = 0): DueDelivery[] =>
    Array.from({ length: n }, (_, i) => ({ id: `${endpointId}.${from + i}`, partnerId, endpointId, due: from + i }));
  const byDue = (list: DueDelivery[]) => [...list].sort((a, b) => a.due - b.due);

  it('a partner gets at most its share, an endpoint at most its own, whatever is due first', () => {
    const slots = new DeliverySlots({ total: 6, perPartner: 3, perEndpoint: 1 });
    // the slow partner's 100 deliveries are all due before the other's one
    const pile = Array.from({ length: 20 }, (_, e) => due('slow', `slow-${e}`, 5, e * 5)).flat();
    const taken = slots.take(byDue([...pile, ...due('other', 'other-1', 1, 1000)]));
    assert.deepEqual(taken.map((d) => d.partnerId).sort(), ['other', 'slow', 'slow', 'slow']);
    assert.equal(new Set(taken.map((d) => d.endpointId)).size, taken.length, 'one per endpoint');
    assert.equal(slots.free, 2);
    const full = slots.full();
    assert.deepEqual(full.partners, ['slow']);
    assert.deepEqual(full.endpoints.sort(), [...taken.map((d) => d.endpointId)].sort());
    // nothing more of the slow partner until one of its attempts ends
    assert.deepEqual(slots.take(pile.filter((d) => !taken.includes(d))), []);
    slots.release(taken.find((d) => d.partnerId === 'slow')!);
    assert.equal(slots.take(pile.filter((d) => !taken.includes(d))).length, 1);
  });

  it('scarce slots go round-robin: to the partner with the fewest in flight, then the one served least recently', () => {
    const slots = new DeliverySlots({ total: 2, perPartner: 2, perEndpoint: 2 });
    const a = due('a', 'a-1', 10, 0);
    const b = due('b', 'b-1', 3, 100);
    const c = due('c', 'c-1', 3, 200);
    const first = slots.take(byDue([...a, ...b, ...c]));
    assert.deepEqual(
      first.map((d) => d.partnerId),
      ['a', 'b'],
      'a is due first; then b, with none in flight',
    );
    slots.release(first[0]);
    const [next] = slots.take(byDue([...a.slice(1), ...b.slice(1), ...c]));
    assert.equal(next.partnerId, 'c', 'c has waited longest: a and b were served');
    slots.release(first[1]);
    const [then] = slots.take(byDue([...a.slice(1), ...b.slice(1), ...c.slice(1)]));
    assert.equal(then.partnerId, 'a', 'then a again, before b (served after it)');
  });

  it('within a partner, the endpoint with the fewest attempts in flight goes first', () => {
    const slots = new DeliverySlots({ total: 4, perPartner: 3, perEndpoint: 3 });
    const taken = slots.take(byDue([...due('p', 'busy', 10, 0), ...due('p', 'quiet', 2, 50)]));
    assert.deepEqual(
      taken.map((d) => d.endpointId),
      ['busy', 'quiet', 'busy'],
    );
  });
});

describe('webhook endpoint decider', () => {
  const registered = endpointDecider.evolve(endpointDecider.initialState, {
    type: 'WebhookEndpointRegistered',
    data: {
      endpointId: 'e',
      partnerId: 'p',
      url: 'https://x.example/',
      event_types: ['*'],
      description: '',
      secret: { nonce: 'n', keyId: 'k' },
      at: 1,
    },
  });

  it('disabling twice, enabling an enabled endpoint and unchanged fields change nothing', () => {
    const disabled = endpointDecider.decide({ type: 'DisableEndpoint', reason: 'r', by: 'system', at: 2 }, registered);
    assert.equal(disabled.length, 1);
    const state = endpointDecider.evolve(registered, disabled[0]);
    assert.deepEqual(endpointDecider.decide({ type: 'DisableEndpoint', reason: 'r', by: 'system', at: 3 }, state), []);
    assert.deepEqual(endpointDecider.decide({ type: 'EnableEndpoint', at: 3 }, registered), []);
    assert.deepEqual(
      endpointDecider.decide(
        { type: 'ChangeEndpoint', url: 'https://x.example/', event_types: ['*'], at: 3 },
        registered,
      ),
      [],
    );
  });

  it('a deleted endpoint is gone', () => {
    const deleted = endpointDecider.evolve(registered, { type: 'WebhookEndpointDeleted', data: { at: 2 } });
    assert.throws(
      () => endpointDecider.decide({ type: 'EnableEndpoint', at: 3 }, deleted),
      (e: { status?: number }) => e.status === 404,
    );
  });
});
