/**
 * Previews against the real stores and real images (made by sharp in the test): the four widths,
 * decoded back; EXIF orientation; formats told by content, not by name; widths wider than the
 * image left out; one set per blob whatever the files, users or previewers; corrupt images
 * recorded and never retried; work pending at a restart, claims a dead previewer left, images that
 * keep killing the previewer; bounded concurrency.
 */
import type { BlobStore } from '@burrow/blobs';
import { DomainError, type PreviewsStarted, Streams, UPLOAD_HEAD_BYTES } from '@burrow/contracts';
import { appendEvents } from '@burrow/eventsourcing';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { after, afterEach, describe, it } from 'node:test';
import sharp from 'sharp';
import { filesCollection, previewsCollection, versionsCollection } from '../read-models/catalog.documents.js';
import {
  cleanUpTestStorage,
  restartStorage,
  startTestStorage,
  type TestStorage,
  type TestUser,
} from '../testing/test-context.js';
import { Previewer } from './previewer.js';

after(cleanUpTestStorage);

type Rgb = [number, number, number];
const RED: Rgb = [220, 20, 20];
const BLUE: Rgb = [20, 20, 220];

/** Raw pixels: the left half `left`, the right half `right` (so orientation shows). */
function halves(width: number, height: number, left: Rgb, right: Rgb, channels: 3 | 4 = 3): Buffer {
  const data = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [r, g, b] = x < width / 2 ? left : right;
      const i = (y * width + x) * channels;
      data[i] = r;
      data[i + 1] = g;
      data[i + 2] = b;
      if (channels === 4) data[i + 3] = x % 2 ? 255 : 128;
    }
  }
  return data;
}

const image = (width: number, height: number, channels: 3 | 4 = 3) =>
  sharp(halves(width, height, RED, BLUE, channels), { raw: { width, height, channels } });

