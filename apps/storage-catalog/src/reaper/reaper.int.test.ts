/**
 * The blob reaper against the real stores, trying to break it: blobs whose every version was
 * purged go, blobs another file or user still holds stay; a blob put and never committed (commit
 * refused) goes after the grace and not before; a blob between its put and its commit is never
 * taken, not even when the put lands while the reaper decides; a random catalog after purges
 * keeps exactly what it references; an image's previews go with it and come back with it;
 * what interrupted puts left is swept. On the local folder, and on MinIO too when MINIO_URL is set
 * (the tests that age blobs by their file times are the folder's own).
 */
import { createHash } from 'node:crypto';
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import { type BlobStore, MinioBlobStore } from '@burrow/blobs';
import { Client } from 'minio';
import { PARTNER_BACKUPS_KEPT, Streams, UPLOAD_HEAD_BYTES } from '@burrow/contracts';
import { appendEvents } from '@burrow/eventsourcing';
import { readConfig } from '@burrow/runtime';
import sharp from 'sharp';
import { previewsCollection, versionsCollection } from '../read-models/catalog.documents.js';
import { readAll } from '../previews/render.js';
import {
  cleanUpTestStorage,
  DAY,
  expectError,
  GB,
  startTestStorage,
  TEST_PLANS,
  type TestStorage,
  type TestUser,
} from '../testing/test-context.js';
import { BlobReaper } from './blob-reaper.js';
import { ReaperHandlers } from './reaper.handlers.js';

after(cleanUpTestStorage);

const HOUR_MS = 3_600_000;
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** A reaper whose wall clock is `aheadMs` in the future (blobs look that much older), with a grace of an hour and small pages. */
const reaperOf = (t: TestStorage, aheadMs = 0, options: { pageSize?: number; graceSeconds?: number } = {}) =>
  new BlobReaper(t.ctx, {
    graceSeconds: options.graceSeconds ?? 3600,
    pageSize: options.pageSize ?? 3,
    wallClock: () => Date.now() + aheadMs,
  });

/** Every blob key in the store. */
async function storedKeys(t: TestStorage): Promise<string[]> {
  const keys: string[] = [];
  let after: string | undefined;
  do {
    const page = await t.blobs.list({ after });
    keys.push(...page.blobs.map((b) => b.key));
    after = page.next ?? undefined;
  } while (after);
  return keys;
}

/** Makes a stored blob look put `ms` ago (what a blob stored long ago looks like). */
async function age(t: TestStorage, key: string, ms: number): Promise<void> {
  const when = new Date(Date.now() - ms);
  await utimes(join(t.dir, 'blobs', key.slice(0, 2), key.slice(2, 4), key), when, when);
}

interface Store {
  blobs: BlobStore;
  cleanup(): Promise<void>;
}

/** MINIO_URL and its companions, read as the services read them */
const minio = readConfig().minio ?? null;

/** A bucket of its own (the reaper walks all of it), removed afterwards. */
async function minioStore(): Promise<Store> {
  const bucket = `${minio!.bucket}-reaper-${Math.random().toString(16).slice(2, 10)}`;
  const blobs = await MinioBlobStore.connect({ ...minio!, bucket });
  return {
    blobs,
    async cleanup() {
      for (;;) {
        const page = await blobs.list();
        for (const blob of page.blobs) await blobs.delete(blob.key);
        if (!page.next) break;
      }
      await blobs.sweepTemporary(Date.now() + HOUR_MS);
      const url = new URL(minio!.url);
      const client = new Client({
        endPoint: url.hostname,
        port: Number(url.port),
        useSSL: url.protocol === 'https:',
        accessKey: minio!.accessKey,
        secretKey: minio!.secretKey,
        pathStyle: true,
      });
      await client.removeBucket(bucket);
    },
  };
}

