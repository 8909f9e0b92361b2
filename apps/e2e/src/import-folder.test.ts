/**
 * `npm run admin -- import-folder`: the CLI as an operator runs it (a child process) against a
 * running standalone server, through the gateway's storage interface. What it uploaded is read
 * back through that interface, byte for byte; re-runs upload only what changed.
 */
import type { ImportSummary as Summary } from '@burrow/admin';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { partnerApi } from './harness/client.js';
import { bytes } from './harness/http-bytes.js';
import { runApp } from './harness/run-app.js';
import { startStandalone, type TestTarget } from './harness/standalone.js';
import { b32 } from './harness/storage-client.js';

const USER = 'importer';
const PASSWORD = 'importer-password-1';
const DEVICE = 'old-laptop';

interface StoredFile {
  bytes: Buffer;
  versions: number;
  mtime: number;
}

describe('admin CLI: import-folder', () => {
  let target: TestTarget;
  let folder: string;
  const originals: Record<string, Buffer> = {
    'notes.txt': Buffer.from('first notes\n'),
    'empty.txt': Buffer.alloc(0),
    'Documents/report.txt': Buffer.from('quarterly report'),
    'Documents/Sub dir/résumé ü.txt': Buffer.from('accents et espaces'),
    'Documents/big.bin': randomBytes(3 * 1024 * 1024 + 17),
  };
  const totalBytes = Object.values(originals).reduce((n, b) => n + b.length, 0);

  const env = (extra: Record<string, string> = {}) => ({
    BURROW_URL: target.url,
    BURROW_USER_PASSWORD: PASSWORD,
    ...extra,
  });
  const importFolder = (
    args: string[] = ['--user', USER, '--device', DEVICE, folder],
    extra: Record<string, string> = {},
  ) => runApp('admin/dist/main.js', ['import-folder', ...args], env(extra));
  const summaryOf = (run: { code: number | null; stdout: string; stderr: string }, code = 0): Summary => {
    assert.equal(run.code, code, `exit ${run.code}: ${run.stderr}`);
    return JSON.parse(run.stdout) as Summary;
  };

  const storage = () => supertest(target.url);
  const get = (path: string) => storage().get(path).auth(USER, PASSWORD);

  /** Every file of the device, read through the storage interface: its listing, then its bytes. */
  async function storedFiles(): Promise<Map<string, StoredFile>> {
    const files = new Map<string, StoredFile>();
    const deviceUrl = `/storage/${b32(USER)}/${encodeURIComponent(DEVICE)}/`;
    const visit = async (url: string, prefix: string): Promise<void> => {
      const listing = (await get(url).expect(200)).body as {
        dirs: [string, string][];
        files: { name: string; url: string; size: number; mtime: number; versions: number }[];
      };
      for (const f of listing.files) {
        const content = (await bytes(get(url + f.url)).expect(200)).body as Buffer;
        assert.equal(content.length, f.size, `${prefix}${f.name}: listed size`);
        files.set(prefix + f.name, { bytes: content, versions: f.versions, mtime: f.mtime });
      }
      for (const [name, sub] of listing.dirs) await visit(url + sub, `${prefix}${name}/`);
    };
    await visit(deviceUrl, '');
    return files;
  }

  const devices = async () => (await get(`/storage/${b32(USER)}/`).expect(200)).body.devices as [string, string][];

  before(async () => {
    target = await startStandalone();
    await partnerApi(target)
      .post('/users/', { username: USER, name: 'Im Porter', email: 'importer@example.com', password: PASSWORD })
      .expect(201);
    folder = await mkdtemp(join(tmpdir(), 'burrow-import-'));
    for (const [path, content] of Object.entries(originals)) {
      await mkdir(join(folder, path, '..'), { recursive: true });
      await writeFile(join(folder, path), content);
    }
    await symlink(join(folder, 'notes.txt'), join(folder, 'Documents', 'link-to-notes'));
  });

  after(async () => {
    await target?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('missing arguments, a PATH that is no folder, no password: exit 2, nothing touched', async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [[], {}, /import-folder needs --user, --device, PATH/],
      [['--user', USER, folder], {}, /needs --device/],
      [['--user', USER, '--device', DEVICE], {}, /needs PATH/],
      [['--user', USER, '--device', DEVICE, join(folder, 'notes.txt')], {}, /is not a folder/],
      [['--user', USER, '--device', DEVICE, folder, 'extra'], {}, /extra/],
      [['--user', USER, '--device', DEVICE, '--password', PASSWORD, folder], {}, /--password/],
      [['--user', USER, '--device', DEVICE, folder], { BURROW_USER_PASSWORD: '' }, /BURROW_USER_PASSWORD/],
    ];
    for (const [args, extra, message] of cases) {
      const run = await importFolder(args, extra);
      assert.equal(run.code, 2, `${args.join(' ')}: exit ${run.code}, ${run.stderr}`);
      assert.match(run.stderr, message, args.join(' '));
      assert.equal(run.stdout, '');
    }
    assert.deepEqual(await devices(), [], 'no device was registered');
  });

  it('a wrong password: exit 1 with a clear message, nothing uploaded', async () => {
    const run = await importFolder(undefined, { BURROW_USER_PASSWORD: 'not-the-password' });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /refused the credentials of importer \(401: wrong username or password\)/);
    assert.doesNotMatch(run.stderr, /not-the-password/, 'the password is never printed');
    assert.equal(run.stdout, '');
    assert.deepEqual(await devices(), []);
  });

  it('imports every file byte-exact; a re-run uploads nothing; a changed file is uploaded again, alone', async () => {
    const first = summaryOf(await importFolder());
    assert.deepEqual(first.files, { uploaded: 5, unchanged: 0, skipped: 1, failed: 0 });
    assert.equal(first.bytes_uploaded, totalBytes);
    assert.deepEqual(first.skipped, [{ path: 'Documents/link-to-notes', reason: 'symlink' }]);
    assert.ok(first.seconds > 0 && first.mb_per_second >= 0);
    assert.deepEqual(
      (await devices()).map(([name]) => name),
      [DEVICE],
    );
    // registered with a platform clients know (their icons): linux2, win32 or darwin as Node names them
    const info = (await get(`/storage/${b32(USER)}/?device_info=yes`).expect(200)).body.devices as {
      name: string;
      sysplatform: string;
    }[];
    assert.equal(
      info.find((d) => d.name === DEVICE)?.sysplatform,
      { linux: 'linux2', win32: 'win32', darwin: 'darwin' }[process.platform as string] ?? process.platform,
    );

    let stored = await storedFiles();
    assert.deepEqual(
      [...stored.keys()].sort(),
      Object.keys(originals).sort(),
      'exactly the regular files, the symlink not followed',
    );
    for (const [path, content] of Object.entries(originals)) {
      assert.ok(stored.get(path)!.bytes.equals(content), `${path} read back byte-exact`);
      assert.equal(stored.get(path)!.versions, 1, path);
    }

    const again = summaryOf(await importFolder());
    assert.deepEqual(again.files, { uploaded: 0, unchanged: 5, skipped: 1, failed: 0 });
    assert.equal(again.bytes_uploaded, 0);
    stored = await storedFiles();
    for (const path of Object.keys(originals))
      assert.equal(stored.get(path)!.versions, 1, `${path}: still one version`);

    // the same size, a new mtime: changed all the same
    const changed = Buffer.from('QUARTERLY REPORT');
    await writeFile(join(folder, 'Documents/report.txt'), changed);
    const later = new Date(Date.now() + 120_000);
    await utimes(join(folder, 'Documents/report.txt'), later, later);
    const third = summaryOf(await importFolder());
    assert.deepEqual(third.files, { uploaded: 1, unchanged: 4, skipped: 1, failed: 0 });
    assert.equal(third.bytes_uploaded, changed.length);
    stored = await storedFiles();
    assert.equal(stored.get('Documents/report.txt')!.versions, 2);
    assert.ok(stored.get('Documents/report.txt')!.bytes.equals(changed));
    assert.equal(stored.get('Documents/report.txt')!.mtime, Math.floor(later.getTime() / 1000));
    for (const path of Object.keys(originals).filter((p) => p !== 'Documents/report.txt'))
      assert.equal(stored.get(path)!.versions, 1, path);
  });

  it('a path the storage refuses and an unreadable file are reported, the rest goes on: exit 1 with the failures listed', async () => {
    // a backslash is a legal name (stored), 65 folder levels are more than a path may have (refused)
    await writeFile(join(folder, 'back\\slash.txt'), 'a legal name');
    const deep = Array.from({ length: 65 }, (_, i) => `d${i}`).join('/');
    await mkdir(join(folder, deep), { recursive: true });
    await writeFile(join(folder, deep, 'too-deep.txt'), 'refused path');
    const unreadable = process.getuid?.() !== 0; // root reads anything
    if (unreadable) {
      await writeFile(join(folder, 'Documents', 'secret.txt'), 'no access');
      await chmod(join(folder, 'Documents', 'secret.txt'), 0o000);
    }
    await writeFile(join(folder, 'new.txt'), 'a new file');
    const run = await importFolder();
    const summary = summaryOf(run, 1);
    assert.deepEqual(summary.files, { uploaded: 2, unchanged: 5, skipped: 1, failed: unreadable ? 2 : 1 });
    const failures = new Map(summary.failures.map((f) => [f.path, f.reason]));
    // the importer lists the stored folder before its files: the folder too deep is what fails
    assert.match(failures.get(deep) ?? JSON.stringify(summary.failures), /400 a path is at most 64 levels deep/);
    if (unreadable) assert.match(failures.get('Documents/secret.txt') ?? '', /cannot read.*EACCES/);
    assert.match(run.stderr, /failed: d0\/d1\/.*d64/, 'failures are reported on stderr as they happen');
    const stored = await storedFiles();
    assert.ok(stored.get('new.txt')?.bytes.equals(Buffer.from('a new file')));
    assert.ok(stored.get('back\\slash.txt')?.bytes.equals(Buffer.from('a legal name')));
    assert.ok(![...stored.keys()].some((path) => path.endsWith('too-deep.txt')));
  });
});
