/**
 * SLOW (~40 s): a NATS outage longer than the NATS client's default reconnect window must heal.
 *
 * The client library (@nats-io/transport-node 3) gives up after 10 attempts 2 s apart, about 20 s;
 * before the fix, a process whose connection gave up either exited (storage-catalog, status 0,
 * nothing logged) or stayed up deaf. Here a private nats-server is SIGKILLed for 26 s and started
 * again on the same port, and every Burrow process must still be alive, say in its log that it
 * lost and regained the bus, and serve an authenticated request within 5 s of NATS being back.
 * While NATS is down: requests are 503, /readyz is 503, and /healthz stays 200 (liveness: the
 * process is reconnecting and restarting it would not help) but reports the bus as disconnected.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { partnerApi } from './harness/client.js';
import { startMultiProcess } from './harness/multi-process.js';
import { natsServerBinary, startPrivateNats } from './harness/private-nats.js';
import { eventually } from './scenarios/accounts-fixtures.js';

const OUTAGE_MS = 26_000;
const RECOVERY_MS = 5_000;
const sleepUntil = (t: number) => new Promise((r) => setTimeout(r, Math.max(0, t - Date.now())));

const binary = natsServerBinary();
describe(
  'bus outage longer than the NATS client default reconnect window (slow)',
  { skip: binary ? false : 'no nats-server binary: cannot run a private NATS server' },
  () => {
    it(
      'every process stays alive, logs losing and regaining the bus, and serves again within 5 s',
      { timeout: 120_000 },
      async (t) => {
        const nats = await startPrivateNats(binary);
        const target = await startMultiProcess(nats.url, { LOG_LEVEL: 'info', BURROW_RPC_TIMEOUT_MS: '1000' });
        try {
          const api = partnerApi(target);
          await api.get('/ping').expect(200);

          await nats.kill();
          const downAt = Date.now();
          await sleepUntil(downAt + 22_000);
          // past the default reconnect window: still down, still alive
          for (const p of target.processes())
            assert.equal(
              p.exitCode ?? p.signalCode,
              null,
              `${p.name} still running 22 s into the outage:\n${p.output}`,
            );
          const ping = await api.get('/ping');
          assert.equal(ping.status, 503, 'a request during the outage is a 503');
          const ready = await api.raw.get('/readyz');
          assert.equal(ready.status, 503, '/readyz fails while the bus is down');
          const health = await api.raw.get('/healthz');
          assert.equal(health.status, 200, '/healthz: alive and reconnecting');
          assert.equal(health.body.bus?.connected, false, '/healthz reports the bus as disconnected');
          assert.ok(
            health.body.bus.since >= downAt - 1000 && health.body.bus.since <= Date.now(),
            'since: when the bus was lost',
          );

          await sleepUntil(downAt + OUTAGE_MS);
          for (const p of target.processes())
            assert.equal(
              p.exitCode ?? p.signalCode,
              null,
              `${p.name} still running after a ${OUTAGE_MS} ms outage:\n${p.output}`,
            );
          await nats.start();
          const upAt = Date.now();

          // every gateway serves again (each reconnects on its own schedule, 1-2 s apart)
          for (const [i, url] of target.urls.entries()) {
            const gateway = partnerApi(target, url);
            let status = 0;
            while (Date.now() - upAt < RECOVERY_MS) {
              status = (await gateway.get('/ping')).status;
              if (status === 200) break;
              await new Promise((r) => setTimeout(r, 100));
            }
            assert.equal(
              status,
              200,
              `gateway ${i + 1}: authenticated /ping answered within ${RECOVERY_MS} ms of NATS returning`,
            );
            t.diagnostic(`gateway ${i + 1} served again ${Date.now() - upAt} ms after NATS returned`);
          }
          // /ping needs the connection its request goes out on; `connected` is every bus connection
          // of the process, each reconnecting on its own schedule: the last one, within the window
          await eventually(
            async () => {
              const health2 = await api.raw.get('/healthz');
              assert.equal(
                health2.body.bus?.connected,
                true,
                `every bus connection of the first gateway back within ${RECOVERY_MS} ms of NATS returning`,
              );
            },
            Math.max(0, upAt + RECOVERY_MS - Date.now()),
          );

          // every process lost the bus and got it back, and said so
          const deadline = upAt + RECOVERY_MS;
          const missing = () =>
            target
              .processes()
              .filter(
                (p) =>
                  !/"msg":"bus connection lost"/.test(p.output) || !/"msg":"bus connection restored"/.test(p.output),
              );
          while (missing().length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
          for (const p of missing()) assert.fail(`${p.name} did not log losing and regaining the bus:\n${p.output}`);
          for (const p of target.processes())
            assert.equal(p.exitCode ?? p.signalCode, null, `${p.name} still running:\n${p.output}`);
          if (process.env.TEST_SHOW_OUTPUT) for (const p of target.processes()) t.diagnostic(`${p.name}:\n${p.output}`);
        } finally {
          await target.close();
          await nats.kill();
        }
      },
    );
  },
);
