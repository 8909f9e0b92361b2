/**
 * `npm run admin -- verify-blobs` as an operator runs it (issue 17, defect 2), on both modes: on
 * a standalone data directory while the server runs on it, and over NATS against the running
 * multi-process services (the blob store there is MinIO when the run has one). Two users back up
 * files; behind the catalog's back one blob gets two bytes flipped and another is deleted. The
 * command must report the corrupt one (quarantined) and the missing one, each with the files and
 * users affected, exit 1, and show its progress on stderr. After it, the damaged file's download
 * fails at once (its bytes are out of the store) and the next upload of the content heals it.
 */
import type { VerifySummary } from '@burrow/admin';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import supertest from 'supertest';
import { damageBlob, deleteBlob } from './harness/blob-store.js';
import { partnerApi } from './harness/client.js';
import { bytes } from './harness/http-bytes.js';
import { natsUrlForTests, startMultiProcess } from './harness/multi-process.js';
import { runApp } from './harness/run-app.js';
import { startStandalone, type TestTarget } from './harness/standalone.js';
import { storageApi } from './harness/storage-client.js';
import { createUser, unique } from './scenarios/accounts-fixtures.js';

const PASSWORD = 'user-password-1';

/** Two users' files, one blob (shared by both) damaged, one deleted; what the report must say. */
async function damagedStore(target: TestTarget) {
  const alice = unique('alice');
  const bob = unique('bob');
  const api = partnerApi(target);
  const storage = Object.fromEntries(
    await Promise.all(
      [alice, bob].map(async (name) => {
        await createUser(api, { username: name, password: PASSWORD });
        const s = storageApi(target, name, PASSWORD);
        await s.putDevice('laptop').expect(200);
        return [name, s] as const;
      }),
    ),
  );
  const shared = randomBytes(200_000);
  const damaged = (await storage[alice].putFile('laptop', 'Docs/report.pdf', shared).expect(201)).body.sha256 as string;
  await storage[bob].putFile('laptop', 'inbox/report copy.pdf', shared).expect(201);
  const lost = (await storage[bob].putFile('laptop', 'photo.jpg', randomBytes(50_000)).expect(201)).body
    .sha256 as string;
  for (let i = 0; i < 20; i++)
    await storage[alice].putFile('laptop', `many/${i}.txt`, randomBytes(2000 + i)).expect(201);
  await damageBlob(target, damaged);
  await deleteBlob(target, lost);
  return { alice, bob, storage, shared, damaged, lost };
}

async function verifyAndHeal(target: TestTarget, env: Record<string, string>) {
  const s = await damagedStore(target);
  const run = await runApp('admin/dist/main.js', ['verify-blobs', '--page-mb', '1'], env);
  assert.equal(run.code, 1, `exit ${run.code}: ${run.stderr}`);
  const summary = JSON.parse(run.stdout) as VerifySummary;
  assert.ok(summary.blobs >= 21, `${summary.blobs} blobs read`); // 20 small files and the damaged one (the lost one is gone)
  assert.ok(summary.bytes >= 240_000);
  assert.ok(summary.gb_per_minute > 0);
  const mine = (list: VerifySummary['corrupt']) => list.filter((p) => p.blob === s.damaged || p.blob === s.lost);
  assert.deepEqual(
    mine(summary.corrupt).map((p) => [p.blob, p.quarantined, p.users]),
    [[s.damaged, true, [s.alice, s.bob].sort()]],
  );
  assert.deepEqual(
    mine(summary.corrupt)[0]
      .files.map((f) => `${f.user}/${f.device}/${f.path}`)
      .sort(),
    [`${s.alice}/laptop/Docs/report.pdf`, `${s.bob}/laptop/inbox/report copy.pdf`].sort(),
  );
  assert.deepEqual(
    mine(summary.missing).map((p) => [p.blob, p.users, p.files.map((f) => f.path)]),
    [[s.lost, [s.bob], ['photo.jpg']]],
  );
  assert.equal(summary.quarantined, summary.corrupt.filter((p) => p.quarantined).length);
  assert.match(
    run.stderr,
    new RegExp(`verify-blobs: corrupt: ${s.damaged} \\(quarantined\\)`),
    'findings are shown as they come',
  );
  assert.match(run.stderr, /verify-blobs: done, 100\.0% of the key space/);

  // quarantined: a download fails at once, as missing; the next upload of the content heals it
  const fileUrl = `${s.storage[s.alice].root}/laptop/Docs/report.pdf`;
  const gone = await supertest(target.url).get(fileUrl).auth(s.alice, PASSWORD);
  assert.ok(gone.status >= 500 && /missing/.test(gone.body.reason), `${gone.status} ${gone.text}`);
  await s.storage[s.bob].putFile('laptop', 'inbox/report copy.pdf', s.shared).expect(201);
  const healed = await bytes(supertest(target.url).get(fileUrl).auth(s.alice, PASSWORD)).expect(200);
  assert.ok(healed.body.equals(s.shared), 'the original bytes again');
  const again = JSON.parse((await runApp('admin/dist/main.js', ['verify-blobs'], env)).stdout) as VerifySummary;
  assert.deepEqual(mine(again.corrupt), []);
  assert.deepEqual(
    mine(again.missing).map((p) => p.blob),
    [s.lost],
  );
}

describe('admin verify-blobs', () => {
  it('on a standalone data directory, while the server runs: reports, quarantines, exit 1; the next upload heals', async () => {
    const target = await startStandalone();
    try {
      // what the operator's shell has: the data directory, no NATS_URL
      await verifyAndHeal(target, {
        BURROW_DATA_DIR: target.dataDir,
        BURROW_SECRET: 'test-secret-0123456789abcdef0123456789abcdef',
        LOG_LEVEL: 'silent',
      });
    } finally {
      await target.close();
    }
  });

  const natsUrl = natsUrlForTests();
  it(
    'over NATS against the running services: the same',
    { skip: natsUrl ? false : 'NATS_URL not set and no nats-server found' },
    async () => {
      const target = await startMultiProcess(natsUrl!);
      try {
        await verifyAndHeal(target, { NATS_URL: target.natsUrl, LOG_LEVEL: 'silent' });
      } finally {
        await target.close();
      }
    },
  );
});