async function readBlob(t: TestStorage, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await t.blobs.get(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function previewEvents(t: TestStorage, blob: string): Promise<string[]> {
  return (await t.store.readStream(Streams.preview(blob))).map((e) => e.type);
}

/** The previews the listing shows for the latest version of `path`, once the previewer is done. */
async function previewsOf(t: TestStorage, blob: string): Promise<Record<string, string>> {
  await t.previewer.drained();
  await t.runner.catchUp();
  const doc = await previewsCollection(t.docs).get(blob);
  assert.ok(doc, 'the blob has a previews document');
  return doc.previews;
}

/** Decodes a preview blob: its format and size, and the colour of the pixel at (x, y) in fractions. */
async function decode(t: TestStorage, key: string, at: [number, number][] = []) {
  const data = await readBlob(t, key);
  const meta = await sharp(data).metadata();
  const { data: pixels, info } = await sharp(data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const colours = at.map(([fx, fy]) => {
    const i = (Math.floor(fy * (info.height - 1)) * info.width + Math.floor(fx * (info.width - 1))) * info.channels;
    return [pixels[i], pixels[i + 1], pixels[i + 2]];
  });
  return {
    format: meta.format,
    width: meta.width,
    height: meta.height,
    orientation: meta.orientation,
    exif: meta.exif !== undefined,
    colours,
  };
}

const isRed = ([r, , b]: number[]) => r > 150 && b < 100;
const isBlue = ([r, , b]: number[]) => b > 150 && r < 100;

describe('previews', () => {
  let t: TestStorage;
  let user: TestUser;
  afterEach(async () => {
    await t?.close();
  });

  async function setUp(options: Parameters<typeof startTestStorage>[0] = {}) {
    t = await startTestStorage({ previews: true, ...options });
    const partner = await t.createPartner();
    user = await t.createUser(partner);
    await t.registerDevice(user, 'laptop');
  }

  it('a JPEG gets 25, 48, 228 and 800 px wide previews, aspect kept, shown on its files and versions, made once per blob', async () => {
    await setUp();
    const photo = await image(1200, 900).jpeg().toBuffer();
    const v = await t.upload(user, 'laptop', 'Pictures/a.jpg', photo);
    const previews = await previewsOf(t, v.blob);
    assert.deepEqual(Object.keys(previews).sort(), ['228', '25', '48', '800']);
    for (const [width, key] of Object.entries(previews)) {
      const got = await decode(t, key, [
        [0.1, 0.5],
        [0.9, 0.5],
      ]);
      assert.deepEqual(
        [got.format, got.width, got.height],
        ['jpeg', Number(width), Math.round((Number(width) * 900) / 1200)],
        `the ${width} px preview`,
      );
      if (Number(width) >= 48)
        assert.ok(
          isRed(got.colours[0]) && isBlue(got.colours[1]),
          `the ${width} px preview shows the picture: ${JSON.stringify(got.colours)}`,
        );
    }
    const file = (await filesCollection(t.docs).find({ blob: v.blob }))[0];
    assert.deepEqual(file.previews, previews, 'the listing shows them');
    assert.deepEqual(
      (await t.files.version({ userId: user.userId, device: 'laptop', path: 'Pictures/a.jpg' })).previews,
      previews,
    );

    // the same bytes again: another file, another user, a new version of an existing file
    const other = await t.createUser(user.partnerId);
    await t.registerDevice(other, 'phone');
    await t.upload(user, 'laptop', 'Pictures/b.jpg', Buffer.from('first a text'));
    await t.upload(user, 'laptop', 'Pictures/b.jpg', photo);
    await t.upload(other, 'phone', 'DCIM/copy.jpg', photo);
    await t.previewer.drained();
    await t.runner.catchUp();
    assert.deepEqual(await previewEvents(t, v.blob), ['PreviewsStarted', 'PreviewsGenerated'], 'made once');
    const shown = await versionsCollection(t.docs).find({ blob: v.blob });
    assert.equal(shown.length, 3);
    for (const version of shown)
      assert.deepEqual(version.previews, previews, `${version.path} v${version.version} shows them`);
  });

  it('EXIF orientation is honoured: a picture stored sideways gets upright previews, without its EXIF', async () => {
    await setUp();
    // stored 1200x900, left red and right blue; orientation 6 = shown turned 90° clockwise, red on top
    const sideways = await image(1200, 900).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const v = await t.upload(user, 'laptop', 'DCIM/IMG_0001.JPG', sideways);
    const previews = await previewsOf(t, v.blob);
    assert.deepEqual(Object.keys(previews).sort(), ['228', '25', '48', '800']);
    const got = await decode(t, previews['228'], [
      [0.5, 0.1],
      [0.5, 0.9],
    ]);
    assert.deepEqual([got.width, got.height], [228, 304], 'portrait: 228 x 1200/900*228');
    assert.ok(
      isRed(got.colours[0]) && isBlue(got.colours[1]),
      `red on top, blue below: ${JSON.stringify(got.colours)}`,
    );
    assert.equal(got.orientation, undefined, 'no orientation left to apply');
    assert.equal(got.exif, false, 'no EXIF copied');
  });

  it('PNG (transparent: PNG previews), GIF and WebP; widths wider than the image are left out, none for a tiny one', async () => {
    await setUp();
    const cases = [
      { path: 'icons/badge.png', bytes: await image(100, 50, 4).png().toBuffer(), widths: ['25', '48'], format: 'png' },
      // a GIF decodes with an alpha channel; opaque, its previews are JPEG
      {
        path: 'anim/loop.gif',
        bytes: await image(300, 300).gif().toBuffer(),
        widths: ['228', '25', '48'],
        format: 'jpeg',
      },
      {
        path: 'web/hero.webp',
        bytes: await image(900, 300).webp().toBuffer(),
        widths: ['228', '25', '48', '800'],
        format: 'jpeg',
      },
      { path: 'tiny.png', bytes: await image(20, 20).png().toBuffer(), widths: [], format: '' },
    ];
    for (const c of cases) {
      const v = await t.upload(user, 'laptop', c.path, c.bytes);
      const previews = await previewsOf(t, v.blob);
      assert.deepEqual(Object.keys(previews).sort(), c.widths, c.path);
      for (const [width, key] of Object.entries(previews)) {
        const got = await decode(t, key);
        assert.deepEqual([got.format, got.width], [c.format, Number(width)], `${c.path} at ${width}`);
      }
      const doc = await previewsCollection(t.docs).get(v.blob);
      assert.equal(doc?.failed, false, `${c.path}: no failure`);
    }
  });

  it('content decides, not the name: a JPEG named .txt gets previews, a text named .jpg is recorded as no image and never read again', async () => {
    await setUp();
    const photo = await image(300, 200).jpeg().toBuffer();
    const disguised = await t.upload(user, 'laptop', 'notes/scan.txt', photo);
    const noExtension = await t.upload(user, 'laptop', 'notes/IMG_0002', await image(240, 240).jpeg().toBuffer());
    const fake = await t.upload(
      user,
      'laptop',
      'Pictures/fake.jpg',
      Buffer.from('just some text, not a picture at all'),
    );
    const empty = await t.upload(user, 'laptop', 'Pictures/empty.jpg', Buffer.alloc(0));
    assert.deepEqual(Object.keys(await previewsOf(t, disguised.blob)).sort(), ['228', '25', '48']);
    assert.deepEqual(Object.keys(await previewsOf(t, noExtension.blob)).sort(), ['228', '25', '48']);
    for (const v of [fake, empty]) {
      assert.deepEqual(await previewsOf(t, v.blob), {});
      const doc = await previewsCollection(t.docs).get(v.blob);
      assert.deepEqual(
        [doc?.failed, doc?.pending, doc?.reason],
        [true, false, 'not an image (JPEG, PNG, GIF or WebP)'],
      );
      assert.deepEqual(await previewEvents(t, v.blob), ['PreviewsFailed'], 'no claim: nothing was decoded');
      assert.equal(await t.previewer.process(v.blob), 'decided', 'never looked at again');
    }
  });

  it('"not an image" is recorded without an fsync of its own (deciding again costs nothing); an image\'s claim waits for one', async () => {
    await setUp();
    const text = await t.blobs.put(Readable.from([Buffer.from('plain text, one per upload of anything but an image')]));
    const before = t.store.walSyncs;
    assert.equal(await t.previewer.process(text.key), 'not-image');
    assert.equal(t.store.walSyncs, before, 'the decision did not wait for a WAL sync');
    assert.deepEqual(await previewEvents(t, text.key), ['PreviewsFailed']);
    const photo = await t.blobs.put(Readable.from([await image(64, 64).jpeg().toBuffer()]));
    assert.equal(await t.previewer.process(photo.key), 'generated');
    assert.ok(t.store.walSyncs > before, 'the claim and the previews are durable appends');
  });

  it("an upload's commit that hands over the first bytes: not an image is decided without reading the blob back; an image still gets previews", async () => {
    await setUp();
    const reads: string[] = [];
    const { stat, get } = t.blobs;
    t.blobs.stat = (key) => (reads.push(key), stat.call(t.blobs, key));
    t.blobs.get = (key, range) => (reads.push(key), get.call(t.blobs, key, range));
    const commit = async (path: string, bytes: Buffer, head?: Buffer) => {
      const { key, size } = await t.blobs.put(Readable.from([bytes]));
      const version = await t.files.commit({
        userId: user.userId,
        device: 'laptop',
        path,
        blob: key,
        size,
        crc32: crc32(bytes) >>> 0,
        head: head?.toString('base64'),
      });
      return version.blob;
    };
    const text = Buffer.from('a text file whose first bytes the gateway saw go by');
    const notImage = await commit('notes/a.txt', text, text.subarray(0, UPLOAD_HEAD_BYTES));
    const short = await commit('notes/b.txt', Buffer.from('tiny'), Buffer.from('tiny'));
    const photo = await image(64, 64).jpeg().toBuffer();
    const picture = await commit('Pictures/a.jpg', photo, photo.subarray(0, UPLOAD_HEAD_BYTES));
    for (const blob of [notImage, short]) {
      assert.deepEqual(await previewsOf(t, blob), {});
      const doc = await previewsCollection(t.docs).get(blob);
      assert.deepEqual(
        [doc?.failed, doc?.pending, doc?.reason],
        [true, false, 'not an image (JPEG, PNG, GIF or WebP)'],
      );
      assert.deepEqual(
        await previewEvents(t, blob),
        [],
        'the commit decided it: no previewer round, no event of its own',
      );
      assert.ok(!reads.includes(blob), 'never read back');
    }
    const committed = async (path: string) => {
      const file = await filesCollection(t.docs).findOne({ userId: user.userId, path });
      const events = await t.store.readStream(Streams.file(file!._id));
      return events.find((e) => e.type === 'FileVersionCommitted')?.data as { image?: false };
    };
    assert.equal((await committed('notes/a.txt')).image, false, 'the commit records that it is no image');
    assert.equal((await committed('Pictures/a.jpg')).image, undefined, 'an image is left to the previewer');
    assert.deepEqual(Object.keys(await previewsOf(t, picture)).sort(), ['25', '48']);
    assert.ok(reads.includes(picture), 'an image is read to be rendered');
    // the same bytes committed again: decided already, nothing more is recorded
    assert.equal(await commit('notes/again.txt', text, text.subarray(0, UPLOAD_HEAD_BYTES)), notImage);
    assert.deepEqual(await previewEvents(t, notImage), []);
    assert.equal(await t.previewer.process(notImage), 'decided', 'never looked at again');

    // a head that is not the blob's first bytes (fewer than it has, or not base64) is refused: the sniff could be wrong
    const png = await image(64, 64).png().toBuffer();
    const { key, size } = await t.blobs.put(Readable.from([png]));
    for (const head of [png.subarray(0, 4).toString('base64'), '!not base64!', 'A'.repeat(100)]) {
      await assert.rejects(
        t.files.commit({
          userId: user.userId,
          device: 'laptop',
          path: 'Pictures/b.png',
          blob: key,
          size,
          crc32: crc32(png) >>> 0,
          head,
        }),
        (e: unknown) => e instanceof DomainError && e.status === 400,
      );
    }
  });

  it('a corrupt image is recorded as failed, not retried, and harms nothing else', async () => {
    await setUp();
    const photo = await image(400, 300).jpeg().toBuffer();
    // a JPEG's first bytes, then garbage
    const corrupt = Buffer.concat([photo.subarray(0, 300), Buffer.alloc(4000, 0x5a)]);
    const truncated = photo.subarray(0, 40);
    const good = await image(500, 300).png().toBuffer();
    const uploads = [];
    for (const [path, bytes] of [
      ['bad.jpg', corrupt],
      ['cut.jpg', truncated],
      ['good.png', good],
    ] as const)
      uploads.push(await t.upload(user, 'laptop', path, bytes));
    const [bad, cut, fine] = uploads;
    for (const v of [bad, cut]) {
      assert.deepEqual(await previewsOf(t, v.blob), {});
      const doc = await previewsCollection(t.docs).get(v.blob);
      assert.equal(doc?.failed, true);
      assert.match(String(doc?.reason), /^unreadable image: /);
      assert.deepEqual(await previewEvents(t, v.blob), ['PreviewsStarted', 'PreviewsFailed']);
      assert.equal(await t.previewer.process(v.blob), 'decided');
      assert.equal(await t.previewer.scan(0), 0, 'failures are no pending work');
    }
    assert.deepEqual(Object.keys(await previewsOf(t, fine.blob)).sort(), ['228', '25', '48']);
  });

  it('work pending when the process stopped is done at the next start', async () => {
    await setUp({ previews: false });
    const photos = [];
    for (let i = 0; i < 3; i++)
      photos.push(
        await t.upload(
          user,
          'laptop',
          `p${i}.jpg`,
          await image(260 + i, 100)
            .jpeg()
            .toBuffer(),
        ),
      );
    await t.runner.catchUp();
    for (const v of photos)
      assert.equal((await previewsCollection(t.docs).get(v.blob))?.pending, true, 'pending: no previewer ran');
    t = await restartStorage(t, { previews: true });
    t.previewer.start(60_000);
    await t.previewer.scan(0);
    for (const v of photos)
      assert.deepEqual(Object.keys(await previewsOf(t, v.blob)).sort(), ['228', '25', '48'], 'made after the restart');
    assert.equal(await t.previewer.scan(0), 0, 'nothing pending any more');
  });

  it('a claim a dead previewer left is taken over once stale; an image that keeps killing the previewer is given up', async () => {
    await setUp({ previews: false });
    const photo = await t.upload(user, 'laptop', 'a.jpg', await image(300, 300).jpeg().toBuffer());
    const previewer = new Previewer(t.ctx, { claimSeconds: 600, maxAttempts: 3 });
    // what a previewer killed while decoding leaves: its claim, nothing after it
    const died = (blob: string, attempt: number) =>
      appendEvents(
        t.store,
        Streams.preview(blob),
        [{ type: 'PreviewsStarted', data: { blob, attempt, at: t.clock.now() } } satisfies PreviewsStarted],
        'any',
      );
    await died(photo.blob, 1);
    assert.equal(await previewer.process(photo.blob), 'claimed', 'a fresh claim is left alone');
    t.clock.advance(601);
    assert.equal(await previewer.process(photo.blob), 'generated', 'a stale one is taken over');
    assert.deepEqual(await previewEvents(t, photo.blob), ['PreviewsStarted', 'PreviewsStarted', 'PreviewsGenerated']);

    const killer = await t.upload(user, 'laptop', 'b.jpg', await image(310, 300).jpeg().toBuffer());
    for (let i = 0; i < 3; i++) {
      await died(killer.blob, i + 1);
      t.clock.advance(601);
    }
    assert.equal(await previewer.process(killer.blob), 'failed');
    await t.runner.catchUp();
    const doc = await previewsCollection(t.docs).get(killer.blob);
    assert.deepEqual(
      [doc?.failed, doc?.pending, doc?.reason],
      [true, false, 'the previewer stopped 3 times on this image'],
    );
    await previewer.stop();
  });

  it('two previewers (two replicas) on one image write one result; a previewer renders at most `concurrency` images at once', async () => {
    await setUp({ previews: false });
    const photo = await t.upload(user, 'laptop', 'a.jpg', await image(820, 400).jpeg().toBuffer());
    const [a, b] = [new Previewer(t.ctx), new Previewer(t.ctx)];
    const outcomes = (await Promise.all([a.process(photo.blob), b.process(photo.blob)])).sort();
    assert.ok(['claimed', 'decided'].includes(outcomes[0]) && outcomes[1] === 'generated', JSON.stringify(outcomes));
    assert.deepEqual(await previewEvents(t, photo.blob), ['PreviewsStarted', 'PreviewsGenerated']);

    const blobs: string[] = [];
    for (let i = 0; i < 6; i++)
      blobs.push(
        (
          await t.upload(
            user,
            'laptop',
            `many/${i}.png`,
            await image(400 + i, 300)
              .png()
              .toBuffer(),
          )
        ).blob,
      );
    // Count whole-blob reads (renders) under way at once. A render starts only once its claim is
    // durable (the store's WAL sync, in the thread pool), so two renders the previewer runs at once
    // need not overlap by themselves: each read waits for the next one to start (or for none to be
    // left), which makes them overlap whenever the previewer allows two at once.
    let reading = 0;
    let most = 0;
    let started = 0;
    let waitingForNext: (() => void) | null = null;
    const counting: BlobStore = Object.create(t.blobs);
    counting.get = async (key, range) => {
      if (range) return t.blobs.get(key, range);
      started += 1;
      reading += 1;
      most = Math.max(most, reading);
      const previous = waitingForNext;
      waitingForNext = null;
      previous?.();
      if (!previous && started < blobs.length) await new Promise<void>((resolve) => (waitingForNext = resolve));
      const stream = await t.blobs.get(key, range);
      stream.once('close', () => void (reading -= 1));
      return stream;
    };
    const previewer = new Previewer({ ...t.ctx, blobs: counting }, { concurrency: 2 });
    for (const blob of blobs) previewer.committed(blob);
    await previewer.drained();
    await t.runner.catchUp();
    for (const blob of blobs) assert.equal((await previewsCollection(t.docs).get(blob))?.pending, false);
    assert.equal(most, 2, 'two at a time, never more');
    await previewer.stop();
    await a.stop();
    await b.stop();
  });

  it('a stream that fails while the image is read records nothing: the image is tried again later', async () => {
    await setUp({ previews: false });
    const photo = await t.upload(user, 'laptop', 'a.jpg', await image(300, 300).jpeg().toBuffer());
    const failing: BlobStore = Object.create(t.blobs);
    failing.get = async (key, range) => {
      if (range) return t.blobs.get(key, range);
      return new Readable({
        read() {
          this.destroy(new Error('disk went away'));
        },
      });
    };
    const broken = new Previewer({ ...t.ctx, blobs: failing }, { claimSeconds: 600 });
    await assert.rejects(broken.process(photo.blob), /disk went away/);
    await t.runner.catchUp();
    assert.equal((await previewsCollection(t.docs).get(photo.blob))?.pending, true, 'still pending');
    t.clock.advance(601);
    assert.equal(await new Previewer(t.ctx).process(photo.blob), 'generated');
    assert.deepEqual(await previewEvents(t, photo.blob), ['PreviewsStarted', 'PreviewsStarted', 'PreviewsGenerated']);
  });
});

describe('the previewer when the read-model database goes away', () => {
  it('a scan that fails (a MongoNetworkError in an outage) is logged; the process does not die of an unhandled rejection', async () => {
    const t = await startTestStorage({ previews: false });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const warnings: string[] = [];
    const outage = new Error('connection 3 to 127.0.0.1:27017 closed');
    outage.name = 'MongoNetworkError';
    const docs = Object.create(t.docs) as typeof t.docs;
    docs.collection = ((name: string) => {
      const real = t.docs.collection(name);
      return { ...real, find: async () => Promise.reject(outage), get: real.get.bind(real) };
    }) as typeof t.docs.collection;
    const log = Object.create(t.ctx.log) as typeof t.ctx.log;
    log.warn = ((_fields: unknown, msg: string) => void warnings.push(msg)) as typeof log.warn;
    const previewer = new Previewer({ ...t.ctx, docs, log }, { concurrency: 1 });
    try {
      previewer.start(20);
      // the scan (every 20 ms) fails and says so: wait for the warning, not for a fixed time
      const deadline = Date.now() + 10_000;
      while (!warnings.some((m) => /scan/.test(m)) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(unhandled, []);
      assert.ok(
        warnings.some((m) => /scan/.test(m)),
        `warned: ${JSON.stringify(warnings)}`,
      );
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await previewer.stop();
      await t.close();
    }
  });
});
