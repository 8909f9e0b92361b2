/**
 * COPY and MOVE through the handlers on the real event store and blob folder: no byte is copied
 * (the destination names the same blob), a copy counts in the usage like an upload of the same
 * bytes and a move does not, dead properties and modification times go along, a folder goes with
 * its made (empty) subfolders over several requests, and the WebDAV refusals (403, 409, 412).
 * Crash recovery of a file move: killed at every step, recovered on restart, all or nothing.
 */
import { crashAt, committed, stepsOf, untilCrashed } from '@burrow/eventsourcing';
import type { PathStat, TransferRequest } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  cleanUpTestStorage,
  expectError,
  restartStorage,
  startTestStorage,
  type TestStorage,
  type TestUser,
} from '../testing/test-context.js';
import { TransfersHandlers } from './transfers.handlers.js';

after(cleanUpTestStorage);

async function setUp(crash?: ReturnType<typeof crashAt>): Promise<{ t: TestStorage; user: TestUser }> {
  const t = await startTestStorage(crash ? { faults: crash.faults } : {});
  const user = await t.createUser(await t.createPartner());
  await t.registerDevice(user, 'laptop');
  await t.registerDevice(user, 'desktop');
  return { t, user };
}

/** Runs a transfer to the end, following its cursor; how many requests it took. */
async function transfer(
  handlers: TransfersHandlers,
  req: TransferRequest,
): Promise<{ replaced: boolean; requests: number }> {
  let reply = await handlers.transfer(req);
  let requests = 1;
  while (reply.next) {
    reply = await handlers.transfer({ ...req, cursor: reply.next });
    requests += 1;
  }
  return { replaced: reply.replaced, requests };
}

