/**
 * Slow transfers against a gateway whose idle limit is short (BURROW_IDLE_TIMEOUT_SECONDS=3; issue
 * 17, defect 1): an upload, a download or a zip may last as long as bytes keep flowing, well past
 * the idle limit many times over; a connection on which nothing moves for longer than the limit is
 * cut, and a cut upload stores nothing and leaves no temporary file. That a transfer may also
 * outlast Node's old 300-second request limit is `idle-timeout.slow.test.ts`.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { it } from 'node:test';
import supertest from 'supertest';
import { bytes, hasUnzip, unzipAll } from '../harness/http-bytes.js';
import { rawRequest } from '../harness/raw-http.js';
import { eventually } from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';
import { userWithDevice } from './storage-fixtures.js';

const PASSWORD = 'user-password-1';
/** the target's BURROW_IDLE_TIMEOUT_SECONDS */
export const SLOW_TRANSFERS_IDLE_SECONDS = 3;
const IDLE_MS = SLOW_TRANSFERS_IDLE_SECONDS * 1000;
const MiB = 1024 * 1024;

/** Temporary upload files left in the local blob folder (none to see when the blobs are in MinIO). */
async function temporaryUploads(dataDir: string): Promise<string[]> {
  const tmp = join(dataDir, 'blobs', 'tmp');
  return existsSync(tmp) ? readdir(tmp) : [];
}

export function slowTransfersScenarios({ target }: ScenarioContext) {
  const user = () => userWithDevice(target(), 'slow', PASSWORD);

  it('an upload trickling in for three times the idle limit is stored whole; one that stalls is cut, stores nothing and leaves no temporary file', async () => {
    const u = await user();
    for (const url of target().urls) {
      const name = `trickle-${url.slice(-5)}.bin`;
      const parts = Array.from({ length: 18 }, () => randomBytes(512));
      // a chunk every sixth of the limit (a wide margin for timers late on a loaded machine): 9 s, three limits
      const slow = await rawRequest(`${url}${u.storage.root}/laptop/${name}`, {
        method: 'PUT',
        headers: u.auth,
        body: parts.map((chunk) => ({ chunk, delayMs: IDLE_MS / 6 })),
      });
      assert.equal(slow.status, 201, slow.body.toString());
      const stored = await bytes(
        supertest(url).get(`${u.storage.root}/laptop/${name}`).auth(u.username, PASSWORD),
      ).expect(200);
      assert.deepEqual(stored.body, Buffer.concat(parts));

      const stalled = await rawRequest(`${url}${u.storage.root}/laptop/stalled.bin`, {
        method: 'PUT',
        headers: u.auth,
        body: [{ chunk: randomBytes(64 * 1024) }],
        stallAfterBody: true,
        timeoutMs: IDLE_MS * 10,
      });
      assert.equal(
        stalled.status,
        undefined,
        `the gateway answered ${stalled.status} instead of cutting the idle upload`,
      );
      assert.ok(stalled.error, 'the connection was closed under the stalled upload');
      await supertest(url).get(`${u.storage.root}/laptop/stalled.bin`).auth(u.username, PASSWORD).expect(404);
    }
    await eventually(async () => assert.deepEqual(await temporaryUploads(target().dataDir), []), 5000, 100);
  });

  it('a download and a zip read slowly for several idle limits arrive whole; a reader that stops for longer than the limit is cut', async () => {
    const u = await user();
    // more than loopback's socket buffers can hold (4 MiB sent, up to 32 MiB received), so a reader that stops stops the gateway
    const content = randomBytes(48 * MiB);
    await u.storage.putFile('laptop', 'Big/big.bin', content).expect(201);
    // the file from the first gateway, the zip from the last (every gateway runs the same server code)
    const urls = target().urls;
    for (const [url, path] of [
      [urls[0], 'Big/big.bin'],
      [urls[urls.length - 1], 'Big/?format=zip'],
    ]) {
      {
        const full = `${url}${u.storage.root}/laptop/${path}`;
        // 5 MiB/s: about 10 s, three times the idle limit, with bytes moving all the time
        const slow = await rawRequest(full, { headers: u.auth, readBytesPerSecond: 5 * MiB });
        assert.equal(slow.status, 200);
        assert.ok(
          slow.complete,
          `${path}: the slow reader got ${slow.body.length} of ${slow.headers['content-length']} bytes`,
        );
        if (path.endsWith('.bin')) assert.deepEqual(slow.body, content);
        else if (await hasUnzip()) assert.deepEqual((await unzipAll(slow.body)).get('Big/big.bin'), content);

        // stops reading after 1 MiB for three idle limits: socket buffers fill, nothing moves, the gateway hangs up
        const stopped = await rawRequest(full, {
          headers: u.auth,
          pauseReadingAfter: { bytes: MiB, pauseMs: IDLE_MS * 3 },
        });
        assert.equal(stopped.status, 200);
        assert.equal(stopped.complete, false, `${path}: a reader idle for three limits was not cut`);
        assert.ok(stopped.body.length < content.length);
      }
    }
  });
}
