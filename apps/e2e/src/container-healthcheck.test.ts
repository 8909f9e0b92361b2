/**
 * The image's HEALTHCHECK (deploy/healthcheck.mjs) against Burrow as separate processes on a real
 * NATS server: healthy for every running app, unhealthy for a service that is down or a gateway
 * that does not answer, so compose restarts and waits on the right containers.
 */
import { childEnv } from './harness/run-app.js';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type MultiProcessTarget, startMultiProcess } from './harness/multi-process.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const natsUrl = process.env.NATS_URL;

function healthcheck(env: Record<string, string>): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [join(repoRoot, 'deploy', 'healthcheck.mjs')], {
    cwd: repoRoot,
    env: childEnv(env),
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe(
  'container healthcheck (deploy/healthcheck.mjs)',
  { skip: natsUrl ? false : 'NATS_URL not set and no nats-server found', timeout: 180_000 },
  () => {
    let target: MultiProcessTarget;
    before(async () => {
      target = await startMultiProcess(natsUrl!);
    });
    after(async () => {
      await target?.close();
    });

    it('is healthy for every running app: the gateway on /healthz, the services over NATS', () => {
      const port = new URL(target.url).port;
      assert.deepEqual(healthcheck({ BURROW_APP: 'gateway', PORT: port }), { status: 0, output: '' });
      for (const app of ['accounts', 'billing', 'storage-catalog']) {
        const result = healthcheck({ BURROW_APP: app, NATS_URL: target.natsUrl });
        assert.equal(result.status, 0, `${app}: ${result.output}`);
      }
    });

    it('is unhealthy for a stopped service, a gateway that does not answer, and without NATS_URL', async () => {
      await target.stopApp('billing');
      const billing = healthcheck({ BURROW_APP: 'billing', NATS_URL: target.natsUrl });
      assert.equal(billing.status, 1);
      assert.match(billing.output, /unhealthy: billing\.health/);
      assert.equal(
        healthcheck({ BURROW_APP: 'accounts', NATS_URL: target.natsUrl }).status,
        0,
        'the others are still healthy',
      );
      assert.equal(healthcheck({ BURROW_APP: 'gateway', PORT: '1' }).status, 1);
      assert.match(healthcheck({ BURROW_APP: 'accounts' }).output, /NATS_URL is not set/);
    });
  },
);
