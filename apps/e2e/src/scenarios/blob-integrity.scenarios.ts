/**
 * Stored bytes that went bad on disk (issue 17, defect 2), end to end: two bytes of a blob flipped
 * behind the catalog's back, the size kept.
 * - The same content uploaded again (by its owner or anyone else) heals the blob: the upload's
 *   bytes replace the stored copy instead of being dropped because a blob of that size exists.
 * - Until then, a download of the file is cut short (never complete with the wrong bytes under
 *   an ETag claiming the right hash), a zip of its folder too (never a whole archive with a CRC
 *   error inside), and the operator is told (a log line naming the blob; checked where the
 *   gateway's log can be read: the multi-process target).
 * - A HEAD on a zip over a blob that is gone says what the GET would (an error, not 200).
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { it } from 'node:test';
import supertest from 'supertest';
import { damageBlob, deleteBlob } from '../harness/blob-store.js';
import { partnerApi } from '../harness/client.js';
import { bytes, hasUnzip, unzipAll } from '../harness/http-bytes.js';
import type { MultiProcessTarget } from '../harness/multi-process.js';
import { rawRequest } from '../harness/raw-http.js';
import { storageApi } from '../harness/storage-client.js';
import { createUser, eventually, unique } from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';
import { userWithDevice } from './storage-fixtures.js';

const PASSWORD = 'user-password-1';
const MiB = 1024 * 1024;
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** The periodic scrub's interval in `periodicScrubScenarios`' target. */
export const PERIODIC_SCRUB_ENV = { BURROW_BLOB_SCRUB_INTERVAL_MS: '2000', BURROW_BLOB_SCRUB_MB_PER_SECOND: '0' };

/** With BURROW_BLOB_SCRUB_INTERVAL_MS set (its own target: the scrub would race the tests above). */
export function periodicScrubScenarios({ target }: ScenarioContext) {
  it('the periodic scrub finds a damaged blob by itself and quarantines it: its download then fails at once, and an upload heals it', async () => {
    const username = unique('scrub');
    await createUser(partnerApi(target()), { username, password: PASSWORD });
    const storage = storageApi(target(), username, PASSWORD);
    await storage.putDevice('laptop').expect(200);
    const content = randomBytes(300_000);
    const blob = (await storage.putFile('laptop', 'rotting.bin', content).expect(201)).body.sha256 as string;
    await damageBlob(target(), blob);
    const get = () => supertest(target().url).get(`${storage.root}/laptop/rotting.bin`).auth(username, PASSWORD);
    await eventually(
      async () => {
        const res = await get();
        assert.ok(res.status >= 500 && /missing/.test(res.body.reason), `${res.status}: quarantined by now`);
      },
      30_000,
      500,
    );
    await storage.putFile('laptop', 'rotting.bin', content).expect(201);
    assert.ok((await bytes(get()).expect(200)).body.equals(content));
  });
}

