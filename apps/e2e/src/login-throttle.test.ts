/**
 * Failed-login throttling as clients see it, in the mode where the owner lock-out was found:
 * separate processes on NATS, two gateways and two accounts replicas, so that every counter has to
 * be shared (the NATS key-value store) for the limits to hold. The same scenarios run standalone
 * (one process, in-memory store).
 *
 * Client addresses are simulated with X-Forwarded-For, which the gateways believe from loopback
 * (BURROW_TRUST_PROXY=loopback), as they would from the edge proxy.
 */
import { childEnv } from './harness/run-app.js';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import supertest from 'supertest';
import { createPartner, partnerApi, uniqueName } from './harness/client.js';
import { type MultiProcessTarget, startMultiProcess } from './harness/multi-process.js';
import { natsServerBinary, startPrivateNats } from './harness/private-nats.js';
import { startStandalone, type TestTarget, testEnv } from './harness/standalone.js';
import { b32 } from './harness/storage-client.js';
import { createUser } from './scenarios/accounts-fixtures.js';

const appsDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs an app's entry point to its end (the admin CLI, a service that must fail to start). */
function run(
  app: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<{ code: number | null; output: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [join(appsDir, app, 'dist', 'main.js'), ...args], {
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      res({ code, output });
    });
  });
}

/** Locks `credentials`' account with failures from one address; returns that address. */
async function lockAccount(url: string, credentials: Credentials): Promise<string> {
  const attacker = newAddress();
  for (let i = 0; i < ACCOUNT_THRESHOLD; i++)
    await ping(url, { ...credentials, password: 'not-the-password' }, attacker);
  assert.equal((await ping(url, credentials, newAddress())).status, 429);
  return attacker;
}

/** Policy numbers the scenarios rely on (docs/operations.md, "Failed-login throttling"). */
const ACCOUNT_THRESHOLD = 20;
const ADDRESS_THRESHOLD = 100;

let addressCounter = 0;
/** A fresh documentation-range address for each use, so scenarios never share an address budget. */
const newAddress = () => {
  addressCounter += 1;
  return `203.0.${113 + Math.floor(addressCounter / 250)}.${addressCounter % 250}`;
};

interface Credentials {
  username: string;
  password: string;
}

const ping = (url: string, credentials: Credentials, address: string) =>
  supertest(url).get('/ping').auth(credentials.username, credentials.password).set('X-Forwarded-For', address);

