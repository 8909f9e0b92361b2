/**
 * The management appliance's configuration backup (CLIENT-FACTS "What the management appliance
 * also calls"): `null` before the first store, megabytes stored and read back exactly, the hash
 * checked over the data text as sent, the size cap (413 with a JSON reason), the kept versions,
 * and tenant isolation.
 */
import { PARTNER_BACKUP_BODY_LIMIT, PARTNER_BACKUPS_KEPT } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { it } from 'node:test';
import supertest from 'supertest';
import { createPartner, type PartnerApi } from '../harness/client.js';
import { assertBadFields, assertError } from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
/** An "encrypted tarball" of `bytes` random bytes, base64 (line-wrapped like MIME base64 when asked). */
const backupData = (bytes: number, wrap = false) => {
  const text = randomBytes(bytes).toString('base64');
  return wrap ? text.match(/.{1,76}/g)!.join('\n') : text;
};

/**
 * POSTs a backup body of `dataBytes` of base64 in 1 MiB chunks with chunked transfer encoding (no
 * Content-Length), so only the count of bytes read can stop it.
 */
function postChunked(
  url: string,
  auth: { username: string; password: string },
  dataBytes: number,
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL('/partner/backup', url), {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`,
        'content-type': 'application/json',
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString() || 'null') }),
      );
    });
    const chunk = Buffer.alloc(1024 * 1024, 'A');
    let sent = 0;
    const pump = () => {
      while (sent < dataBytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end(`", "sha256": "${'0'.repeat(64)}"}`);
    };
    req.write('{"data": "');
    pump();
  });
}

async function store(api: PartnerApi, data: string, path = '/partner/backup') {
  const res = await api.post(path, { sha256: sha(data), data }, 'application/json');
  assert.equal(res.status, 200, `store backup: ${res.status} ${res.text.slice(0, 200)}`);
  return res.body as { sha256: string; size: number; stored_at: number };
}