const blobCount = async (t: TestStorage) =>
  (await readdir(join(t.dir, 'blobs'), { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).length;

async function tree(t: TestStorage, user: TestUser, device: string, path = ''): Promise<string[]> {
  const s = (await t.folders.stat({ userId: user.userId, device, path, members: { limit: 5000 } })) as Extract<
    PathStat,
    { kind: 'folder' }
  >;
  const out: string[] = [];
  for (const d of s.members!.dirs) out.push(d.path, ...(await tree(t, user, device, d.path)));
  for (const f of s.members!.files) out.push(`${f.path}=${f.size}@${f.mtime}`);
  return out;
}

describe('COPY and MOVE of files', () => {
  it('copy: a new version naming the same blob, counted in the usage; props and mtime go along', async () => {
    const { t, user } = await setUp();
    try {
      await t.files.commit({
        userId: user.userId,
        device: 'laptop',
        path: 'a.txt',
        ...(await putBlob(t, 'hello')),
        mtime: 1_600_000_000,
      });
      await t.folders.setProperties({
        userId: user.userId,
        device: 'laptop',
        path: 'a.txt',
        set: { '{urn:x}p': 'v' },
        remove: [],
      });
      const blobs = await blobCount(t);
      const reply = await transfer(t.transfers, {
        userId: user.userId,
        mode: 'copy',
        from: { device: 'laptop', path: 'a.txt' },
        to: { device: 'desktop', path: 'b.txt' },
        overwrite: true,
      });
      assert.equal(reply.replaced, false);
      const copy = await t.folders.stat({ userId: user.userId, device: 'desktop', path: 'b.txt' });
      const original = await t.folders.stat({ userId: user.userId, device: 'laptop', path: 'a.txt' });
      assert.ok(copy.kind === 'file' && original.kind === 'file');
      assert.equal(copy.file.blob, original.file.blob);
      assert.equal(copy.file.mtime, 1_600_000_000);
      assert.deepEqual(copy.props, { '{urn:x}p': 'v' });
      assert.equal(await blobCount(t), blobs, 'no byte copied');
      assert.equal(await t.usage(user.userId), 10);
    } finally {
      await t.close();
    }
  });

  it('move: the destination gets the latest version, the source is gone, the usage unchanged; device figures follow', async () => {
    const t = await startTestStorage();
    try {
      const user = await t.createUser(await t.createPartner({ autopurge_interval: 30, versionpurge_interval: 30 }));
      await t.registerDevice(user, 'laptop');
      await t.registerDevice(user, 'desktop');
      await t.upload(user, 'laptop', 'dir/a.txt', 'old');
      await t.upload(user, 'laptop', 'dir/a.txt', 'newer');
      await t.folders.setProperties({
        userId: user.userId,
        device: 'laptop',
        path: 'dir/a.txt',
        set: { '{urn:x}p': 'v' },
        remove: [],
      });
      await transfer(t.transfers, {
        userId: user.userId,
        mode: 'move',
        from: { device: 'laptop', path: 'dir/a.txt' },
        to: { device: 'desktop', path: 'b.txt' },
        overwrite: true,
      });
      await expectError(t.folders.stat({ userId: user.userId, device: 'laptop', path: 'dir/a.txt' }), 404);
      await expectError(t.folders.stat({ userId: user.userId, device: 'laptop', path: 'dir' }), 404);
      const moved = await t.folders.stat({ userId: user.userId, device: 'desktop', path: 'b.txt' });
      assert.ok(moved.kind === 'file');
      assert.equal(moved.file.size, 5);
      assert.deepEqual(moved.props, { '{urn:x}p': 'v' });
      assert.equal(await t.usage(user.userId), 8, 'old (3) + newer (5), counted once');
      const root = await t.root(user);
      assert.deepEqual(root.devices.map((d) => [d.name, d.bytes]).sort(), [
        ['desktop', 5],
        ['laptop', 3],
      ]);
      // the moved version is stored once: the purger, later, takes off exactly what is left
      t.clock.advance(400 * 86_400);
      await t.purge();
      assert.equal(await t.usage(user.userId), 5);
    } finally {
      await t.close();
    }
  });

  it('refusals: the same path (403), a missing destination folder (409), an existing destination with Overwrite F (412), a device (403), nothing there (404)', async () => {
    const { t, user } = await setUp();
    try {
      await t.upload(user, 'laptop', 'a.txt', 'a');
      await t.upload(user, 'laptop', 'b.txt', 'b');
      const req = (from: string, to: string, overwrite = true, device = 'laptop'): TransferRequest => ({
        userId: user.userId,
        mode: 'move',
        from: { device: 'laptop', path: from },
        to: { device, path: to },
        overwrite,
      });
      await expectError(t.transfers.transfer(req('a.txt', 'a.txt')), 403);
      await expectError(t.transfers.transfer(req('a.txt', 'no/such/a.txt')), 409);
      await expectError(t.transfers.transfer(req('a.txt', 'x.txt', true, 'nodevice')), 409);
      await expectError(t.transfers.transfer(req('a.txt', 'b.txt', false)), 412);
      await expectError(t.transfers.transfer(req('', 'x/')), 403);
      await expectError(t.transfers.transfer(req('none.txt', 'x.txt')), 404);
      const other = await t.createUser(await t.createPartner());
      await expectError(t.transfers.transfer({ ...req('a.txt', 'c.txt'), userId: other.userId }), 404);
      // Overwrite T over a file: a new version of it, the moved content
      assert.equal((await transfer(t.transfers, req('a.txt', 'b.txt'))).replaced, true);
      const b = await t.folders.stat({ userId: user.userId, device: 'laptop', path: 'b.txt' });
      assert.ok(b.kind === 'file' && b.file.version === 1 && b.file.size === 1);
    } finally {
      await t.close();
    }
  });
});

describe('COPY and MOVE of folders', () => {
  it('a folder with nested and empty folders, over several requests; a copy leaves the source, a move removes it', async () => {
    const t = await startTestStorage();
    const handlers = new TransfersHandlers(t.ctx, { batchMs: 0 });
    try {
      const user = await t.createUser(await t.createPartner());
      await t.registerDevice(user, 'laptop');
      for (const path of ['src/a.txt', 'src/sub/b.txt', 'src/sub/deeper/c.txt'])
        await t.upload(user, 'laptop', path, path);
      await t.folders.make({ userId: user.userId, device: 'laptop', path: 'src/empty/' });
      await t.folders.setProperties({
        userId: user.userId,
        device: 'laptop',
        path: 'src/sub',
        set: { '{urn:x}p': 'v' },
        remove: [],
      });
      const before = await tree(t, user, 'laptop', 'src/');
      const copied = await transfer(handlers, {
        userId: user.userId,
        mode: 'copy',
        from: { device: 'laptop', path: 'src' },
        to: { device: 'laptop', path: 'copy/' },
        overwrite: false,
      });
      assert.ok(copied.requests > 3, `went on over ${copied.requests} requests`);
      assert.deepEqual(
        await tree(t, user, 'laptop', 'copy/'),
        before.map((p) => p.replaceAll('src/', 'copy/')),
      );
      assert.deepEqual(await tree(t, user, 'laptop', 'src/'), before);
      const sub = await t.folders.stat({ userId: user.userId, device: 'laptop', path: 'copy/sub' });
      assert.ok(sub.kind === 'folder' && sub.folder.props['{urn:x}p'] === 'v');
      const usage = await t.usage(user.userId);
      await transfer(handlers, {
        userId: user.userId,
        mode: 'move',
        from: { device: 'laptop', path: 'src/' },
        to: { device: 'laptop', path: 'moved' },
        overwrite: false,
      });
      await expectError(t.folders.stat({ userId: user.userId, device: 'laptop', path: 'src' }), 404);
      assert.deepEqual(
        await tree(t, user, 'laptop', 'moved/'),
        before.map((p) => p.replaceAll('src/', 'moved/')),
      );
      assert.equal(await t.usage(user.userId), usage, 'a move does not change the usage');
      // into itself
      await expectError(
        handlers.transfer({
          userId: user.userId,
          mode: 'move',
          from: { device: 'laptop', path: 'moved/' },
          to: { device: 'laptop', path: 'moved/sub/x/' },
          overwrite: true,
        }),
        403,
      );
      // over an existing folder: replaced (Overwrite T), refused (F)
      await expectError(
        handlers.transfer({
          userId: user.userId,
          mode: 'copy',
          from: { device: 'laptop', path: 'moved/' },
          to: { device: 'laptop', path: 'copy/' },
          overwrite: false,
        }),
        412,
      );
      await t.upload(user, 'laptop', 'copy/only-here.txt', 'x');
      const replaced = await transfer(handlers, {
        userId: user.userId,
        mode: 'copy',
        from: { device: 'laptop', path: 'moved/' },
        to: { device: 'laptop', path: 'copy/' },
        overwrite: true,
      });
      assert.equal(replaced.replaced, true);
      assert.deepEqual(
        await tree(t, user, 'laptop', 'copy/'),
        before.map((p) => p.replaceAll('src/', 'copy/')),
        'what was only at the destination is gone',
      );
      // Depth 0: the folder alone
      await handlers.transfer({
        userId: user.userId,
        mode: 'copy',
        from: { device: 'laptop', path: 'moved/' },
        to: { device: 'laptop', path: 'shallow/' },
        overwrite: false,
        shallow: true,
      });
      assert.deepEqual(await tree(t, user, 'laptop', 'shallow/'), []);
      assert.equal((await t.folders.stat({ userId: user.userId, device: 'laptop', path: 'shallow' })).kind, 'folder');
    } finally {
      await t.close();
    }
  });
});

describe('file move crash recovery', () => {
  for (const point of stepsOf('MoveFile', ['commit', 'complete'])) {
    it(`killed at ${point}: ${committed(point) ? 'the move is finished' : 'nothing moved'}, the usage untouched`, async () => {
      const crash = crashAt(point);
      const { t: crashed, user } = await setUp(crash);
      await crashed.upload(user, 'laptop', 'a.txt', 'abc');
      await untilCrashed(crash, () =>
        crashed.transfers.transfer({
          userId: user.userId,
          mode: 'move',
          from: { device: 'laptop', path: 'a.txt' },
          to: { device: 'laptop', path: 'b.txt' },
          overwrite: true,
        }),
      );
      const t = await restartStorage(crashed);
      try {
        const report = await t.recovery(0).run();
        assert.equal((committed(point) ? report.completed : report.compensated).length, 1);
        await t.runner.catchUp();
        const has = async (path: string) =>
          (await t.folders.stat({ userId: user.userId, device: 'laptop', path }).catch(() => null)) !== null;
        assert.deepEqual([await has('a.txt'), await has('b.txt')], committed(point) ? [false, true] : [true, false]);
        assert.equal(await t.usage(user.userId), 3);
      } finally {
        await t.close();
      }
    });
  }
});

async function putBlob(t: TestStorage, content: string) {
  const { Readable } = await import('node:stream');
  const { crc32 } = await import('node:zlib');
  const bytes = Buffer.from(content);
  const { key, size } = await t.blobs.put(Readable.from([bytes]));
  return { blob: key, size, crc32: crc32(bytes) >>> 0 };
}
