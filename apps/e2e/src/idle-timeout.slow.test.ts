/**
 * SLOW (~5.5 min, mostly waiting): an upload slower than Node's default 300-second request limit
 * is stored (issue 17, defect 1). Before the fix the gateway kept `requestTimeout` (300 s): a file
 * that took longer than five minutes to send got a 408 and was never stored. Now only a connection
 * idle for BURROW_IDLE_TIMEOUT_SECONDS is cut (here 30 s; a chunk arrives every 10 s). Both modes
 * run side by side to spend the five minutes once. The idle cut itself, downloads and zips are
 * `scenarios/slow-transfers.scenarios.ts`.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import supertest from 'supertest';
import { partnerApi } from './harness/client.js';
import { bytes } from './harness/http-bytes.js';
import { startMultiProcess } from './harness/multi-process.js';
import { basicAuth, rawRequest } from './harness/raw-http.js';
import { startStandalone, type TestTarget } from './harness/standalone.js';
import { storageApi } from './harness/storage-client.js';
import { createUser, unique } from './scenarios/accounts-fixtures.js';

const PASSWORD = 'user-password-1';
const ENV = { BURROW_IDLE_TIMEOUT_SECONDS: '30' };
/** Node's default requestTimeout, which the gateway no longer applies */
const OLD_LIMIT_MS = 300_000;
const CHUNK_EVERY_MS = 10_000;

async function slowUpload(target: TestTarget): Promise<void> {
  const username = unique('slow');
  await createUser(partnerApi(target), { username, password: PASSWORD });
  const storage = storageApi(target, username, PASSWORD);
  await storage.putDevice('laptop').expect(200);
  // the old limit plus a check interval of Node's (30 s) and a margin: 34 chunks over 340 s
  const parts = Array.from({ length: Math.ceil((OLD_LIMIT_MS + 40_000) / CHUNK_EVERY_MS) }, () => randomBytes(1024));
  const started = Date.now();
  const res = await rawRequest(`${target.url}${storage.root}/laptop/slow.bin`, {
    method: 'PUT',
    headers: basicAuth(username, PASSWORD),
    body: parts.map((chunk) => ({ chunk, delayMs: CHUNK_EVERY_MS })),
    timeoutMs: 600_000,
  });
  const took = Date.now() - started;
  assert.equal(
    res.status,
    201,
    `${target.mode}: after ${took} ms: ${res.status} ${res.body.toString()} ${res.error?.message ?? ''}`,
  );
  assert.ok(took > OLD_LIMIT_MS, `the upload lasted ${took} ms, longer than the old limit`);
  const stored = await bytes(
    supertest(target.urls[target.urls.length - 1])
      .get(`${storage.root}/laptop/slow.bin`)
      .auth(username, PASSWORD),
  ).expect(200);
  assert.deepEqual(stored.body, Buffer.concat(parts));
}

describe('an upload slower than the old 300-second request limit (slow)', () => {
  it('is stored whole, in both modes', { timeout: 600_000 }, async (t) => {
    const natsUrl = process.env.NATS_URL;
    if (!natsUrl) t.diagnostic('NATS_URL not set and no nats-server found: the multi-process half is skipped');
    const targets = await Promise.all([startStandalone(ENV), ...(natsUrl ? [startMultiProcess(natsUrl, ENV)] : [])]);
    try {
      await Promise.all(targets.map(slowUpload));
    } finally {
      for (const target of targets) await target.close();
    }
  });
});
