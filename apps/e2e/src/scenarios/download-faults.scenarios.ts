/**
 * Downloads when something goes wrong, end to end:
 * - a blob missing from the blob store (deleted behind the catalog's back) under a zipped folder:
 *   the connection is aborted, never a 200 whose body is a whole, valid-looking archive;
 * - the same for a single file: a JSON 5xx with a reason, answered at once (no hang);
 * - clients that disconnect half-way through a large zip and a large file: the gateway goes on
 *   serving, and (standalone, where the gateway is this process) the open file descriptors come
 *   back to about where they were, so no blob stream is left open.
 *
 * Raw `node:http` requests here (harness/raw-http.ts), not supertest: the tests must see exactly
 * how a body ends (short of its Content-Length, or reset) and must be able to stop reading and hang
 * up mid-body.
 * Failed-login throttling of storage logins is in login-throttle.test.ts, which simulates client
 * addresses: 20 failures from 127.0.0.1 here would spend the address budget other scenarios share.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { it } from 'node:test';
import supertest from 'supertest';
import { deleteBlob } from '../harness/blob-store.js';
import { partnerApi } from '../harness/client.js';
import { hasUnzip, unzipAll } from '../harness/http-bytes.js';
import { basicAuth, type RawRequestOptions, rawRequest } from '../harness/raw-http.js';
import { storageApi, type StorageApi } from '../harness/storage-client.js';
import { createUser, eventually, unique } from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';

const PASSWORD = 'user-password-1';
const MiB = 1024 * 1024;

/** Open file descriptors of this process (standalone: the gateway's too). */
const openFds = async () => (await readdir('/proc/self/fd')).length;

/** A GET that records how its body ends (a hang is a failure). */
const rawGet = (
  base: string,
  path: string,
  headers: Record<string, string>,
  options: Pick<RawRequestOptions, 'hangUpAfter' | 'timeoutMs'> = {},
) => rawRequest(`${base}${path}`, { headers, ...options });

export function downloadFaultsScenarios({ target }: ScenarioContext) {
  const basic = (username: string) => basicAuth(username, PASSWORD);

  async function userWithDevice(): Promise<{
    username: string;
    storage: StorageApi;
    put: (path: string, content: Buffer) => Promise<string>;
  }> {
    const username = unique('df');
    await createUser(partnerApi(target()), { username, password: PASSWORD });
    const storage = storageApi(target(), username, PASSWORD);
    await storage.putDevice('laptop').expect(200);
    return {
      username,
      storage,
      /** uploads a file, returns its blob key */
      put: async (path, content) => {
        const res = await storage.putFile('laptop', path, content);
        assert.equal(res.status, 201, res.text);
        return res.body.sha256 as string;
      },
    };
  }

  it('a zip over a file whose blob is gone is aborted: never a 200 with a whole, valid-looking archive', async () => {
    const u = await userWithDevice();
    // random content: a blob of its own, shared with no other test
    await u.put('Folder/a-first.bin', randomBytes(2 * MiB));
    const missing = await u.put('Folder/b-missing.bin', randomBytes(MiB));
    await u.put('Folder/c-last.bin', randomBytes(MiB));
    await u.put('Other/fine.txt', randomBytes(1000));
    await deleteBlob(target(), missing);

    for (const url of target().urls) {
      for (const extra of [{}, { Range: 'bytes=100-' }] as Record<string, string>[]) {
        const res = await rawGet(url, `${u.storage.root}/laptop/Folder/?format=zip`, {
          ...basic(u.username),
          ...extra,
        });
        assert.equal(res.complete, false, `status ${res.status}: a complete body of ${res.body.length} bytes`);
        if (res.status !== undefined && res.headers['content-length'] !== undefined) {
          assert.ok(
            res.body.length < Number(res.headers['content-length']),
            'the body is shorter than its Content-Length',
          );
        }
        if (res.status === 200 && (await hasUnzip())) {
          await assert.rejects(unzipAll(res.body), 'what arrived is not a valid archive');
        }
      }
    }
    // the gateway is not stuck, and a folder without the missing blob still zips whole
    const fine = await rawGet(target().url, `${u.storage.root}/laptop/Other/?format=zip`, basic(u.username));
    assert.equal(fine.status, 200);
    assert.ok(fine.complete);
    assert.equal(fine.body.length, Number(fine.headers['content-length']));
  });

  it('a single file whose blob is gone answers a JSON 5xx with a reason, at once', async () => {
    const u = await userWithDevice();
    const missing = await u.put('lost.bin', randomBytes(64 * 1024));
    await deleteBlob(target(), missing);
    for (const url of target().urls) {
      for (const extra of [{}, { Range: 'bytes=10-20' }] as Record<string, string>[]) {
        const res = await rawGet(
          url,
          `${u.storage.root}/laptop/lost.bin`,
          { ...basic(u.username), ...extra },
          { timeoutMs: 10_000 },
        );
        assert.ok(res.status !== undefined && res.status >= 500 && res.status < 600, `status ${res.status}`);
        assert.ok(res.complete);
        assert.match(String(res.headers['content-type']), /application\/json/);
        const body = JSON.parse(res.body.toString('utf8')) as { reason: string };
        assert.match(body.reason, /missing|stored bytes/, body.reason);
        assert.ok(!body.reason.includes(missing), 'the blob key is not revealed');
      }
      // a HEAD says the same as the GET would, not a 200 for bytes that are gone
      const head = await supertest(url).head(`${u.storage.root}/laptop/lost.bin`).auth(u.username, PASSWORD);
      assert.ok(head.status >= 500 && head.status < 600, `HEAD status ${head.status}`);
    }
  });

  it('clients hanging up half-way through a large zip and a large file leave no stuck gateway and no open blob streams', async () => {
    const u = await userWithDevice();
    const big = randomBytes(24 * MiB);
    await u.put('Big/big.bin', big);
    await u.put('Big/small.txt', Buffer.from('small'));
    const fileUrl = `${u.storage.root}/laptop/Big/big.bin`;
    const zipUrl = `${u.storage.root}/laptop/Big/?format=zip`;
    const standalone = target().mode === 'standalone';

    // a first full round, so that lazily opened things (pools, caches) are open before the baseline
    for (const path of [fileUrl, zipUrl]) assert.ok((await rawGet(target().url, path, basic(u.username))).complete);
    const baseline = standalone ? await openFds() : 0;

    for (let round = 0; round < 3; round++) {
      for (const url of target().urls) {
        for (const path of [fileUrl, zipUrl]) {
          const cut = await rawGet(url, path, basic(u.username), { hangUpAfter: 2 * MiB });
          assert.equal(cut.status, 200);
          assert.ok(cut.body.length < Number(cut.headers['content-length']), 'hung up before the end');
        }
      }
    }
    // the next requests succeed, on every gateway, byte for byte
    for (const url of target().urls) {
      const file = await rawGet(url, fileUrl, basic(u.username));
      assert.ok(file.complete && file.status === 200);
      assert.ok(file.body.equals(big));
      const zip = await rawGet(url, zipUrl, basic(u.username));
      assert.ok(zip.complete && zip.status === 200);
      assert.equal(zip.body.length, Number(zip.headers['content-length']));
      if (await hasUnzip()) assert.ok((await unzipAll(zip.body)).get('Big/big.bin')!.equals(big));
    }
    if (standalone) {
      // 12 abandoned downloads each held a blob stream and a socket: all of them must be closed
      await eventually(
        async () => {
          const now = await openFds();
          assert.ok(now <= baseline + 3, `open file descriptors: ${now}, baseline ${baseline}`);
        },
        15_000,
        200,
      );
    }
  });
}
