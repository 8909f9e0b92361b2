#!/usr/bin/env node
/**
 * The image's HEALTHCHECK, for every app: exit 0 when this container serves, 1 otherwise.
 * - gateway, standalone: GET /healthz on this container's PORT answers 2xx (over https when
 *   BURROW_TLS_CERT is set);
 * - accounts, billing, storage-catalog (no HTTP listener): the service answers its health request
 *   (`<app>.health`) over NATS_URL, as the gateway's /readyz asks it.
 * Each check gives up after 4 s (the HEALTHCHECK timeout is 5 s).
 */
import { randomUUID } from 'node:crypto';

const app = process.env.BURROW_APP ?? process.argv[2];
const TIMEOUT_MS = 4000;
const fail = (why) => {
  console.error(`unhealthy: ${why}`);
  process.exit(1);
};

if ((app === 'gateway' || app === 'standalone') && process.env.BURROW_TLS_CERT) {
  // HTTPS on PORT (BURROW_TLS_CERT/KEY): the certificate names the public host, not 127.0.0.1, so
  // it is not verified here; this checks that the process serves, not who it is
  const { request } = await import('node:https');
  const status = await new Promise((resolve) => {
    const req = request(
      `https://127.0.0.1:${process.env.PORT || 8080}/healthz`,
      { rejectUnauthorized: false, timeout: TIMEOUT_MS },
      (res) => {
        res.resume();
        resolve(res.statusCode);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (e) => fail(e.message));
    req.end();
  });
  process.exit(status >= 200 && status < 300 ? 0 : fail(`/healthz answered ${status}`));
}
if (app === 'gateway' || app === 'standalone') {
  const res = await fetch(`http://127.0.0.1:${process.env.PORT || 8080}/healthz`, {
    signal: AbortSignal.timeout(TIMEOUT_MS),
  }).catch((e) => fail(e.message));
  process.exit(res.ok ? 0 : fail(`/healthz answered ${res.status}`));
}
if (!['accounts', 'billing', 'storage-catalog'].includes(app)) fail(`unknown app "${app}" (BURROW_APP)`);
if (!process.env.NATS_URL) fail('NATS_URL is not set');

const { connect } = await import('@nats-io/transport-node');
const servers = process.env.NATS_URL.split(',').map((url) => url.trim());
const nc = await connect({ servers, name: `${app}-healthcheck`, timeout: TIMEOUT_MS, reconnect: false }).catch((e) =>
  fail(`NATS: ${e.message}`),
);
try {
  // the envelope NestJS's NATS transport exchanges: { pattern, data, id } -> { response | err, id }
  const msg = await nc.request(
    `${app}.health`,
    JSON.stringify({ pattern: `${app}.health`, data: {}, id: randomUUID() }),
    { timeout: TIMEOUT_MS },
  );
  const reply = JSON.parse(new TextDecoder().decode(msg.data));
  if (reply.err) fail(`${app}.health answered an error: ${JSON.stringify(reply.err)}`);
} catch (error) {
  fail(`${app}.health: ${error.message}`);
} finally {
  await nc.close();
}
process.exit(0);
