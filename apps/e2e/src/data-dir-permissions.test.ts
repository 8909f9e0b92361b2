/**
 * The data directory holds password hashes and personal data (the event store), the signing key
 * and the stored files: it must be private to Burrow's user whatever the umask. The test runs with
 * umask 0, so any file or folder created with a default mode would show up as world-readable.
 */
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { LocalBlobStore } from '@burrow/blobs';
import { startStandalone } from './harness/standalone.js';

const mode = async (path: string) => (await stat(path)).mode & 0o777;

async function walk(dir: string, out: string[] = []): Promise<string[]> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    out.push(path);
    if (entry.isDirectory()) await walk(path, out);
  }
  return out;
}

describe('data directory permissions', () => {
  let parent: string;
  let previousUmask: number;
  before(async () => {
    previousUmask = process.umask(0);
    parent = await mkdtemp(join(tmpdir(), 'burrow-perm-'));
  });
  after(async () => {
    process.umask(previousUmask);
    await rm(parent, { recursive: true, force: true });
  });

  it('a fresh data dir is 0700 and everything in it is owner-only', async () => {
    const dir = join(parent, 'fresh', 'data');
    // no BURROW_SECRET: the generated secret.key is written too
    const target = await startStandalone({ BURROW_SECRET: '' }, dir);
    try {
      // stored files go through the blob folder adapter the gateway and storage catalog use
      await new LocalBlobStore(join(dir, 'blobs')).put(Readable.from([Buffer.from('personal data')]));
      assert.equal(await mode(dir), 0o700, 'data dir');
      for (const name of ['events.sqlite', 'events.sqlite-wal', 'events.sqlite-shm', 'secret.key']) {
        assert.equal(await mode(join(dir, name)), 0o600, name);
      }
      const blobEntries = await walk(join(dir, 'blobs'));
      assert.ok(
        blobEntries.some((p) => /[0-9a-f]{64}$/.test(p)),
        'a blob was stored',
      );
      for (const path of blobEntries) {
        const s = await stat(path);
        assert.equal(s.mode & 0o777, s.isDirectory() ? 0o700 : 0o600, path);
      }
    } finally {
      await target.close();
    }
  });

  it('an existing data dir left readable by an older version is made private at start', async () => {
    const dir = join(parent, 'older');
    let target = await startStandalone({ BURROW_SECRET: '' }, dir);
    await target.close();
    await chmod(dir, 0o755);
    for (const name of ['events.sqlite', 'secret.key']) await chmod(join(dir, name), 0o644);

    target = await startStandalone({ BURROW_SECRET: '' }, dir);
    try {
      assert.equal(await mode(dir), 0o700, 'data dir');
      for (const name of ['events.sqlite', 'events.sqlite-wal', 'events.sqlite-shm', 'secret.key']) {
        assert.equal(await mode(join(dir, name)), 0o600, name);
      }
    } finally {
      await target.close();
    }
  });
});