export function partnerBackupScenarios({ target }: ScenarioContext) {
  const freshPartner = async () => (await createPartner(target())).api;

  it('GET /partner/backup answers null (200) before anything is stored, on both mounts', async () => {
    const api = await freshPartner();
    for (const path of ['/partner/backup', '/apis/accounts/v1/partner/backup']) {
      const res = await api.get(path);
      assert.equal(res.status, 200);
      assert.match(res.headers['content-type'] ?? '', /application\/json/);
      assert.equal(res.text, 'null');
    }
    assert.deepEqual((await api.get('/partner/backup/versions').expect(200)).body, []);
  });

  it('a backup of megabytes is stored and read back exactly (hash, data), on both mounts', async () => {
    const api = await freshPartner();
    const data = backupData(3 * 1024 * 1024);
    const stored = await store(api, data, '/apis/accounts/v1/partner/backup');
    assert.equal(stored.sha256, sha(data));
    assert.equal(stored.size, data.length);
    assert.ok(Number.isInteger(stored.stored_at));
    for (const path of ['/partner/backup', '/apis/accounts/v1/partner/backup']) {
      const res = await api.get(path).expect(200);
      assert.equal(res.body.data, data);
      assert.equal(res.body.sha256, sha(data));
      assert.equal(sha(res.body.data), res.body.sha256, 'what is read back verifies against its own hash');
      assert.deepEqual([res.body.size, res.body.stored_at], [stored.size, stored.stored_at]);
    }
  });

  it('line-wrapped base64 and JSON escapes (\\/) round-trip; the hash is over the data text as sent, not the decoded bytes', async () => {
    const { api, credentials } = await createPartner(target());
    const data = backupData(20_000, true);
    const body = JSON.stringify({ data, sha256: sha(data) }).replaceAll('/', '\\/');
    assert.ok(body.includes('\\/') && body.includes('\\n'));
    const stored = await api.raw
      .post('/partner/backup')
      .auth(credentials.username, credentials.password)
      .set('Content-Type', 'text/javascript')
      .send(body);
    assert.equal(stored.status, 200, stored.text);
    assert.equal(stored.body.sha256, sha(data));
    assert.equal((await api.get('/partner/backup').expect(200)).body.data, data);
    const decoded = createHash('sha256').update(Buffer.from(data, 'base64')).digest('hex');
    assertBadFields(await api.post('/partner/backup', { sha256: decoded, data }), ['sha256']);
  });

  it('refuses a wrong hash, missing or unknown fields and non-base64 data (400 naming them), and keeps the previous backup', async () => {
    const api = await freshPartner();
    const kept = backupData(1000);
    await store(api, kept);
    const data = backupData(1000);
    assertBadFields(await api.post('/partner/backup', { sha256: sha(`${data}x`), data }), ['sha256']);
    assertBadFields(await api.post('/partner/backup', { sha256: 'not-a-hash', data }), ['sha256']);
    assertBadFields(await api.post('/partner/backup', { data }), ['sha256']);
    assertBadFields(await api.post('/partner/backup', { sha256: sha(data) }), ['data']);
    assertBadFields(await api.post('/partner/backup', { sha256: sha('%%%'), data: '%%%' }), ['data']);
    assertBadFields(await api.post('/partner/backup', { sha256: sha(data), data, extra: 1 }), ['extra']);
    assertError(await api.post('/partner/backup', [data]), 400);
    assertError(await api.post('/partner/backup', '{"sha256": "'), 400);
    assertError(await api.post('/partner/backup'), 400);
    const res = await api.get('/partner/backup').expect(200);
    assert.equal(res.body.data, kept, 'the refused stores changed nothing');
    assert.equal(((await api.get('/partner/backup/versions').expect(200)).body as unknown[]).length, 1);
  });

  it(`a body over ${PARTNER_BACKUP_BODY_LIMIT} bytes is 413 with a JSON reason (declared or streamed), and nothing is stored`, async () => {
    const { api, credentials } = await createPartner(target());
    // declared: the Content-Length is over the limit
    const data = 'A'.repeat(PARTNER_BACKUP_BODY_LIMIT);
    const declared = await api.post('/partner/backup', { sha256: sha(data), data }, 'application/json');
    assertError(declared, 413);
    assert.match(declared.body.reason, new RegExp(String(PARTNER_BACKUP_BODY_LIMIT)));
    // streamed: no Content-Length, so only the count of bytes read can stop it
    const streamed = await postChunked(target().url, credentials, PARTNER_BACKUP_BODY_LIMIT + 1024 * 1024);
    assert.equal(streamed.status, 413);
    assert.match((streamed.body as { reason: string }).reason, new RegExp(String(PARTNER_BACKUP_BODY_LIMIT)));
    // just under the limit is accepted: the cap is this route's own, not the 1 MiB of other bodies
    const big = 'B'.repeat(PARTNER_BACKUP_BODY_LIMIT - 200);
    assert.equal((await store(api, big)).size, big.length);
    assert.equal(
      (await api.get('/partner/backup/versions').expect(200)).body.length,
      1,
      'only the accepted backup was stored',
    );
  });

  it(`keeps the ${PARTNER_BACKUPS_KEPT} most recent versions, newest first; a kept one reads back by its sha256, a dropped one is 404`, async () => {
    const api = await freshPartner();
    const all = Array.from({ length: PARTNER_BACKUPS_KEPT + 1 }, () => backupData(500));
    for (const data of all) await store(api, data);
    const versions = (await api.get('/partner/backup/versions').expect(200)).body as { sha256: string }[];
    assert.deepEqual(
      versions.map((v) => v.sha256),
      all.slice(1).reverse().map(sha),
    );
    assert.equal((await api.get('/partner/backup').expect(200)).body.data, all.at(-1));
    assert.equal((await api.get(`/partner/backup?sha256=${sha(all[2]).toUpperCase()}`).expect(200)).body.data, all[2]);
    assertError(await api.get(`/partner/backup?sha256=${sha(all[0])}`), 404);
    assertBadFields(await api.get('/partner/backup?sha256=xyz'), ['sha256']);
    // the latest again (a retried POST) adds no version
    await store(api, all.at(-1)!);
    assert.equal(
      ((await api.get('/partner/backup/versions').expect(200)).body as unknown[]).length,
      PARTNER_BACKUPS_KEPT,
    );
  });

  it("another partner's backup is invisible: null, 404 by hash, an empty version list", async () => {
    const mine = await freshPartner();
    const data = backupData(2000);
    await store(mine, data);
    const theirs = await freshPartner();
    assert.equal((await theirs.get('/partner/backup').expect(200)).text, 'null');
    assertError(await theirs.get(`/partner/backup?sha256=${sha(data)}`), 404);
    assert.deepEqual((await theirs.get('/partner/backup/versions').expect(200)).body, []);
    assert.equal((await mine.get('/partner/backup').expect(200)).body.data, data);
  });

  it('needs partner credentials', async () => {
    const anonymous = supertest(target().url);
    for (const res of [
      await anonymous.get('/partner/backup'),
      await anonymous.get('/partner/backup/versions'),
      await anonymous.post('/partner/backup').send('{}'),
    ]) {
      assert.equal(res.status, 401);
      assert.match(res.headers['www-authenticate'] ?? '', /^Basic/);
    }
  });
}
