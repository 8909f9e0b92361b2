/**
 * A full disk (issue 17, defect 4), for real: the data directory is on a small tmpfs mounted for
 * the test (`mount -t tmpfs -o size=48m`; the suite skips, saying why, where it cannot mount), and
 * the disk is filled with a plain file, so the errors are the kernel's own ENOSPC and SQLite's own
 * SQLITE_FULL. No fault-injection seam.
 *
 * - Free space just above the threshold (BURROW_MIN_FREE_DISK_MB): an upload bigger than what is
 *   free fills the disk while its temporary file grows: 507 with a reason, the temporary file
 *   gone, no blob, no version.
 * - Below the threshold: /readyz is 503 naming the low disk, uploads are refused with 507 up front,
 *   and a device login still succeeds (the event log keeps room).
 * - Full: device registrations and user creates answer 507 (SQLITE_FULL), never 500.
 * - Space freed: everything works again without a restart; the user whose create hit the full
 *   disk can be created (its half-done multi-step write is settled by recovery); the listing holds
 *   exactly the committed files.
 *
 * Both modes: standalone (one process), and multi-process (two gateways writing the blob folder,
 * the services sharing the SQLite file on the tmpfs).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, rm, rmdir, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { partnerApi } from './harness/client.js';
import { natsUrlForTests, startMultiProcess } from './harness/multi-process.js';
import { basicAuth, rawRequest } from './harness/raw-http.js';
import { TEST_PARTNER, type TestTarget } from './harness/standalone.js';
import { startStandaloneProcess } from './harness/standalone-process.js';
import { storageApi } from './harness/storage-client.js';
import { eventually, unique } from './scenarios/accounts-fixtures.js';

const MiB = 1024 * 1024;
const PASSWORD = 'user-password-1';
const THRESHOLD_MIB = 4;
/** local state only: the blob folder and the SQLite event store on the tmpfs, read models in memory */
const ENV = {
  MINIO_URL: '',
  EVENTSTORE_URL: '',
  MONGODB_URL: '',
  BURROW_MIN_FREE_DISK_MB: String(THRESHOLD_MIB),
  // a create cut by the full disk leaves a pending multi-step write: settled soon after space returns
  BURROW_RECOVERY_GRACE_SECONDS: '1',
  BURROW_RECOVERY_INTERVAL_MS: '500',
};

/** A tmpfs of `sizeMiB` at a fresh folder, or why there cannot be one here. */
async function mountTmpfs(sizeMiB: number): Promise<{ dir: string; unmount: () => Promise<void> } | string> {
  const dir = await mkdtemp(join(tmpdir(), 'burrow-fulldisk-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=0700`, 'tmpfs', dir], {
    encoding: 'utf8',
  });
  if (mounted.status !== 0) {
    await rmdir(dir);
    return `cannot mount a tmpfs here (${(mounted.stderr || mounted.error?.message || '').trim()}): run as root`;
  }
  return {
    dir,
    unmount: async () => {
      spawnSync('umount', ['-l', dir]);
      await rmdir(dir).catch(() => undefined);
    },
  };
}

const freeBytes = async (dir: string) => {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
};

/** Writes `file` until the file system has about `leave` bytes free (0: until it is full). */
async function fill(dir: string, name: string, leave: number): Promise<void> {
  const handle = await open(join(dir, name), 'a');
  const chunk = Buffer.alloc(256 * 1024, 1);
  try {
    for (;;) {
      const free = await freeBytes(dir);
      if (free <= leave) return;
      const size = Math.min(chunk.length, free - leave);
      try {
        await handle.write(chunk, 0, size);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOSPC') return;
        throw error;
      }
    }
  } finally {
    await handle.close();
  }
}

const temporaries = async (dataDir: string) => {
  const tmp = join(dataDir, 'blobs', 'tmp');
  return existsSync(tmp) ? readdir(tmp) : [];
};

const reasonOf = (body: Buffer | string) => (JSON.parse(body.toString()) as { reason: string }).reason;

