/**
 * The pure parts of webhooks: secrets derived from a nonce and a service key (never stored), the
 * signature a receiver checks (each of two secrets verifies), the retry schedule, and which target
 * addresses are refused (no SSRF into the operator's network).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressRefusal, allowedAddresses, literalHostRefusal } from './address-policy.js';
import { nextAttemptAt, retryDelay } from './backoff.js';
import { endpointDecider } from './endpoint.js';
import { newSecretRef, signatureHeader, verifySignature, webhookSecret } from './signing.js';

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
    assert.deepEqual([1, 2, 3, 4].map((n) => retryDelay(policy, n, () => 0)), [30_000, 60_000, 120_000, 240_000]);
    assert.equal(retryDelay(policy, 30, () => 0), 3_600_000);
    assert.equal(retryDelay(policy, 1, () => 1), 33_000);
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
    for (const a of ['127.0.0.1', '10.0.0.1', '192.168.1.1', '172.16.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fc00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '224.0.0.1']) {
      assert.ok(addressRefusal(a, false), `${a} must be refused`);
    }
    for (const a of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']) assert.equal(addressRefusal(a, false), null, a);
    assert.equal(addressRefusal('127.0.0.1', true), null, 'an operator may allow private targets');
  });

  it('checks literal hosts as URLs spell them', () => {
    assert.ok(literalHostRefusal('127.0.0.1', false));
    assert.ok(literalHostRefusal('[::1]', false));
    assert.equal(literalHostRefusal('example.com', false), null);
  });

  it('refuses a name when any of its addresses is refused', async () => {
    const resolve = async () => [{ address: '93.184.216.34', family: 4 }, { address: '10.1.1.1', family: 4 }];
    await assert.rejects(allowedAddresses('mixed.example', false, resolve), /10\.1\.1\.1 is a private address/);
    assert.equal((await allowedAddresses('mixed.example', true, resolve)).length, 2);
  });
});

describe('webhook endpoint decider', () => {
  const registered = endpointDecider.evolve(endpointDecider.initialState, {
    type: 'WebhookEndpointRegistered',
    data: { endpointId: 'e', partnerId: 'p', url: 'https://x.example/', event_types: ['*'], description: '', secret: { nonce: 'n', keyId: 'k' }, at: 1 },
  });

  it('disabling twice, enabling an enabled endpoint and unchanged fields change nothing', () => {
    const disabled = endpointDecider.decide({ type: 'DisableEndpoint', reason: 'r', by: 'system', at: 2 }, registered);
    assert.equal(disabled.length, 1);
    const state = endpointDecider.evolve(registered, disabled[0]);
    assert.deepEqual(endpointDecider.decide({ type: 'DisableEndpoint', reason: 'r', by: 'system', at: 3 }, state), []);
    assert.deepEqual(endpointDecider.decide({ type: 'EnableEndpoint', at: 3 }, registered), []);
    assert.deepEqual(endpointDecider.decide({ type: 'ChangeEndpoint', url: 'https://x.example/', event_types: ['*'], at: 3 }, registered), []);
  });

  it('a deleted endpoint is gone', () => {
    const deleted = endpointDecider.evolve(registered, { type: 'WebhookEndpointDeleted', data: { at: 2 } });
    assert.throws(() => endpointDecider.decide({ type: 'EnableEndpoint', at: 3 }, deleted), (e: { status?: number }) => e.status === 404);
  });
});
