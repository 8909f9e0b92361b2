/**
 * Made folders (WebDAV MKCOL), a path's stat and dead properties, through the handlers on the
 * real event store: a made folder is listed empty and stays when its files go, counts once in the
 * folders above it, and goes with a folder deletion; properties belong to the file (kept by a new
 * version, gone with a deletion) or the folder, and are bounded.
 */
import { DEAD_PROPERTIES_MAX, type PathStat } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  cleanUpTestStorage,
  expectError,
  restartStorage,
  startTestStorage,
  type TestStorage,
  type TestUser,
} from '../testing/test-context.js';

after(cleanUpTestStorage);

async function setUp(): Promise<{ t: TestStorage; user: TestUser }> {
  const t = await startTestStorage();
  const user = await t.createUser(await t.createPartner());
  await t.registerDevice(user, 'laptop');
  return { t, user };
}

const folderOf = (s: PathStat) => {
  assert.equal(s.kind, 'folder');
  return s;
};

describe('made folders', () => {
  it('MKCOL: made inside an existing folder only, never over a file or a folder; listed while empty; kept when its files go', async () => {
    const { t, user } = await setUp();
    try {
      const make = (path: string) => t.folders.make({ userId: user.userId, device: 'laptop', path });
      const stat = (path: string, members = false) =>
        t.folders.stat({ userId: user.userId, device: 'laptop', path, ...(members ? { members: {} } : {}) });
      await make('docs/');
      await expectError(make('docs/'), 405);
      await expectError(make('missing/inner/'), 409);
      await expectError(t.folders.make({ userId: user.userId, device: 'nodevice', path: 'x/' }), 409);
      await t.upload(user, 'laptop', 'notes.txt', 'n');
      await expectError(make('notes.txt/'), 405);
      await make('docs/empty/');
      const root = folderOf(await stat('', true));
      assert.deepEqual(
        root.members!.dirs.map((d) => [d.name, d.created !== null]),
        [['docs', true]],
      );
      assert.deepEqual(
        root.members!.files.map((f) => f.name),
        ['notes.txt'],
      );
      assert.equal(root.folder.folders, 2, 'docs/ and docs/empty/ count in the root');
      // a folder of files made on its own stays when they go
      await t.upload(user, 'laptop', 'docs/a.txt', 'a');
      await t.deletePath(user, 'laptop', 'docs/a.txt');
      assert.deepEqual(
        folderOf(await stat('docs', true)).members!.dirs.map((d) => d.name),
        ['empty'],
      );
      // a folder that only held files goes with them
      await t.upload(user, 'laptop', 'tmp/x.txt', 'x');
      await t.deletePath(user, 'laptop', 'tmp/x.txt');
      await expectError(stat('tmp'), 404);
      // the listing of interface B shows made folders too
      const listed = await t.files.list({ userId: user.userId, device: 'laptop', path: 'docs/' });
      assert.deepEqual(
        listed.dirs.map((d) => d.name),
        ['empty'],
      );
      // deleting the folder takes the made ones under it, and the counts above follow
      await t.deletePath(user, 'laptop', 'docs/');
      await expectError(stat('docs'), 404);
      assert.equal(folderOf(await stat('')).folder.folders, 0);
      // a rebuilt read model agrees
      const restarted = await restartStorage(t);
      try {
        const again = await restarted.folders.stat({ userId: user.userId, device: 'laptop', path: '', members: {} });
        assert.deepEqual(folderOf(again).members!.dirs, []);
        assert.deepEqual(
          folderOf(again).members!.files.map((f) => f.name),
          ['notes.txt'],
        );
      } finally {
        await restarted.close();
      }
    } catch (error) {
      await t.close();
      throw error;
    }
  });

  it('a folder that goes with a deletion below it is one folder less in the root', async () => {
    const { t, user } = await setUp();
    try {
      await t.upload(user, 'laptop', 'a/b/c.txt', 'c');
      assert.equal(
        folderOf(await t.folders.stat({ userId: user.userId, device: 'laptop', path: '' })).folder.folders,
        2,
      );
      await t.deletePath(user, 'laptop', 'a/b/');
      await expectError(t.folders.stat({ userId: user.userId, device: 'laptop', path: 'a' }), 404);
      await t.upload(user, 'laptop', 'z.txt', 'z');
      assert.equal(
        folderOf(await t.folders.stat({ userId: user.userId, device: 'laptop', path: '' })).folder.folders,
        0,
      );
    } finally {
      await t.close();
    }
  });
});