function scenarios(target: () => TestTarget) {
  /** The gateway for the i-th request: alternate when there are several. */
  const gateway = (i: number) => target().urls[i % target().urls.length];

  it('failures from one address lock that address out; the owner, from an address that succeeded before, still gets 200', async () => {
    const { credentials } = await createPartner(target());
    const home = newAddress();
    const attacker = newAddress();
    await ping(gateway(0), credentials, home).expect(200);
    const wrong = { ...credentials, password: 'not-the-password' };
    for (let i = 0; i < ACCOUNT_THRESHOLD; i++)
      assert.equal((await ping(gateway(i), wrong, attacker)).status, 401, `attempt ${i + 1}`);
    const refused = await ping(gateway(0), wrong, attacker);
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    // guessing cannot continue by luck: the right password from the attacker's address waits too
    assert.equal((await ping(gateway(1), credentials, attacker)).status, 429);
    // the owner is not locked out, through either gateway
    for (let i = 0; i < 4; i++) await ping(gateway(i), credentials, home).expect(200);
  });

  it('the per-account budget is shared: failures spread over gateways and addresses lock at the same total as through one', async () => {
    const { credentials } = await createPartner(target());
    const wrong = { ...credentials, password: 'not-the-password' };
    for (let i = 0; i < ACCOUNT_THRESHOLD; i++) {
      assert.equal((await ping(gateway(i), wrong, newAddress())).status, 401, `attempt ${i + 1}`);
    }
    for (let i = 0; i < 2; i++) {
      const refused = await ping(gateway(i), wrong, newAddress());
      assert.equal(refused.status, 429, `gateway ${i}`);
      assert.match(refused.body.reason, /account/);
    }
  });

  it('the per-address budget is shared: failures over many usernames through both gateways stop at the same total', async () => {
    const address = newAddress();
    const prefix = uniqueName('nobody');
    for (let i = 0; i < ADDRESS_THRESHOLD; i++) {
      const res = await ping(gateway(i), { username: `${prefix}-${i}`, password: 'whatever-1' }, address);
      assert.equal(res.status, 401, `attempt ${i + 1}`);
    }
    for (let i = 0; i < 2; i++) {
      const refused = await ping(gateway(i), { username: `${prefix}-x${i}`, password: 'whatever-1' }, address);
      assert.equal(refused.status, 429, `gateway ${i}`);
      assert.match(refused.body.reason, /address/);
      assert.ok(Number(refused.headers['retry-after']) >= 1);
    }
    // another address is not affected
    assert.equal(
      (await ping(gateway(0), { username: `${prefix}-y`, password: 'whatever-1' }, newAddress())).status,
      401,
    );
  });

  it('once the account is locked, a brand-new address gets 429 with Retry-After, even with the right password', async () => {
    const { credentials } = await createPartner(target());
    const home = newAddress();
    await ping(gateway(1), credentials, home).expect(200);
    const wrong = { ...credentials, password: 'not-the-password' };
    const attacker = newAddress();
    for (let i = 0; i < ACCOUNT_THRESHOLD; i++) assert.equal((await ping(gateway(i), wrong, attacker)).status, 401);
    for (const password of [credentials.password, 'not-the-password']) {
      const res = await ping(gateway(0), { ...credentials, password }, newAddress());
      assert.equal(res.status, 429);
      const retryAfter = Number(res.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${res.headers['retry-after']}`);
      assert.equal(res.body.retry_after, retryAfter);
    }
    // an unknown username is throttled exactly alike: the 429 says nothing about existence
    const ghost = { username: uniqueName('ghost'), password: 'whatever-1' };
    for (let i = 0; i < ACCOUNT_THRESHOLD; i++) assert.equal((await ping(gateway(i), ghost, newAddress())).status, 401);
    assert.equal((await ping(gateway(0), ghost, newAddress())).status, 429);
    await ping(gateway(0), credentials, home).expect(200);
  });

  // Storage users (interface B) share the policy. Here rather than in the browse scenarios: those
  // all come from 127.0.0.1, whose per-address budget this many failures would eat into.
  it('storage logins: wrong passwords on POST /storage/<b32>/login end in 429 with Retry-After on every gateway; Basic is held too; the owner at home is not', async () => {
    const username = uniqueName('su');
    const password = 'user-password-1';
    await createUser(partnerApi(target()), { username, password });
    const root = `/storage/${b32(username)}`;
    const login = (i: number, pass: string, address: string) =>
      supertest(gateway(i)).post(`${root}/login`).type('form').set('X-Forwarded-For', address).send({ password: pass });
    const home = newAddress();
    await login(1, password, home).expect(200);
    const attacker = newAddress();
    for (let i = 0; i < ACCOUNT_THRESHOLD; i++) {
      const res = await login(i, 'not-the-password', attacker);
      assert.ok([401, 403].includes(res.status), `attempt ${i + 1}: ${res.status}`);
      assert.ok(!res.headers['set-cookie']);
    }
    for (let i = 0; i < 2; i++) {
      for (const pass of ['not-the-password', password]) {
        const refused = await login(i, pass, newAddress());
        assert.equal(refused.status, 429, `gateway ${i}`);
        const retryAfter = Number(refused.headers['retry-after']);
        assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${refused.headers['retry-after']}`);
        assert.equal(refused.body.retry_after, retryAfter);
        assert.match(refused.body.reason, /account/);
        assert.ok(!refused.headers['set-cookie']);
      }
    }
    // Basic on a storage resource checks the same counters
    const basic = await supertest(gateway(0))
      .get(`${root}/`)
      .auth(username, password)
      .set('X-Forwarded-For', newAddress());
    assert.equal(basic.status, 429);
    assert.ok(Number(basic.headers['retry-after']) >= 1);
    // the owner, from the address that logged in before, still gets in
    await login(0, password, home).expect(200);
  });

  it('a user deleted while locked and created again under that username (and email) starts clean', async () => {
    const username = uniqueName('re');
    const email = `${username}@example.com`;
    const password = 'user-password-1';
    const api = partnerApi(target());
    await createUser(api, { username, email, password });
    const login = (name: string, pass: string, address: string) =>
      supertest(gateway(0))
        .post(`/storage/${b32(name)}/login`)
        .type('form')
        .set('X-Forwarded-For', address)
        .send({ password: pass });
    const attacker = newAddress();
    for (let i = 0; i < ACCOUNT_THRESHOLD; i++) {
      await login(username, 'not-the-password', attacker);
      await login(email, 'not-the-password', attacker);
    }
    assert.equal((await login(username, password, newAddress())).status, 429);
    await api.delete(`/users/${username}`).expect(200);
    await createUser(api, { username, email, password: 'another-password-2' });
    const fresh = await login(username, 'another-password-2', newAddress());
    assert.equal(fresh.status, 200, `the new account inherited the old one's lock: ${fresh.status} ${fresh.text}`);
    assert.equal((await login(email, 'another-password-2', newAddress())).status, 200);
  });
}