/** The scenario on a running target whose data directory is `dataDir` (on the tmpfs `disk`). */
async function fullDiskScenario(target: TestTarget, disk: string, dataDir: string): Promise<void> {
  const partner = partnerApi(target);
  const username = unique('disk');
  const created = await partner.post('/users/', {
    username,
    name: 'Disk User',
    email: `${username}@example.com`,
    password: PASSWORD,
  });
  assert.equal(created.status, 201, created.text);
  const storage = storageApi(target, username, PASSWORD);
  await storage.putDevice('laptop').expect(200);
  await storage.putFile('laptop', 'docs/before.txt', 'stored before the disk filled').expect(201);
  const fileUrl = (url: string, name: string) => `${url}${storage.root}/laptop/docs/${name}`;

  // 1. just above the threshold: an upload bigger than what is free fills the disk mid-write
  await fill(disk, 'filler-1', (THRESHOLD_MIB + 4) * MiB);
  for (const url of target.urls) {
    const chunk = Buffer.alloc(256 * 1024, 9);
    const res = await rawRequest(fileUrl(url, 'too-big.bin'), {
      method: 'PUT',
      headers: basicAuth(username, PASSWORD),
      body: Array.from({ length: (16 * MiB) / chunk.length }, () => ({ chunk })),
      timeoutMs: 60_000,
    });
    assert.equal(res.status, 507, `${res.status} ${res.error?.message ?? res.body.toString()}`);
    assert.match(reasonOf(res.body), /disk space/);
    assert.deepEqual(await temporaries(dataDir), [], 'the temporary file is removed at once');
    await supertest(url).get(`${storage.root}/laptop/docs/too-big.bin`).auth(username, PASSWORD).expect(404);
  }
  assert.ok((await freeBytes(disk)) >= (THRESHOLD_MIB + 3) * MiB, 'the space the upload took is given back');
  assert.equal((await fetch(`${target.url}/readyz`)).status, 200, 'above the threshold: ready');

  // 2. below the threshold: reported, uploads refused up front, small writes still room
  await fill(disk, 'filler-2', 2 * MiB);
  const ready = await fetch(`${target.url}/readyz`);
  assert.equal(ready.status, 503);
  const readyBody = (await ready.json()) as { checks: Record<string, string> };
  assert.match(readyBody.checks.disk, /low disk space: .* below 4\.0 MiB \(BURROW_MIN_FREE_DISK_MB\)/);
  for (const url of target.urls) {
    const res = await rawRequest(fileUrl(url, 'small.txt'), {
      method: 'PUT',
      headers: basicAuth(username, PASSWORD),
      body: [{ chunk: Buffer.from('small') }],
    });
    assert.equal(res.status, 507, res.body.toString());
    assert.match(reasonOf(res.body), /low on disk space/);
  }
  await storage.putDevice('laptop').expect(200);

  // 3. full: the event store cannot grow. Device logins and user creates are refused with 507
  // (SQLite may first reuse room in its write-ahead log: keep writing until it is used up)
  await fill(disk, 'filler-3', 0);
  let registration = 0;
  for (let i = 0; registration !== 507 && i < 3000; i++) {
    const res = await storage.putDevice('laptop');
    registration = res.status;
    assert.ok(res.status === 200 || res.status === 507, `a device login on a full disk: ${res.status} ${res.text}`);
    if (res.status === 507) assert.match(res.body.reason, /no disk space left/);
  }
  assert.equal(registration, 507, 'a device login on a full disk is refused with 507');
  const refusedName = unique('refused');
  const refused = await partner.post('/users/', {
    username: refusedName,
    name: 'Refused',
    email: `${refusedName}@example.com`,
    password: PASSWORD,
  });
  assert.equal(refused.status, 507, refused.text);
  assert.match(refused.body.reason, /no disk space left/);

  // 4. space freed: everything works again, by itself
  for (const name of ['filler-1', 'filler-2', 'filler-3']) await rm(join(disk, name));
  await eventually(async () => assert.equal((await fetch(`${target.url}/readyz`)).status, 200), 30_000, 200);
  await storage.putDevice('laptop').expect(200);
  for (const url of target.urls) {
    const res = await rawRequest(fileUrl(url, `after-${new URL(url).port}.txt`), {
      method: 'PUT',
      headers: basicAuth(username, PASSWORD),
      body: [{ chunk: Buffer.from('stored after') }],
    });
    assert.equal(res.status, 201, res.body.toString());
  }
  // the refused create left no reservation behind (recovery settles what it had begun)
  await eventually(
    async () => {
      const again = await partner.post('/users/', {
        username: refusedName,
        name: 'Refused',
        email: `${refusedName}@example.com`,
        password: PASSWORD,
      });
      assert.equal(again.status, 201, again.text);
    },
    30_000,
    500,
  );
  const listing = await supertest(target.url).get(`${storage.root}/laptop/docs/`).auth(username, PASSWORD).expect(200);
  const names = (listing.body.files as { name: string }[]).map((f) => f.name).sort();
  assert.deepEqual(names, ['before.txt', ...target.urls.map((u) => `after-${new URL(u).port}.txt`)].sort());
  assert.deepEqual(await temporaries(dataDir), []);
}

describe('a full disk answers 507, leaves nothing half-written, and recovers once space is freed', () => {
  let disk: { dir: string; unmount: () => Promise<void> } | string;
  before(async () => {
    disk = await mountTmpfs(48);
  });
  after(async () => {
    if (typeof disk !== 'string') await disk.unmount();
  });

  it('standalone', async (t) => {
    if (typeof disk === 'string') return t.skip(disk);
    const dataDir = join(disk.dir, 'standalone');
    await mkdir(dataDir);
    const server = await startStandaloneProcess(dataDir, ENV);
    try {
      await fullDiskScenario(
        { url: server.url, urls: [server.url], partner: TEST_PARTNER } as TestTarget,
        disk.dir,
        dataDir,
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- server output ---\n${server.output().slice(-6000)}`, {
        cause: error,
      });
    } finally {
      await server.kill();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  const natsUrl = natsUrlForTests();
  it(
    'multi-process: two gateways writing the blob folder, the services sharing the SQLite file',
    { skip: natsUrl ? false : 'NATS_URL not set and no nats-server found' },
    async (t) => {
      if (typeof disk === 'string') return t.skip(disk);
      const dataDir = join(disk.dir, 'multi');
      await mkdir(dataDir);
      const target = await startMultiProcess(
        natsUrl!,
        { ...ENV, BURROW_DATA_DIR: dataDir },
        { productionServers: false },
      );
      try {
        await fullDiskScenario(target, disk.dir, dataDir);
      } finally {
        await target.close();
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  );
});
