/**
 * What an upload may not do (issue 17, defect 3 and "Also"):
 * - go past the user's quota: a chunked upload (length unknown) is refused with a 507 as soon as it
 *   passes what the quota still holds, the connection closed, its temporary file gone at once and
 *   no blob left; a declared Content-Length over the quota is refused before a byte is stored;
 *   50 small uploads at once racing a nearly full quota (each one bus round trip, issue 37) never
 *   store past it, and an unknown device or a declared length past what remains is still refused
 *   before a byte is sent once the gateway knows the user's quota and devices;
 * - arrive in a coding the gateway does not decode: `Transfer-Encoding: gzip, chunked` is a 501,
 *   `Content-Encoding: gzip` a 415, and neither stores the still-encoded bytes.
 */
import { Subjects } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { it } from 'node:test';
import supertest from 'supertest';
import { partnerApi } from '../harness/client.js';
import { basicAuth, rawRequest, type RawResponse } from '../harness/raw-http.js';
import { storageApi } from '../harness/storage-client.js';
import { createUser, unique } from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';

const PASSWORD = 'user-password-1';
const MiB = 1024 * 1024;
const QUOTA = 1_000_000;

/** Files in the local blob folder, as `<relative path>`: blobs, and temporary files under `tmp/` (none to see when blobs are in MinIO). */
async function blobFolder(dataDir: string): Promise<{ blobs: string[]; temporary: string[] }> {
  const root = join(dataDir, 'blobs');
  if (!existsSync(root)) return { blobs: [], temporary: [] };
  const all = await readdir(root, { recursive: true });
  return {
    blobs: all.filter((p) => /^[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{64}$/.test(p)).sort(),
    temporary: all.filter((p) => p.startsWith('tmp/')),
  };
}

const assert507 = (res: RawResponse) => {
  assert.equal(res.status, 507, `${res.status} ${res.error?.message ?? res.body.toString()}`);
  assert.match(JSON.parse(res.body.toString()).reason, /quota/);
  assert.equal(res.headers.connection, 'close');
};

export function uploadLimitsScenarios({ target }: ScenarioContext) {
  /** A user whose plan holds QUOTA bytes, with a device. */
  async function smallUser() {
    const plan = await target().operator.call<{ plan_id: number }>(Subjects.accounts.addPlan, {
      name: unique('tiny plan '),
      storage_bytes: QUOTA,
    });
    const username = unique('quota');
    await createUser(partnerApi(target()), { username, password: PASSWORD, plan_id: plan.plan_id });
    const storage = storageApi(target(), username, PASSWORD);
    await storage.putDevice('laptop').expect(200);
    return {
      username,
      storage,
      auth: basicAuth(username, PASSWORD),
      fileUrl: (url: string, name: string) => `${url}${storage.root}/laptop/${name}`,
    };
  }

  it('a chunked upload past the quota is refused with 507 while it streams: connection closed, temporary file gone, nothing stored', async () => {
    const u = await smallUser();
    const chunk = Buffer.alloc(64 * 1024, 7);
    // far more than loopback's socket buffers hold, so a gateway that read it all could not answer before the client sent it all
    const total = 96 * MiB;
    for (const url of target().urls) {
      const before = await blobFolder(target().dataDir);
      const res = await rawRequest(u.fileUrl(url, 'huge.bin'), {
        method: 'PUT',
        headers: u.auth,
        body: Array.from({ length: total / chunk.length }, () => ({ chunk })),
        timeoutMs: 60_000,
      });
      assert507(res);
      assert.ok(
        res.sentBeforeResponse < total,
        `the refusal came before the client sent all ${total} bytes (it had sent ${res.sentBeforeResponse})`,
      );
      // at once: the gateway removed it before answering
      const after = await blobFolder(target().dataDir);
      assert.deepEqual(after.temporary, [], 'no temporary upload file is left');
      assert.deepEqual(after.blobs, before.blobs, 'no blob was stored');
      await supertest(url).get(`${u.storage.root}/laptop/huge.bin`).auth(u.username, PASSWORD).expect(404);
    }
  });

  it('a declared Content-Length over the quota is refused before a byte is sent; exactly the remaining bytes fit, one more does not', async () => {
    const u = await smallUser();
    for (const url of target().urls) {
      const declared = await rawRequest(u.fileUrl(url, 'declared.bin'), {
        method: 'PUT',
        headers: { ...u.auth, 'Content-Length': String(QUOTA + 1) },
        body: [],
        stallAfterBody: true,
        timeoutMs: 10_000,
      });
      assert507(declared);
      await supertest(url).get(`${u.storage.root}/laptop/declared.bin`).auth(u.username, PASSWORD).expect(404);
    }
    // chunked, exactly what the quota holds: stored; then a single byte more: refused
    const exact = await rawRequest(u.fileUrl(target().url, 'exact.bin'), {
      method: 'PUT',
      headers: u.auth,
      body: [{ chunk: Buffer.alloc(QUOTA / 2, 1) }, { chunk: Buffer.alloc(QUOTA / 2, 2) }],
    });
    assert.equal(exact.status, 201, exact.body.toString());
    assert.equal(JSON.parse(exact.body.toString()).size, QUOTA);
    const one = await rawRequest(u.fileUrl(target().urls[target().urls.length - 1], 'one-more.bin'), {
      method: 'PUT',
      headers: u.auth,
      body: [{ chunk: Buffer.from('x') }],
    });
    assert507(one);
  });

  it('50 small uploads at once racing a nearly full quota: exactly what fits is stored, never more; refusals the gateway can foresee still come before a byte', async () => {
    const u = await smallUser();
    const size = 4096;
    const fits = 10;
    const filler = QUOTA - fits * size - 100;
    // the filler's commit tells every gateway it went through what remains; the others learn at their first upload
    for (const [i, url] of target().urls.entries()) {
      const res = await rawRequest(u.fileUrl(url, `filler-${i}.bin`), {
        method: 'PUT',
        headers: { ...u.auth, 'Content-Length': String(i === 0 ? filler : 0) },
        body: i === 0 ? [{ chunk: Buffer.alloc(filler, 3) }] : [],
      });
      assert.equal(res.status, 201, res.body.toString());
    }
    const racers = Array.from({ length: 50 }, (_, i) => {
      const url = target().urls[i % target().urls.length];
      return rawRequest(u.fileUrl(url, `race-${i}.bin`), {
        method: 'PUT',
        headers: { ...u.auth, 'Content-Length': String(size) },
        body: [{ chunk: Buffer.alloc(size, i) }],
        timeoutMs: 60_000,
      });
    });
    const statuses = (await Promise.all(racers)).map((r) => r.status);
    const stored = statuses.filter((s) => s === 201).length;
    assert.deepEqual(
      statuses.filter((s) => s !== 201 && s !== 507),
      [],
      'every racer is stored or refused for the quota',
    );
    assert.equal(stored, fits, `exactly the ${fits} that fit are stored (${statuses.join(' ')})`);
    const root = await supertest(target().url).get(`${u.storage.root}/`).auth(u.username, PASSWORD).expect(200);
    assert.equal(
      Number(root.body.stats.backupsize_for_robots),
      filler + fits * size,
      'the stored bytes are the filler and the racers that fit',
    );
    for (const url of target().urls) {
      // the gateway knows the quota holds 100 bytes: a declared 4 KiB is refused before a byte is sent
      const declared = await rawRequest(u.fileUrl(url, 'late.bin'), {
        method: 'PUT',
        headers: { ...u.auth, 'Content-Length': String(size) },
        body: [],
        stallAfterBody: true,
        timeoutMs: 10_000,
      });
      assert507(declared);
      // a device it has not heard of: 404 before a byte is sent, the connection closed
      const unknown = await rawRequest(`${url}${u.storage.root}/desktop/a.bin`, {
        method: 'PUT',
        headers: { ...u.auth, 'Content-Length': '10' },
        body: [],
        stallAfterBody: true,
        timeoutMs: 10_000,
      });
      assert.equal(unknown.status, 404, unknown.body.toString());
      assert.equal(unknown.headers.connection, 'close');
    }
  });

  it('a body in a transfer coding other than chunked is a 501, in a content coding a 415: neither is stored encoded', async () => {
    const username = unique('coding');
    await createUser(partnerApi(target()), { username, password: PASSWORD });
    const storage = storageApi(target(), username, PASSWORD);
    await storage.putDevice('laptop').expect(200);
    const auth = basicAuth(username, PASSWORD);
    for (const url of target().urls) {
      const gzipped = await rawRequest(`${url}${storage.root}/laptop/te.txt`, {
        method: 'PUT',
        headers: { ...auth, 'Transfer-Encoding': 'gzip, chunked' },
        body: [{ chunk: Buffer.from('not really gzip') }],
      });
      assert.equal(gzipped.status, 501, gzipped.body.toString());
      assert.match(JSON.parse(gzipped.body.toString()).reason, /transfer coding gzip/);
      const coded = await rawRequest(`${url}${storage.root}/laptop/ce.txt`, {
        method: 'PUT',
        headers: { ...auth, 'Content-Encoding': 'gzip' },
        body: [{ chunk: Buffer.from('not really gzip') }],
      });
      assert.equal(coded.status, 415, coded.body.toString());
      assert.match(JSON.parse(coded.body.toString()).reason, /Content-Encoding gzip/);
      for (const name of ['te.txt', 'ce.txt'])
        await supertest(url).get(`${storage.root}/laptop/${name}`).auth(username, PASSWORD).expect(404);
      // chunked alone is fine
      const plain = await rawRequest(`${url}${storage.root}/laptop/plain.txt`, {
        method: 'PUT',
        headers: { ...auth, 'Transfer-Encoding': 'chunked' },
        body: [{ chunk: Buffer.from('plain') }],
      });
      assert.equal(plain.status, 201, plain.body.toString());
    }
  });
}