describe('stat', () => {
  it('a path without a slash names the file, else the folder; with one only a folder; the quota comes along', async () => {
    const t = await startTestStorage();
    try {
      const user = await t.createUser(await t.createPartner(), { plan_id: 1 });
      await t.registerDevice(user, 'laptop');
      await t.upload(user, 'laptop', 'x/y.txt', 'hello');
      const file = await t.folders.stat({ userId: user.userId, device: 'laptop', path: 'x/y.txt' });
      assert.equal(file.kind, 'file');
      assert.equal(file.kind === 'file' && file.file.size, 5);
      assert.deepEqual(file.quota, { used: 5, available: 1_000_000_000 - 5 });
      // a caller that needs the resource alone (a WebDAV GET) asks without the figures
      const bare = await t.folders.stat({ userId: user.userId, device: 'laptop', path: 'x/y.txt', figures: false });
      assert.equal(bare.kind === 'file' && bare.file.size, 5);
      assert.equal('quota' in bare, false, 'no quota figures');
      await expectError(
        t.folders.stat({ userId: user.userId, device: 'laptop', path: 'x/missing.txt', figures: false }),
        404,
      );
      assert.equal((await t.folders.stat({ userId: user.userId, device: 'laptop', path: 'x' })).kind, 'folder');
      assert.equal((await t.folders.stat({ userId: user.userId, device: 'laptop', path: 'x/' })).kind, 'folder');
      await expectError(t.folders.stat({ userId: user.userId, device: 'laptop', path: 'x/y.txt/' }), 404);
      const other = await t.createUser(await t.createPartner());
      await expectError(t.folders.stat({ userId: other.userId, device: 'laptop', path: 'x' }), 404);
    } finally {
      await t.close();
    }
  });
});

describe('dead properties', () => {
  it("a file's are kept by a new version and go with its deletion; a folder's make it a made folder; all bounded", async () => {
    const { t, user } = await setUp();
    try {
      const set = (path: string, props: Record<string, string>, remove: string[] = []) =>
        t.folders.setProperties({ userId: user.userId, device: 'laptop', path, set: props, remove });
      const propsAt = async (path: string) => {
        const s = await t.folders.stat({ userId: user.userId, device: 'laptop', path });
        return s.kind === 'file' ? s.props : s.folder.props;
      };
      await t.upload(user, 'laptop', 'f.txt', 'one');
      await set('f.txt', { '{urn:x}a': '1', '{urn:x}b': '<x:v xmlns:x="urn:x">2</x:v>' });
      await set('f.txt', {}, ['{urn:x}a', '{urn:x}never']);
      assert.deepEqual(await propsAt('f.txt'), { '{urn:x}b': '<x:v xmlns:x="urn:x">2</x:v>' });
      await t.upload(user, 'laptop', 'f.txt', 'two');
      assert.deepEqual(
        await propsAt('f.txt'),
        { '{urn:x}b': '<x:v xmlns:x="urn:x">2</x:v>' },
        'a new version keeps them',
      );
      await t.deletePath(user, 'laptop', 'f.txt');
      await t.upload(user, 'laptop', 'f.txt', 'three');
      assert.deepEqual(await propsAt('f.txt'), {}, 'a file written again after its deletion starts without');
      // a folder that exists through its file, given properties, stays when the file goes
      await t.upload(user, 'laptop', 'd/g.txt', 'g');
      await set('d', { '{urn:x}c': '3' });
      await t.deletePath(user, 'laptop', 'd/g.txt');
      assert.deepEqual(await propsAt('d/'), { '{urn:x}c': '3' });
      const many = Object.fromEntries(Array.from({ length: DEAD_PROPERTIES_MAX + 1 }, (_, i) => [`{urn:x}p${i}`, 'v']));
      await expectError(set('f.txt', many), 507);
      await expectError(set('f.txt', { '{urn:x}big': 'v'.repeat(70_000) }), 507);
      assert.deepEqual(await propsAt('f.txt'), {}, 'a refused change changes nothing');
      await expectError(set('nothing.txt', { '{urn:x}a': '1' }), 404);
    } finally {
      await t.close();
    }
  });
});
