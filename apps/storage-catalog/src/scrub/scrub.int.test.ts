/**
 * The scrub against the real stores: a catalog of several users' files, one blob damaged on disk
 * (same size), one deleted behind the catalog's back, one shared by two users. Walked a page at a
 * time (small pages, so pages boundaries fall between the problems), it must report the damaged
 * blob as corrupt and quarantine it, the deleted one as missing, each with the files and users
 * it hurts, nothing else, every blob exactly once; after the quarantine, the next upload of that
 * content stores it anew and a second walk is clean. The periodic run reads no faster than told.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { open, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import type { VerifyBlobsPage } from '@burrow/contracts';
import { cleanUpTestStorage, expectError, startTestStorage, type TestStorage } from '../testing/test-context.js';
import { BlobScrubber } from './blob-scrub.js';
import { ScrubHandlers } from './scrub.handlers.js';

after(cleanUpTestStorage);

const blobPath = (t: TestStorage, key: string) => join(t.dir, 'blobs', key.slice(0, 2), key.slice(2, 4), key);

async function damage(t: TestStorage, key: string): Promise<void> {
  const handle = await open(blobPath(t, key), 'r+');
  try {
    const at = Math.floor((await handle.stat()).size / 2);
    const two = Buffer.alloc(2);
    await handle.read(two, 0, 2, at);
    two[0] ^= 0xff;
    two[1] ^= 0xff;
    await handle.write(two, 0, 2, at);
  } finally {
    await handle.close();
  }
}

/** Every page of a walk, each of at most `maxBlobs` blobs. */
async function walk(scrubber: BlobScrubber, maxBlobs: number): Promise<VerifyBlobsPage[]> {
  const pages: VerifyBlobsPage[] = [];
  let after: string | undefined;
  do {
    const page = await scrubber.verifyPage({ after, max_blobs: maxBlobs });
    pages.push(page);
    assert.ok(after === undefined || page.next === null || page.next > after, 'the walk moves forward');
    after = page.next ?? undefined;
  } while (after !== undefined);
  return pages;
}

describe('the blob scrub', () => {
  let t: TestStorage;
  afterEach(async () => t?.close());

  it('finds the damaged blob and the missing one, once each, with the files and users they hurt; the quarantine lets the next upload heal', async () => {
    t = await startTestStorage();
    const partner = await t.createPartner();
    const alice = await t.createUser(partner, { username: 'alice' });
    const bob = await t.createUser(partner, { username: 'bob' });
    for (const u of [alice, bob]) await t.registerDevice(u, 'laptop');
    const shared = randomBytes(5000);
    const damaged = (await t.upload(alice, 'laptop', 'Docs/shared.bin', shared)).blob;
    await t.upload(bob, 'laptop', 'copy of shared.bin', shared);
    const lost = (await t.upload(bob, 'laptop', 'lost.txt', randomBytes(300))).blob;
    const fine: string[] = [];
    for (let i = 0; i < 12; i++)
      fine.push((await t.upload(alice, 'laptop', `fine/${i}.bin`, randomBytes(100 + i))).blob);
    await damage(t, damaged);
    await rm(blobPath(t, lost));

    const scrubber = new BlobScrubber(t.ctx);
    const pages = await walk(scrubber, 3);
    assert.ok(pages.length >= 4, `${pages.length} pages`);
    assert.equal(
      pages.reduce((n, p) => n + p.checked, 0),
      fine.length + 1,
      'every stored blob read once',
    );
    const corrupt = pages.flatMap((p) => p.corrupt);
    const missing = pages.flatMap((p) => p.missing);
    assert.deepEqual(
      pages.flatMap((p) => p.failed),
      [],
    );
    assert.deepEqual(
      corrupt.map((c) => [c.blob, c.size, c.quarantined]),
      [[damaged, shared.length, true]],
    );
    assert.deepEqual(corrupt[0].users, ['alice', 'bob']);
    assert.equal(corrupt[0].files_total, 2);
    assert.deepEqual(corrupt[0].files.map((f) => `${f.user}:${f.device}:${f.path}:${f.version}:${f.latest}`).sort(), [
      'alice:laptop:Docs/shared.bin:0:true',
      'bob:laptop:copy of shared.bin:0:true',
    ]);
    assert.deepEqual(
      missing.map((m) => [m.blob, m.users, m.files.map((f) => f.path)]),
      [[lost, ['bob'], ['lost.txt']]],
    );
    // quarantined: out of the store, kept aside
    assert.equal(await t.blobs.exists(damaged), false);
    assert.match((await readdir(join(t.dir, 'blobs', 'quarantine')))[0], new RegExp(`^${damaged}\\.`));

    // the next upload of the content (anyone's) stores it anew; a second walk is clean but for the lost one
    await t.upload(bob, 'laptop', 'again.bin', shared);
    assert.equal(await t.blobs.exists(damaged), true);
    const again = await walk(scrubber, 5);
    assert.deepEqual(
      again.flatMap((p) => p.corrupt),
      [],
    );
    assert.deepEqual(
      again.flatMap((p) => p.missing).map((m) => m.blob),
      [lost],
    );
    assert.equal(
      again.reduce((n, p) => n + p.checked, 0),
      fine.length + 1,
    );
  });

  it('a page stops once it has read max_bytes (a blob is read whole); the handler refuses malformed pages', async () => {
    t = await startTestStorage();
    const user = await t.createUser(await t.createPartner());
    await t.registerDevice(user, 'laptop');
    for (let i = 0; i < 6; i++) await t.upload(user, 'laptop', `f${i}`, randomBytes(1000));
    const scrubber = new BlobScrubber(t.ctx);
    const first = await scrubber.verifyPage({ max_bytes: 1500 });
    assert.deepEqual([first.checked, first.bytes], [2, 2000]);
    assert.notEqual(first.next, null);
    const handlers = new ScrubHandlers(scrubber);
    await expectError(handlers.verify({ after: '../etc' }), 400);
    await expectError(handlers.verify({ max_bytes: 0 }), 400);
    await expectError(handlers.verify({ max_blobs: 1.5 }), 400);
    const rest = await handlers.verify({ after: first.next! });
    assert.deepEqual([rest.checked, rest.next], [4, null]);
  });

  it('the periodic run reads at most its rate: 60 kB at 20 kB/s waits about 3 s in all', async () => {
    t = await startTestStorage();
    const user = await t.createUser(await t.createPartner());
    await t.registerDevice(user, 'laptop');
    for (let i = 0; i < 6; i++) await t.upload(user, 'laptop', `f${i}`, randomBytes(10_000));
    // the clock moves only when the scrub waits: its report's seconds are the waits it made
    let clock = 0;
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
      clock += ms;
    };
    const report = await new BlobScrubber(t.ctx, { bytesPerSecond: 20_000, now: () => clock, sleep }).run();
    assert.equal(report.bytes, 60_000);
    assert.ok(report.seconds >= 2.9 && report.seconds <= 3.1, `${report.seconds} s`);
    assert.ok(waits.length >= 2, 'it paused between pages');
  });
});
