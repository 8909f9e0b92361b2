/**
 * What a crash in the middle of an upload leaves is cleared at the next start (issue 17, defect
 * 6), not a day later: the process writing an upload is killed with SIGKILL while the upload's
 * temporary file grows (several MB), and the temporary file is gone soon after that process
 * starts again, with the blob reaper's grace (a day) untouched. A temporary file of a process
 * that still runs is left alone. Both modes: standalone (its one process killed), and
 * multi-process (a gateway killed and started again). Local blob folder in both (MinIO's
 * temporaries are the BlobStore contract's `sweepAbandoned`).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { partnerApi } from './harness/client.js';
import { natsUrlForTests, startMultiProcess } from './harness/multi-process.js';
import { basicAuth, rawRequest } from './harness/raw-http.js';
import { TEST_PARTNER, type TestTarget } from './harness/standalone.js';
import { startStandaloneProcess } from './harness/standalone-process.js';
import { storageApi } from './harness/storage-client.js';
import { createUser, eventually, unique } from './scenarios/accounts-fixtures.js';

const PASSWORD = 'user-password-1';
const MiB = 1024 * 1024;
/** local blobs whatever the environment says, so that the temporary files can be watched */
const LOCAL_BLOBS = { MINIO_URL: '' };

const temporaries = async (dataDir: string) => {
  const tmp = join(dataDir, 'blobs', 'tmp');
  return existsSync(tmp) ? readdir(tmp) : [];
};

/** Starts an upload that sends `bytes` then stalls, and waits until its temporary file holds most of them. */
async function stalledUpload(dataDir: string, url: string, bytes: number): Promise<string> {
  const username = unique('orphan');
  await createUser(partnerApi({ url, partner: TEST_PARTNER } as TestTarget), { username, password: PASSWORD });
  const storage = storageApi({ url } as TestTarget, username, PASSWORD);
  await storage.putDevice('laptop').expect(200);
  const chunk = Buffer.alloc(256 * 1024, 7);
  void rawRequest(`${url}${storage.root}/laptop/big.bin`, {
    method: 'PUT',
    headers: basicAuth(username, PASSWORD),
    body: Array.from({ length: bytes / chunk.length }, () => ({ chunk })),
    stallAfterBody: true,
    timeoutMs: 120_000,
  }).catch(() => undefined);
  return eventually(
    async () => {
      const [name] = await temporaries(dataDir);
      assert.ok(name, 'the upload has a temporary file');
      const size = (await stat(join(dataDir, 'blobs', 'tmp', name))).size;
      assert.ok(size >= bytes / 2, `its temporary file holds ${size} bytes`);
      return name;
    },
    30_000,
    100,
  );
}

describe('temporary files of uploads cut by a crash are removed at the next start', () => {
  it('standalone: killed mid-upload, started again: the temporary file is gone', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'burrow-orphans-'));
    let server = await startStandaloneProcess(dataDir, LOCAL_BLOBS);
    try {
      const left = await stalledUpload(dataDir, server.url, 8 * MiB);
      await server.kill();
      assert.deepEqual(await temporaries(dataDir), [left], 'the crash left the temporary file');
      server = await startStandaloneProcess(dataDir, LOCAL_BLOBS);
      await eventually(async () => assert.deepEqual(await temporaries(dataDir), []), 30_000, 200);
      // the log line follows the removal: wait for it, not for the moment the folder empties
      await eventually(
        async () => assert.match(server.output(), /"abandoned":1|"removed":1/, 'the start reports it'),
        10_000,
        100,
      );
    } finally {
      await server.kill();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  const natsUrl = natsUrlForTests();
  it(
    'multi-process: a gateway killed mid-upload and started again removes it; an upload under way on the other gateway is left alone',
    { skip: natsUrl ? false : 'NATS_URL not set and no nats-server found' },
    async () => {
      const target = await startMultiProcess(natsUrl!, LOCAL_BLOBS);
      try {
        const [first, second] = target.urls;
        const left = await stalledUpload(target.dataDir, first, 8 * MiB);
        target.killApp('gateway');
        await target.exited('gateway');
        assert.deepEqual(await temporaries(target.dataDir), [left]);
        // the second gateway comes back first and takes an upload that stays under way
        target.startApp('gateway', { PORT: new URL(second).port });
        await eventually(async () => assert.equal((await fetch(`${second}/readyz`)).status, 200), 90_000, 200);
        await eventually(async () => assert.deepEqual(await temporaries(target.dataDir), []), 30_000, 200);
        const underWay = await stalledUpload(target.dataDir, second, 4 * MiB);
        target.startApp('gateway', { PORT: new URL(first).port, LOG_LEVEL: 'info' });
        await eventually(async () => assert.equal((await fetch(`${first}/readyz`)).status, 200), 90_000, 200);
        // its start-up sweep has run (the line it logs at every start), and left the live upload alone
        await eventually(
          async () => {
            const restarted = target
              .processes()
              .filter((p) => p.name.startsWith('gateway'))
              .at(-1)!;
            assert.match(restarted.output, /swept what uploads of processes that no longer run left/);
          },
          30_000,
          50,
        );
        assert.deepEqual(
          await temporaries(target.dataDir),
          [underWay],
          'the upload of a live gateway keeps its temporary file',
        );
      } finally {
        await target.close();
      }
    },
  );
});