export function blobIntegrityScenarios({ target }: ScenarioContext) {
  const user = () => userWithDevice(target(), 'bi', PASSWORD);

  /** The gateways' log lines, where the target lets them be read (multi-process); null otherwise. */
  const gatewayLog = () => {
    const processes = (target() as Partial<MultiProcessTarget>).processes?.();
    return processes
      ? processes
          .filter((p) => p.name.startsWith('gateway'))
          .map((p) => p.output)
          .join('\n')
      : null;
  };

  it('a blob damaged on disk is healed by the next upload of the same content, by its owner or another user', async () => {
    const alice = await user();
    const bob = await user();
    for (const size of [100_000, 6 * MiB]) {
      const content = randomBytes(size);
      const first = await alice.storage.putFile('laptop', `Docs/original-${size}.bin`, content).expect(201);
      await damageBlob(target(), first.body.sha256);
      // the owner uploads the same content again; then another user uploads it too
      const again = await alice.storage.putFile('laptop', `Docs/original-${size}.bin`, content).expect(201);
      assert.equal(again.body.sha256, sha256(content));
      await bob.storage.putFile('laptop', `copy-${size}.bin`, content).expect(201);
      for (const url of target().urls) {
        for (const [u, path] of [
          [alice, `Docs/original-${size}.bin`],
          [bob, `copy-${size}.bin`],
        ] as const) {
          const got = await bytes(
            supertest(url).get(`${u.storage.root}/laptop/${path}`).auth(u.username, PASSWORD),
          ).expect(200);
          assert.ok(got.body.equals(content), `${path} from ${url}: the original bytes`);
          assert.equal(got.headers.etag, `"${sha256(content)}"`);
        }
      }
      if (await hasUnzip()) {
        const zip = await bytes(
          supertest(target().url).get(`${alice.storage.root}/laptop/Docs/?format=zip`).auth(alice.username, PASSWORD),
        ).expect(200);
        assert.ok(
          (await unzipAll(zip.body)).get(`Docs/original-${size}.bin`)?.equals(content),
          'the zip holds the original bytes',
        );
      }
    }
  });

  it('until then a download and a zip over the damaged blob are cut short, never complete with wrong bytes, and the operator is told', async () => {
    const u = await user();
    const content = randomBytes(3 * MiB);
    const blob = (await u.storage.putFile('laptop', 'Bad/damaged.bin', content).expect(201)).body.sha256 as string;
    await u.storage.putFile('laptop', 'Bad/fine.txt', randomBytes(1000)).expect(201);
    await damageBlob(target(), blob);
    for (const url of target().urls) {
      const file = await rawRequest(`${url}${u.storage.root}/laptop/Bad/damaged.bin`, { headers: u.auth });
      assert.equal(file.status, 200);
      assert.equal(file.complete, false, 'the download is cut short');
      assert.ok(file.body.length < content.length, `${file.body.length} of ${content.length} bytes arrived`);
      const zip = await rawRequest(`${url}${u.storage.root}/laptop/Bad/?format=zip`, { headers: u.auth });
      assert.equal(zip.status, 200);
      assert.equal(zip.complete, false, 'the zip is cut short');
      assert.ok(zip.body.length < Number(zip.headers['content-length']));
      if (await hasUnzip()) await assert.rejects(unzipAll(zip.body), 'what arrived is no valid archive');
    }
    // a part of the file is served unchecked (a range cannot be checked against the whole's hash)
    const part = await bytes(
      supertest(target().url)
        .get(`${u.storage.root}/laptop/Bad/damaged.bin`)
        .set('Range', 'bytes=0-99')
        .auth(u.username, PASSWORD),
    ).expect(206);
    assert.ok(part.body.equals(content.subarray(0, 100)));
    const log = gatewayLog();
    if (log !== null) {
      await eventually(async () => {
        const now = gatewayLog()!;
        assert.match(
          now,
          new RegExp(`"blob":"${blob}".*stored bytes do not match their hash`),
          'the file download is logged',
        );
        assert.match(now, /zip download cut short.*CRC-32|CRC-32.*zip download cut short/, 'the zip is logged');
      });
    }
  });

  it('a HEAD on a zip over a blob that is gone answers the error the GET runs into, not 200', async () => {
    const u = await user();
    await u.storage.putFile('laptop', 'Gone/a.bin', randomBytes(5000)).expect(201);
    const missing = (await u.storage.putFile('laptop', 'Gone/b.bin', randomBytes(5000)).expect(201)).body
      .sha256 as string;
    await u.storage.putFile('laptop', 'Whole/c.bin', randomBytes(5000)).expect(201);
    for (const url of target().urls) {
      const before = await supertest(url).head(`${u.storage.root}/laptop/Gone/?format=zip`).auth(u.username, PASSWORD);
      assert.equal(before.status, 200);
    }
    await deleteBlob(target(), missing);
    for (const url of target().urls) {
      const head = await supertest(url).head(`${u.storage.root}/laptop/Gone/?format=zip`).auth(u.username, PASSWORD);
      assert.ok(head.status >= 500 && head.status < 600, `HEAD ${head.status}`);
      const get = await rawRequest(`${url}${u.storage.root}/laptop/Gone/?format=zip`, { headers: u.auth });
      assert.ok(get.complete === false || (get.status ?? 0) >= 500, 'the GET fails too');
      // a folder whose blobs are all there still answers 200
      await supertest(url).head(`${u.storage.root}/laptop/Whole/?format=zip`).auth(u.username, PASSWORD).expect(200);
    }
  });
}
