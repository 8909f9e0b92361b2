/**
 * Standalone keeps its read models in SQLite files (`<data>/read-models/<service>.sqlite`) with
 * their checkpoint, so a restart resumes where they were instead of replaying the event store from
 * its first event (issue 23, "Restarts resume"). Observed through the runner's start line (from
 * which position each service's read models resume) and the checkpoints in the files, never
 * through timings. A damaged or missing file is rebuilt; `admin rebuild-read-models` drops them
 * (refused while the server runs) and the next start rebuilds them.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SqliteDocumentStore } from '@burrow/documents';
import { partnerApi } from './harness/client.js';
import { basicAuth } from './harness/raw-http.js';
import { runApp } from './harness/run-app.js';
import { TEST_PARTNER, type TestTarget, testEnv } from './harness/standalone.js';
import { type StandaloneProcess, startStandaloneProcess } from './harness/standalone-process.js';
import { storageApi } from './harness/storage-client.js';
import { createUser, getUser, unique } from './scenarios/accounts-fixtures.js';

const PASSWORD = 'user-password-1';
const SERVICES = ['accounts', 'billing', 'storage-catalog'];
/** embedded stores whatever the environment says: this is about the standalone files */
const EMBEDDED = { MINIO_URL: '', MONGODB_URL: '', EVENTSTORE_URL: '', NATS_URL: '' };

/** Graceful stop (SIGTERM), as an operator's restart does. */
async function stop(server: StandaloneProcess): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  await new Promise<void>((done) => {
    server.child.once('exit', () => done());
    server.child.kill('SIGTERM');
  });
}

/** Each service's start line: the position its read models resumed from (0: built from the first event). */
function startPositions(output: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; name?: string; position?: number };
    if (
      entry.msg === 'read models resume from their checkpoint' ||
      entry.msg === 'read models are built from the first event'
    )
      out[entry.name!] = entry.position!;
  }
  return out;
}

async function checkpointPositions(dataDir: string, service: string): Promise<number> {
  const store = SqliteDocumentStore.open(join(dataDir, 'read-models', `${service}.sqlite`));
  try {
    const checkpoint = await store.readCheckpoint('projections');
    const positions = Object.values(
      (checkpoint?.state as { positions?: Record<string, number> } | undefined)?.positions ?? {},
    );
    return positions.length ? Math.min(...positions) : 0;
  } finally {
    await store.close();
  }
}

/** What the first run made is served: the user (accounts) and the file's bytes (storage catalog). */
async function assertServed(url: string, username: string): Promise<void> {
  assert.equal((await getUser(partnerApi({ url, partner: TEST_PARTNER } as TestTarget), username)).username, username);
  const root = storageApi({ url } as TestTarget, username, PASSWORD).root;
  const res = await fetch(`${url}${root}/laptop/docs/a.txt`, { headers: basicAuth(username, PASSWORD) });
  assert.equal(res.status, 200);
  assert.equal(await res.text(), 'resume me');
  const listing = await fetch(`${url}${root}/laptop/docs/`, {
    headers: { ...basicAuth(username, PASSWORD), Accept: 'application/json' },
  });
  assert.equal(listing.status, 200);
  assert.match(await listing.text(), /a\.txt/);
}

describe('standalone read models on disk: restarts resume', { timeout: 300_000 }, () => {
  it('resumes from the checkpoint; rebuilds a damaged or missing file; admin rebuild-read-models drops them (refused while running)', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'burrow-resume-'));
    let server = await startStandaloneProcess(dataDir, EMBEDDED);
    try {
      const username = unique('resume');
      await createUser(partnerApi({ url: server.url, partner: TEST_PARTNER } as TestTarget), {
        username,
        password: PASSWORD,
      });
      const storage = storageApi({ url: server.url } as TestTarget, username, PASSWORD);
      await storage.putDevice('laptop').expect(200);
      await storage.putFile('laptop', 'docs/a.txt', 'resume me').expect(201);
      assert.deepEqual(
        startPositions(server.output()),
        { accounts: 0, billing: 0, 'storage-catalog': 0 },
        'a new data directory builds them from the first event',
      );
      await stop(server);

      const saved: Record<string, number> = {};
      for (const service of SERVICES) saved[service] = await checkpointPositions(dataDir, service);
      assert.ok(saved.accounts > 0 && saved['storage-catalog'] > 0, `checkpoints were saved: ${JSON.stringify(saved)}`);

      // 1. a plain restart resumes each service from its checkpoint, and serves what was there
      server = await startStandaloneProcess(dataDir, EMBEDDED);
      assert.deepEqual(
        startPositions(server.output()),
        saved,
        'every service resumed from its checkpoint, none from the first event',
      );
      await assertServed(server.url, username);

      // 2. admin rebuild-read-models is refused while the server runs, and deletes nothing
      const env = testEnv(dataDir, EMBEDDED);
      const refused = await runApp('admin/dist/main.js', ['rebuild-read-models'], env);
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(refused.stderr, /in use by a running Burrow .*stop it first/);
      assert.ok(existsSync(join(dataDir, 'read-models', 'accounts.sqlite')));
      await stop(server);

      // 3. stopped: it drops them, and the next start rebuilds them from the first event
      const dropped = await runApp('admin/dist/main.js', ['rebuild-read-models'], env);
      assert.equal(dropped.code, 0, dropped.stderr);
      const result = JSON.parse(dropped.stdout) as { removed: string[] };
      for (const service of SERVICES)
        assert.ok(
          result.removed.includes(join(dataDir, 'read-models', `${service}.sqlite`)),
          `${service} dropped: ${dropped.stdout}`,
        );
      assert.equal(existsSync(join(dataDir, 'read-models', 'accounts.sqlite')), false);
      server = await startStandaloneProcess(dataDir, EMBEDDED);
      assert.deepEqual(startPositions(server.output()), { accounts: 0, billing: 0, 'storage-catalog': 0 });
      await assertServed(server.url, username);
      await stop(server);

      // 4. a damaged file (not a database) and a missing one are rebuilt; the intact one resumes
      const billingAt = await checkpointPositions(dataDir, 'billing');
      const catalogFile = join(dataDir, 'read-models', 'storage-catalog.sqlite');
      for (const suffix of ['-wal', '-shm']) await rm(catalogFile + suffix, { force: true });
      await writeFile(catalogFile, Buffer.alloc(8192, 0x5a));
      for (const suffix of ['', '-wal', '-shm'])
        await rm(join(dataDir, 'read-models', `accounts.sqlite${suffix}`), { force: true });
      server = await startStandaloneProcess(dataDir, EMBEDDED);
      assert.deepEqual(startPositions(server.output()), { accounts: 0, billing: billingAt, 'storage-catalog': 0 });
      assert.match(server.output(), /the read-model file could not be read/);
      await assertServed(server.url, username);
    } finally {
      await stop(server).catch(() => undefined);
      await server.kill();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
