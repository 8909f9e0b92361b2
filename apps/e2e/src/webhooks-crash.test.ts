/**
 * Pending webhook deliveries survive a crash: the process holding them (the standalone process, or
 * the accounts service in multi-process mode) is killed with SIGKILL while a receiver keeps
 * failing them, the receiver recovers, the process is started again on the same data, and every
 * delivery arrives (at least once: none is lost, each ends succeeded in the delivery log).
 */
import { childEnv } from './harness/run-app.js';
import type { WebhookDelivery, WebhookWithSecret } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type PartnerApi, partnerApi } from './harness/client.js';
import { natsUrlForTests, startMultiProcess } from './harness/multi-process.js';
import { stablePort } from './harness/ports.js';
import { TEST_PARTNER, testEnv } from './harness/standalone.js';
import { eventually, unique } from './scenarios/accounts-fixtures.js';
import { startReceiver, verifies, WEBHOOK_TEST_ENV } from './scenarios/webhooks.scenarios.js';

const appsDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const natsUrl = natsUrlForTests();
/** A short delivery timeout keeps the lease of a killed process short (it expires after timeout + 5 s). */
const CRASH_ENV = { ...WEBHOOK_TEST_ENV, BURROW_WEBHOOK_TIMEOUT_MS: '2000' };
const USERS = 4;

/**
 * The scenario, given a running target: deliveries pending against a failing receiver, `crash`
 * (SIGKILL), the receiver healed, `restart`, and every delivery arrives.
 */
async function pendingDeliveriesSurvive(
  api: PartnerApi,
  crash: () => Promise<void>,
  restart: () => Promise<void>,
): Promise<void> {
  const receiver = await startReceiver();
  try {
    receiver.plan.push(...Array(10_000).fill(500));
    const hook = (await api.post('/webhooks/', { url: receiver.url, event_types: ['user.created'] }).expect(201))
      .body as WebhookWithSecret;
    const names = Array.from({ length: USERS }, () => unique('crash'));
    for (const username of names)
      await api.post('/users/', { username, name: username, email: `${username}@example.com` }).expect(201);
    const log = async () => (await api.get(`/webhooks/${hook.id}/deliveries/`).expect(200)).body as WebhookDelivery[];
    await eventually(async () => {
      const deliveries = await log();
      assert.equal(deliveries.length, USERS);
      assert.ok(
        deliveries.every((d) => d.status === 'pending' && d.attempts >= 1),
        'every delivery tried and failing',
      );
    }, 30_000);

    await crash();
    receiver.plan.length = 0;
    await restart();

    await eventually(async () => {
      const delivered = new Set(
        receiver.got
          .filter((d) => d.status === 200)
          .map((d) => (JSON.parse(d.body) as { data: { username: string } }).data.username),
      );
      assert.deepEqual([...delivered].sort(), [...names].sort());
    }, 60_000);
    for (const d of receiver.got.filter((x) => x.status === 200)) assert.ok(verifies(d, hook.secret));
    await eventually(
      async () =>
        assert.deepEqual(
          (await log()).map((d) => d.status),
          Array(USERS).fill('succeeded'),
        ),
      30_000,
    );
  } finally {
    receiver.close();
  }
}

describe('kill -9 of the process holding pending webhook deliveries loses none', { timeout: 300_000 }, () => {
  const cleanup: (() => Promise<void>)[] = [];
  after(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('standalone: the one process is killed and started again on its data directory', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'burrow-crash-'));
    // started again on the same port (harness/ports.ts)
    const port = await stablePort();
    const url = `http://127.0.0.1:${port}`;
    let child: ChildProcess | null = null;
    let output = '';
    const start = async () => {
      child = spawn(process.execPath, [join(appsDir, 'standalone', 'dist', 'main.js')], {
        env: childEnv(testEnv(dataDir, { ...CRASH_ENV, PORT: String(port) })),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (c) => (output = (output + c).slice(-20_000)));
      child.stderr!.on('data', (c) => (output = (output + c).slice(-20_000)));
      await eventually(async () => {
        const res = await fetch(`${url}/readyz`);
        assert.equal(res.status, 200);
      }, 60_000).catch((error) => {
        throw new Error(`standalone did not start: ${(error as Error).message}\n${output}`);
      });
    };
    const kill = async () => {
      const c = child!;
      if (c.exitCode !== null || c.signalCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await exited;
    };
    cleanup.push(async () => {
      await kill();
      await rm(dataDir, { recursive: true, force: true });
    });
    await start();
    const api = partnerApi({ url, partner: TEST_PARTNER } as never);
    await pendingDeliveriesSurvive(
      api,
      async () => {
        await kill();
        assert.equal(child!.signalCode, 'SIGKILL');
      },
      start,
    );
  });

  it(
    'multi-process: the accounts service is killed and started again',
    { skip: natsUrl ? false : 'NATS_URL not set and no nats-server found' },
    async () => {
      const target = await startMultiProcess(natsUrl!, CRASH_ENV);
      cleanup.push(() => target.close());
      const api = partnerApi(target);
      await pendingDeliveriesSurvive(
        api,
        async () => {
          target.killApp('accounts');
          await target.exited('accounts');
          assert.equal(target.processes().find((p) => p.name === 'accounts')!.signalCode, 'SIGKILL');
        },
        async () => {
          target.startApp('accounts');
          await eventually(async () => assert.equal((await api.get('/ping')).status, 200), 60_000);
        },
      );
    },
  );
});
