/**
 * Process-level behaviour: restarts keep data, configuration errors stop an app with a message
 * naming the variable, and a service that is down becomes a 503, never a hang. The admin CLI has
 * its own file (admin-cli.test.ts).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { partnerApi } from './harness/client.js';
import { startMultiProcess } from './harness/multi-process.js';
import { runApp } from './harness/run-app.js';
import { startStandalone, TEST_PARTNER, type TestTarget } from './harness/standalone.js';
import { b32 } from './harness/storage-client.js';
import supertest from 'supertest';

describe('standalone restarts', () => {
  it('keeps partners, plans, groups, users and changed passwords across a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-restart-'));
    try {
      let target = await startStandalone({}, dir);
      let api = partnerApi(target);
      const plansBefore = (await api.get('/plans').expect(200)).body;
      const group = (await api.post('/groups/', { name: 'Survivors', plan_id: 1 }).expect(201)).body;
      await api
        .post('/users/', {
          name: 'Kept',
          email: 'kept@example.com',
          username: 'kept',
          password: 'kept-password-1',
          group_id: group.group_id,
        })
        .expect(201);
      await api.post('/partner/password', 'a-new-password-2').expect(200);
      await target.close();

      target = await startStandalone({}, dir);
      api = partnerApi(target, target.url, { username: TEST_PARTNER.username, password: 'a-new-password-2' });
      assert.deepEqual((await api.get('/plans').expect(200)).body, plansBefore, 'plans neither lost nor seeded twice');
      assert.equal((await api.get(`/groups/${group.group_id}`).expect(200)).body.name, 'Survivors');
      assert.equal((await api.get('/users/kept').expect(200)).body.group_id, group.group_id);
      // the bootstrap did not run again with the environment's (old) password
      assert.equal((await partnerApi(target).get('/ping')).status, 401);
      await target.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('standalone restarts: sessions', () => {
  it('a logged-out cookie stays dead after a restart; a live one still works', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-restart-'));
    let target: TestTarget | undefined;
    try {
      target = await startStandalone({}, dir);
      await partnerApi(target)
        .post('/users/', { name: 'Sess', email: 'sess@example.com', username: 'sess', password: 'sess-password-1' })
        .expect(201);
      const root = `/storage/${b32('sess')}`;
      const login = async () => {
        const res = await supertest(target!.url)
          .post(`${root}/login`)
          .type('form')
          .send({ username: 'sess', password: 'sess-password-1' })
          .expect(200);
        return (res.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
      };
      const ended = await login();
      const live = await login();
      await supertest(target.url).get(`${root}/logout`).set('Cookie', ended).expect(200);
      await supertest(target.url).get(`${root}/`).set('Cookie', ended).expect(401);
      await target.close();
      target = undefined;

      target = await startStandalone({}, dir);
      await supertest(target.url).get(`${root}/`).set('Cookie', ended).expect(401);
      await supertest(target.url).get(`${root}/`).set('Cookie', live).expect(200);
    } finally {
      await target?.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('configuration errors', () => {
  it('a malformed variable stops standalone with a message naming it', async () => {
    const result = await runApp('standalone/dist/main.js', [], {
      PORT: 'eighty',
      MONGODB_URL: 'nope',
      BURROW_DATA_DIR: join(tmpdir(), 'never-created'),
    });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /PORT/);
    assert.match(result.stderr, /MONGODB_URL/);
  });

  it('a service started on its own without NATS_URL says so', async () => {
    const result = await runApp('accounts/dist/main.js', [], { BURROW_DATA_DIR: join(tmpdir(), 'never-created') });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /NATS_URL is required/);
  });
});

const natsUrl = process.env.NATS_URL;
describe(
  'multi-process: a service that is down',
  { skip: natsUrl ? false : 'NATS_URL not set: multi-process suites skipped' },
  () => {
    it('yields 503 with a JSON reason after a bounded timeout; billing down degrades its routes and /readyz lists it without failing (issue 39)', async () => {
      const target = await startMultiProcess(
        natsUrl!,
        { BURROW_RPC_TIMEOUT_MS: '800' },
        { postgresEventStore: process.env.POSTGRES_URL },
      );
      try {
        const api = partnerApi(target);
        await api.get('/ping').expect(200);
        await target.stopApp('billing');
        // billing serves only the billing routes: the gateways stay in rotation, those routes answer 503
        for (const url of target.urls) {
          const ready = await partnerApi(target, url).raw.get('/readyz');
          assert.equal(ready.status, 200, `a gateway stays ready with billing down: ${ready.text}`);
          assert.notEqual(ready.body.checks.billing, 'ok');
          assert.deepEqual(ready.body.degraded, ['billing']);
          assert.equal(ready.body.checks.accounts, 'ok');
        }
        const billing = await api.get('/partner/billing');
        assert.equal(billing.status, 503, billing.text);
        assert.match(billing.body.reason, /billing/);
        assert.ok(Number(billing.headers['retry-after']) > 0, 'a 503 says when to retry');
        await api
          .post('/users/', {
            name: 'While',
            email: 'while@example.com',
            username: 'while',
            password: 'while-password-1',
            plan_id: 1,
          })
          .expect(201);

        await target.stopApp('accounts');
        const started = Date.now();
        const res = await api.get('/plans');
        assert.equal(res.status, 503);
        assert.match(res.body.reason, /accounts/);
        assert.ok(Date.now() - started < 5000, 'answered within the bounded timeout');
        // accounts is every login: without it the gateway cannot serve its main traffic
        assert.equal((await api.raw.get('/readyz')).status, 503);
      } finally {
        await target.close();
      }
    });
  },
);
