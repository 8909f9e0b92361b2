/**
 * Process-level behaviour: restarts keep data, the admin CLI, configuration errors stop an app
 * with a message naming the variable, and a service that is down becomes a 503, never a hang.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { partnerApi } from './harness/client.js';
import { startMultiProcess } from './harness/multi-process.js';
import { startStandalone, TEST_PARTNER, testEnv } from './harness/standalone.js';

const appsDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function run(script: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [join(appsDir, script), ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      res({ code, stdout, stderr });
    });
  });
}

describe('standalone restarts', () => {
  it('keeps partners, plans, groups, users and changed passwords across a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-restart-'));
    try {
      let target = await startStandalone({}, dir);
      let api = partnerApi(target);
      const plansBefore = (await api.get('/plans').expect(200)).body;
      const group = (await api.post('/groups/', { name: 'Survivors', plan_id: 1 }).expect(201)).body;
      await api.post('/users/', { name: 'Kept', email: 'kept@example.com', username: 'kept', password: 'kept-password-1', group_id: group.group_id }).expect(201);
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

describe('admin CLI', () => {
  it('creates a partner and a plan on the data directory; a server started on it serves them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-admin-'));
    try {
      const env = testEnv(dir);
      const created = await run('admin/dist/main.js', ['create-partner', '--username', 'acme', '--password', 'acme-password-1', '--company', 'Acme Ltd', '--bytes-available', '5000000000000', '--features', 'ldap,email_as_username'], env);
      assert.equal(created.code, 0, created.stderr);
      assert.equal(JSON.parse(created.stdout).company_name, 'Acme Ltd');
      const plan = await run('admin/dist/main.js', ['add-plan', '--name', '20 TB', '--storage-bytes', '20000000000000'], env);
      assert.equal(plan.code, 0, plan.stderr);
      const duplicate = await run('admin/dist/main.js', ['create-partner', '--username', 'acme', '--password', 'acme-password-1', '--company', 'X'], env);
      assert.equal(duplicate.code, 1);
      assert.match(duplicate.stderr, /409/);
      const bad = await run('admin/dist/main.js', ['add-plan', '--name', 'x', '--storage-bytes', 'lots'], env);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /--storage-bytes/);

      const target = await startStandalone({}, dir);
      try {
        const acme = partnerApi(target, target.url, { username: 'acme', password: 'acme-password-1' });
        assert.deepEqual((await acme.get('/partner/features').expect(200)).body.email_as_username, true);
        assert.equal((await acme.get('/partner/quota').expect(200)).body.bytes_available, 5000000000000);
        assert.ok((await acme.get('/plans').expect(200)).body.some((p: { name: string }) => p.name === '20 TB'));
      } finally {
        await target.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('configuration errors', () => {
  it('a malformed variable stops standalone with a message naming it', async () => {
    const result = await run('standalone/dist/main.js', [], { PORT: 'eighty', MONGODB_URL: 'nope', BURROW_DATA_DIR: join(tmpdir(), 'never-created') });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /PORT/);
    assert.match(result.stderr, /MONGODB_URL/);
  });

  it('a service started on its own without NATS_URL says so', async () => {
    const result = await run('accounts/dist/main.js', [], { BURROW_DATA_DIR: join(tmpdir(), 'never-created') });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /NATS_URL is required/);
  });
});

const natsUrl = process.env.NATS_URL;
describe('multi-process: a service that is down', { skip: natsUrl ? false : 'NATS_URL not set: multi-process suites skipped' }, () => {
  it('yields 503 with a JSON reason after a bounded timeout, and /readyz reports it', async () => {
    const target = await startMultiProcess(natsUrl!, { BURROW_RPC_TIMEOUT_MS: '800' });
    try {
      const api = partnerApi(target);
      await api.get('/ping').expect(200);
      await target.stopApp('billing');
      const ready = await api.raw.get('/readyz');
      assert.equal(ready.status, 503);
      assert.notEqual(ready.body.checks.billing, 'ok');
      assert.equal(ready.body.checks.accounts, 'ok');

      await target.stopApp('accounts');
      const started = Date.now();
      const res = await api.get('/plans');
      assert.equal(res.status, 503);
      assert.match(res.body.reason, /accounts/);
      assert.ok(Date.now() - started < 5000, 'answered within the bounded timeout');
    } finally {
      await target.close();
    }
  });
});
