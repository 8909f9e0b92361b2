/**
 * Issue 39, defects 3 and 5 (multi-process on NATS): readiness says ready only when logins work,
 * and every replica of every service is seen on its own.
 *
 * - The login throttle's key-value store (NATS JetStream) is a store every request needs: NATS
 *   restarted without JetStream leaves the bus working and every login refused, and /readyz must
 *   say not ready (it said ready while uploads got `503 login throttling is unavailable`); once
 *   JetStream is back, ready means an authenticated request succeeds.
 * - Two storage-catalog replicas, one stopped with SIGSTOP: /readyz of the gateway lists both,
 *   the stopped one as stale, and it comes back once continued; each process answers its own
 *   /readyz and /metrics on its operations port (BURROW_OPS_PORT).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { partnerApi } from './harness/client.js';
import { natsUrlForTests, startMultiProcess } from './harness/multi-process.js';
import { eventually } from './scenarios/accounts-fixtures.js';
import { natsServerBinary, startPrivateNats } from './harness/private-nats.js';

const natsUrl = natsUrlForTests();
const binary = natsServerBinary();

interface ReplicaView {
  replica: string;
  ok: boolean;
  stale: boolean;
  last_seen_ms: number;
  ops?: string;
}

describe(
  'readiness (multi-process)',
  { skip: binary ? false : 'no nats-server binary: cannot run a private NATS server', timeout: 180_000 },
  () => {
    it('is not ready while the login throttle store is missing; ready again means logins work', async () => {
      const nats = await startPrivateNats(binary);
      const target = await startMultiProcess(
        nats.url,
        { LOG_LEVEL: 'info', BURROW_RPC_TIMEOUT_MS: '4000' },
        { postgresEventStore: process.env.POSTGRES_URL },
      );
      try {
        const api = partnerApi(target);
        await api.get('/ping').expect(200);
        await nats.kill();
        await nats.start({ jetstream: false });
        // the bus is back (a request reaches accounts), but the throttle's buckets are not
        await eventually(
          async () => {
            const res = await api.get('/ping');
            assert.ok(
              res.status === 503 && /login throttling/.test(res.body.reason),
              `logins to fail for want of the key-value store: ${res.status} ${res.text}`,
            );
          },
          60_000,
          200,
        );
        const ready = await api.raw.get('/readyz');
        assert.equal(ready.status, 503, `not ready while logins fail: ${ready.text}`);
        assert.match(ready.body.checks.accounts, /login throttle store/);

        await nats.kill();
        await nats.start();
        await eventually(
          async () => {
            const res = await api.raw.get('/readyz');
            assert.ok(res.status === 200, `readiness to return: ${res.status} ${res.text}`);
          },
          60_000,
          200,
        );
        // ready: a login works at once (it used to answer 503 for a second or two after ready)
        const ping = await api.get('/ping');
        assert.equal(ping.status, 200, `ready, so a login works: ${ping.status} ${ping.text}`);
      } catch (error) {
        const logs = target.processes().map((p) => `--- ${p.name}:\n${p.output.slice(-4000)}`);
        throw new Error(`${(error as Error).message}\n${logs.join('\n')}`, { cause: error });
      } finally {
        await target.close();
        await nats.close();
      }
    });

    it(
      'lists every replica per service; a stopped one shows as stale and returns; each process serves its own health',
      { skip: natsUrl ? false : 'NATS_URL not set' },
      async () => {
        const target = await startMultiProcess(
          natsUrl!,
          { BURROW_REPLICA_REPORT_MS: '300', BURROW_OPS_PORT: '0', LOG_LEVEL: 'info' },
          { replicas: { 'storage-catalog': 2 }, postgresEventStore: process.env.POSTGRES_URL },
        );
        const replicas = async () =>
          (await partnerApi(target).raw.get('/readyz')).body.replicas as Record<string, ReplicaView[]>;
        try {
          await eventually(
            async () => {
              const seen = (await replicas())['storage-catalog'] ?? [];
              assert.ok(
                seen.length === 2 && seen.every((r) => !r.stale && r.ok),
                `both storage catalogs to be listed, live: ${JSON.stringify(seen)}`,
              );
            },
            60_000,
            200,
          );
          const all = await replicas();
          for (const service of ['accounts', 'billing', 'gateway'])
            assert.ok((all[service] ?? []).length >= 1, `${service} listed: ${JSON.stringify(all)}`);
          assert.equal(all.gateway.length, 2, 'both gateways');

          // each process answers for itself on its operations port
          const [one] = all['storage-catalog'];
          assert.ok(one.ops, `the replica says where its operations port is: ${JSON.stringify(one)}`);
          const opsUrl = new URL(one.ops);
          opsUrl.hostname = '127.0.0.1';
          const own = await fetch(new URL('/readyz', opsUrl));
          assert.equal(own.status, 200, await own.clone().text());
          assert.equal(
            ((await own.json()) as { services: Record<string, { ok: boolean }> }).services['storage-catalog'].ok,
            true,
          );
          assert.match(await (await fetch(new URL('/metrics', opsUrl))).text(), /burrow_process_/);

          target.killProcess('storage-catalog-2', 'SIGSTOP');
          await eventually(
            async () => {
              const seen = (await replicas())['storage-catalog'] ?? [];
              assert.ok(
                seen.length === 2 &&
                  seen.filter((r) => r.stale).length === 1 &&
                  seen.filter((r) => !r.stale && r.ok).length === 1,
                `the stopped replica to show as stale, the other as live: ${JSON.stringify(seen)}`,
              );
            },
            60_000,
            200,
          );
          target.killProcess('storage-catalog-2', 'SIGCONT');
          await eventually(
            async () => {
              const seen = (await replicas())['storage-catalog'] ?? [];
              assert.ok(
                seen.length === 2 && seen.every((r) => !r.stale),
                `the continued replica to be live again: ${JSON.stringify(seen)}`,
              );
            },
            60_000,
            200,
          );
        } finally {
          target.killProcess('storage-catalog-2', 'SIGCONT');
          await target.close();
        }
      },
    );
  },
);