for (const [name, makeStore] of [
  ['local folder', null],
  ['MinIO', minio ? minioStore : undefined],
] as const) {
  describe(`blob reaper (${name})`, { skip: makeStore === undefined ? 'MINIO_URL not set' : false }, () => {
    let t: TestStorage;
    let store: Store | null = null;
    const local = makeStore === null;
    afterEach(async () => {
      await t?.close();
      await store?.cleanup();
      store = null;
    });

    /** A test context on this suite's blob store. */
    async function start(options: Parameters<typeof startTestStorage>[0] = {}): Promise<TestStorage> {
      store = makeStore ? await makeStore() : null;
      t = await startTestStorage({ ...options, blobs: store?.blobs });
      return t;
    }

    async function partnerWithUsers(
      n: number,
      options: Parameters<typeof startTestStorage>[0] = {},
    ): Promise<TestUser[]> {
      await start(options);
      const partner = await t.createPartner({ autopurge_interval: 1 });
      const users = [];
      for (let i = 0; i < n; i++) {
        const user = await t.createUser(partner);
        await t.registerDevice(user, 'laptop');
        users.push(user);
      }
      return users;
    }

    /** Deletes the files, lets autopurge's day pass, purges. */
    async function purgeFiles(user: TestUser, paths: string[]): Promise<void> {
      for (const path of paths) await t.deletePath(user, 'laptop', path);
      t.clock.advance(DAY);
      const report = await t.purge();
      assert.deepEqual(report.failed, []);
    }

    it('a blob whose every version was purged is reaped; one another file or user still holds is kept until it is purged too', async () => {
      const [a, b] = await partnerWithUsers(2);
      await t.upload(a, 'laptop', 'x.txt', 'shared content');
      await t.upload(a, 'laptop', 'y.txt', 'only in y');
      await t.upload(a, 'laptop', 'y.txt', 'y, second version');
      await t.upload(b, 'laptop', 'copy.txt', 'shared content');
      await purgeFiles(a, ['x.txt', 'y.txt']);

      const first = await reaperOf(t, 2 * HOUR_MS).run();
      assert.deepEqual([first.listed, first.reaped, first.referenced, first.recent, first.failed], [3, 2, 1, 0, []]);
      assert.equal(first.reaped_bytes, 'only in y'.length + 'y, second version'.length);
      assert.deepEqual(await storedKeys(t), [sha256('shared content')]);
      assert.equal(
        (await readAll(await t.blobs.get(sha256('shared content')))).toString(),
        'shared content',
        'still readable for b',
      );

      await t.removeDevice(b, 'laptop');
      assert.deepEqual((await t.purge()).failed, []);
      const second = await reaperOf(t, 2 * HOUR_MS).run();
      assert.equal(second.reaped, 1);
      assert.deepEqual(await storedKeys(t), []);
    });

    it('a blob whose commit was refused (quota) is kept through the grace, then reaped', async () => {
      await start();
      const partner = await t.createPartner();
      const user = await t.createUser(partner, { plan_id: TEST_PLANS.small.plan_id });
      await t.registerDevice(user, 'laptop');
      const bytes = Buffer.from('a commit that will be refused');
      const { key } = await t.blobs.put(Readable.from([bytes]));
      // the gateway put the bytes; the catalog refuses the commit (the size says 2 GB on a 1 GB plan)
      await expectError(
        t.files.commit({
          userId: user.userId,
          device: 'laptop',
          path: 'big.bin',
          blob: key,
          size: 2 * GB,
          crc32: crc32(bytes) >>> 0,
        }),
        507,
      );

      const within = await reaperOf(t, 0).run();
      assert.deepEqual([within.recent, within.reaped], [1, 0], 'put less than the grace ago: kept');
      const later = await reaperOf(t, 2 * HOUR_MS).run();
      assert.deepEqual([later.reaped, later.reaped_bytes], [1, bytes.length]);
      assert.equal(await t.blobs.exists(key), false);
    });

    it("a partner's latest appliance backups are never reaped; one pushed out of the kept few is", async () => {
      await start();
      const partner = await t.createPartner();
      const stream = Streams.partnerBackup(partner);
      const keys: string[] = [];
      for (let i = 0; i <= PARTNER_BACKUPS_KEPT; i++) {
        const data = `backup ${i}`;
        const { key, size } = await t.blobs.put(Readable.from([Buffer.from(data)]));
        keys.push(key);
        const { position } = await appendEvents(
          t.store,
          stream,
          [{ type: 'PartnerBackupStored', data: { blob: key, sha256: key, size, stored_at: i } }],
          'any',
        );
        await t.runner.waitFor(position);
      }
      const report = await reaperOf(t, 2 * HOUR_MS).run();
      assert.equal(report.reaped, 1, 'only the backup older than the kept few goes');
      assert.equal(await t.blobs.exists(keys[0]), false);
      for (const key of keys.slice(1)) assert.equal(await t.blobs.exists(key), true, 'a kept backup stays');
    });

    it(
      'a blob between its put and its commit is never reaped: put again after its purge, or put while the reaper decides',
      { skip: !local && 'ages blobs by their file times' },
      async () => {
        const [user] = await partnerWithUsers(1);
        const content = 'content stored long ago, purged, then uploaded again';
        await t.upload(user, 'laptop', 'old.txt', content);
        await purgeFiles(user, ['old.txt']);
        const key = sha256(content);
        await age(t, key, 2 * DAY * 1000);

        // 1. the upload's put lands (the blob's time is fresh again), the reaper runs, then the commit
        await t.blobs.put(Readable.from([Buffer.from(content)]));
        const between = await reaperOf(t, 0).run();
        assert.deepEqual([between.recent, between.reaped], [1, 0], 'the fresh put keeps it');
        await t.files.commit({
          userId: user.userId,
          device: 'laptop',
          path: 'again.txt',
          blob: key,
          size: content.length,
          crc32: crc32(Buffer.from(content)) >>> 0,
        });
        assert.equal((await reaperOf(t, 2 * HOUR_MS).run()).referenced, 1, 'committed: referenced');

        // 2. the put lands after the reaper found the blob old and unreferenced, before it deletes
        await purgeFiles(user, ['again.txt']);
        await age(t, key, 2 * DAY * 1000);
        const racing: BlobStore = Object.create(t.blobs);
        racing.deleteIfUnchanged = async (k, cutoffMs) => {
          await t.blobs.put(Readable.from([Buffer.from(content)]));
          return t.blobs.deleteIfUnchanged(k, cutoffMs);
        };
        const raced = await new BlobReaper({ ...t.ctx, blobs: racing }, { graceSeconds: 3600 }).run();
        assert.deepEqual([raced.raced, raced.reaped], [1, 0]);
        await t.files.commit({
          userId: user.userId,
          device: 'laptop',
          path: 'third.txt',
          blob: key,
          size: content.length,
          crc32: crc32(Buffer.from(content)) >>> 0,
        });
        assert.equal((await readAll(await t.blobs.get(key))).toString(), content, 'the committed version can be read');
      },
    );

    it('after uploads, new versions, deletions and purges, the store keeps exactly the blobs something references', async () => {
      const users = await partnerWithUsers(3);
      const deleted: [TestUser, string][] = [];
      let n = 0;
      for (const [u, user] of users.entries()) {
        for (let f = 0; f < 8; f++) {
          const path = `dir${f % 3}/file${f}.txt`;
          // some content shared between users and files, some versions repeated
          for (let v = 0; v <= f % 3; v++) await t.upload(user, 'laptop', path, `content ${(u * 7 + f * 3 + v) % 11}`);
          if ((u + f) % 3 === 0) deleted.push([user, path]);
          n += 1;
        }
      }
      for (const [user, path] of deleted) await t.deletePath(user, 'laptop', path);
      t.clock.advance(DAY);
      assert.deepEqual((await t.purge()).failed, []);
      // orphans of refused or abandoned commits, too
      for (let i = 0; i < 4; i++) await t.blobs.put(Readable.from([Buffer.from(`never committed ${i}`)]));

      const report = await reaperOf(t, 2 * HOUR_MS, { pageSize: 4 }).run();
      assert.deepEqual(report.failed, []);
      await t.runner.catchUp();
      const referenced = new Set((await versionsCollection(t.docs).find({})).map((v) => v.blob));
      assert.deepEqual((await storedKeys(t)).sort(), [...referenced].sort(), 'exactly the referenced blobs remain');
      for (const key of referenced)
        assert.equal(sha256(await readAll(await t.blobs.get(key))), key, 'whole and intact');
      assert.ok(report.reaped >= 4, `orphans reaped (${report.reaped}); ${n} files`);
      assert.equal((await reaperOf(t, 2 * HOUR_MS, { pageSize: 4 }).run()).reaped, 0, 'a second run finds nothing');
    });

    it("an image's previews are reaped with it, and made anew when the same image is uploaded again", async () => {
      const [user] = await partnerWithUsers(1, { previews: true });
      const photo = await sharp({
        create: { width: 300, height: 200, channels: 3, background: { r: 10, g: 120, b: 200 } },
      })
        .jpeg()
        .toBuffer();
      const v = await t.upload(user, 'laptop', 'photo.jpg', photo);
      await t.previewer.drained();
      await t.runner.catchUp();
      const previews = Object.values((await previewsCollection(t.docs).get(v.blob))!.previews);
      assert.equal(previews.length, 3);
      const kept = await reaperOf(t, 2 * HOUR_MS).run();
      assert.deepEqual([kept.referenced, kept.reaped], [4, 0], 'the image and its previews are referenced');

      await purgeFiles(user, ['photo.jpg']);
      await reaperOf(t, 2 * HOUR_MS).run();
      await t.runner.catchUp();
      await reaperOf(t, 2 * HOUR_MS).run();
      assert.deepEqual(await storedKeys(t), [], 'the image, then its previews, are gone');
      assert.equal(await previewsCollection(t.docs).get(v.blob), null);

      await t.upload(user, 'laptop', 'photo-again.jpg', photo);
      await t.previewer.drained();
      await t.runner.catchUp();
      const again = Object.values((await previewsCollection(t.docs).get(v.blob))!.previews);
      assert.deepEqual(again.sort(), previews.sort(), 'the same previews, made again');
      for (const key of again) assert.equal(await t.blobs.exists(key), true);
      const events = (await t.store.readStream(Streams.preview(v.blob))).map((e) => e.type);
      assert.deepEqual(events, [
        'PreviewsStarted',
        'PreviewsGenerated',
        'PreviewsDiscarded',
        'PreviewsStarted',
        'PreviewsGenerated',
      ]);
    });

    it('a blob its commit decided is no image: that decision, in the read model only, goes with it', async () => {
      const [user] = await partnerWithUsers(1, { previews: true });
      const text = Buffer.from(`no image at all ${Math.random()}`);
      const { key, size } = await t.blobs.put(Readable.from([text]));
      await t.files.commit({
        userId: user.userId,
        device: 'laptop',
        path: 'notes.txt',
        blob: key,
        size,
        crc32: crc32(text) >>> 0,
        head: text.subarray(0, UPLOAD_HEAD_BYTES).toString('base64'),
      });
      await t.runner.catchUp();
      assert.deepEqual(
        [(await previewsCollection(t.docs).get(key))?.pending, (await t.store.readStream(Streams.preview(key))).length],
        [false, 0],
        'decided by the commit, nothing on the preview stream',
      );
      await purgeFiles(user, ['notes.txt']);
      assert.equal((await reaperOf(t, 2 * HOUR_MS).run()).reaped, 1);
      await t.runner.catchUp();
      assert.equal(await t.blobs.exists(key), false);
      assert.equal(await previewsCollection(t.docs).get(key), null, 'its decision went with it');
    });

    it(
      'what interrupted puts left is swept once older than the grace',
      { skip: !local && "the local folder's temporary files" },
      async () => {
        await start();
        const tmp = join(t.dir, 'blobs', 'tmp');
        await mkdir(tmp, { recursive: true });
        await writeFile(join(tmp, 'killed-mid-upload'), 'half an upload');
        await writeFile(join(tmp, 'still-uploading'), 'an upload under way');
        const old = new Date(Date.now() - 2 * HOUR_MS);
        await utimes(join(tmp, 'killed-mid-upload'), old, old);
        const report = await reaperOf(t, 0).run();
        assert.equal(report.temporaries, 1);
        assert.equal(await t.blobs.sweepTemporary(Date.now() - HOUR_MS), 0, 'the fresh one is left');
      },
    );

    it('the operator subject runs it, with a grace of its own for this run; a bad grace is a 400', async () => {
      await start();
      const { key } = await t.blobs.put(Readable.from([Buffer.from('orphan of a refused commit')]));
      // a wall clock a second ahead: the blob is older than a grace of 0 (no waiting for time to pass)
      const wallClock = () => Date.now() + 1000;
      const handlers = new ReaperHandlers(new BlobReaper(t.ctx, { graceSeconds: 86_400, wallClock }));
      assert.equal((await handlers.run({})).recent, 1);
      await expectError(handlers.run({ grace_seconds: -1 }), 400);
      await expectError(handlers.run({ grace_seconds: 1.5 }), 400);
      assert.equal((await handlers.run({ grace_seconds: 0 })).reaped, 1);
      assert.equal(await t.blobs.exists(key), false);
    });
  });
}