const natsUrl = process.env.NATS_URL;
describe(
  'login throttling, multi-process (NATS, two gateways, two accounts replicas)',
  { skip: natsUrl ? false : 'NATS_URL not set: multi-process suites skipped' },
  () => {
    let target: MultiProcessTarget | undefined;
    before(async () => {
      target = await startMultiProcess(natsUrl!, { BURROW_TRUST_PROXY: 'loopback' }, { accountsReplicas: 2 });
    });
    after(async () => {
      await target?.close();
    });
    scenarios(() => target!);

    it('the operator lifts a lock with the admin CLI (unlock-login), for every replica', async () => {
      const { credentials } = await createPartner(target!);
      await lockAccount(target!.urls[0], credentials);
      const result = await run('admin', ['unlock-login', '--username', credentials.username], {
        NATS_URL: target!.natsUrl,
        BURROW_DATA_DIR: target!.dataDir,
        LOG_LEVEL: 'silent',
      });
      assert.equal(result.code, 0, result.output);
      for (const url of target!.urls) await ping(url, credentials, newAddress()).expect(200);
      const unknown = await run('admin', ['unlock-login', '--username', uniqueName('nobody')], {
        NATS_URL: target!.natsUrl,
        BURROW_DATA_DIR: target!.dataDir,
        LOG_LEVEL: 'silent',
      });
      assert.equal(unknown.code, 1);
      assert.match(unknown.output, /404/);
    });
  },
);

describe(
  'login throttling needs JetStream in multi-process mode',
  { skip: natsServerBinary() ? false : 'no nats-server binary' },
  () => {
    it('accounts on a NATS server without JetStream stops at start and says what is missing', async () => {
      const nats = await startPrivateNats(natsServerBinary(), { jetstream: false });
      const dir = await mkdtemp(join(tmpdir(), 'burrow-nojs-'));
      try {
        const result = await run('accounts', [], testEnv(dir, { NATS_URL: nats.url, LOG_LEVEL: 'fatal' }), 30_000);
        assert.equal(result.code, 1, result.output);
        assert.match(result.output, /failed to start/);
        assert.match(result.output, /JetStream/);
      } finally {
        await nats.kill();
        await rm(dir, { recursive: true, force: true });
      }
    });
  },
);

describe('login throttling, standalone', () => {
  let target: TestTarget | undefined;
  before(async () => {
    target = await startStandalone({ BURROW_TRUST_PROXY: 'loopback' });
  });
  after(async () => {
    await target?.close();
  });
  scenarios(() => target!);

  it('the admin CLI cannot reach standalone counters and says to restart instead', async () => {
    const result = await run('admin', ['unlock-login', '--username', 'partner'], {
      BURROW_DATA_DIR: target!.dataDir,
      LOG_LEVEL: 'silent',
    });
    // 2: a configuration error, refused before anything is opened
    assert.equal(result.code, 2, result.output);
    assert.match(result.output, /restart/);
  });
});
