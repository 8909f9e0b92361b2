/**
 * An upload's SHA-1, MD5 and CRC-32 (checksums.ts): the same whether computed on the main thread
 * (small bodies) or on a worker (large ones), however the bytes are chunked; one upload never has
 * more than a window of bytes with its worker; a worker that dies fails its uploads, not the next.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { crc32 } from 'node:zlib';
import {
  BATCH_BYTES,
  ChecksumWorkers,
  OFF_THREAD_BYTES,
  UploadChecksums,
  WINDOW_BYTES,
  type WorkerJob,
} from './checksums.js';

const workers = new ChecksumWorkers(2);
after(() => workers.terminate());

const expected = (bytes: Buffer) => ({
  sha1: createHash('sha1').update(bytes).digest('hex'),
  md5: createHash('md5').update(bytes).digest('hex'),
  crc32: crc32(bytes) >>> 0,
});

/** `bytes` in chunks of random sizes up to `most`, waiting whenever the worker is behind. */
async function feed(sums: UploadChecksums, bytes: Buffer, most: number): Promise<void> {
  for (let at = 0; at < bytes.length;) {
    const n = 1 + Math.floor(Math.random() * most);
    await sums.update(bytes.subarray(at, at + n));
    at += n;
  }
}

describe('upload checksums', () => {
  for (const size of [0, 1, 4096, OFF_THREAD_BYTES, OFF_THREAD_BYTES + 1, 3 * 2 ** 20 + 17]) {
    it(`${size} bytes: the checksums of the bytes, ${size > OFF_THREAD_BYTES ? 'on a worker' : 'on the main thread'}`, async () => {
      const bytes = randomBytes(size);
      for (const most of [1000, 70_000]) {
        const sums = new UploadChecksums(workers);
        await feed(sums, bytes, most);
        assert.equal(sums.offThread, size > OFF_THREAD_BYTES);
        assert.deepEqual(await sums.digest(), expected(bytes), `chunks of up to ${most} bytes`);
      }
    });
  }

  it('holds an upload back once a window of its bytes is with the worker, and lets it go on as they are hashed', async () => {
    const sums = new UploadChecksums(workers);
    const chunk = randomBytes(64 * 1024);
    const given: Buffer[] = [];
    // synchronously, so that no answer of the worker can arrive in between
    let behind: Promise<void> | undefined;
    while (!behind) {
      given.push(chunk);
      behind = sums.update(chunk);
      assert.ok(given.length < 64, 'the worker was never behind');
    }
    const job = (sums as unknown as { job: WorkerJob }).job;
    assert.ok(
      job.inFlight > WINDOW_BYTES && job.inFlight <= WINDOW_BYTES + BATCH_BYTES,
      `${job.inFlight} bytes in flight`,
    );
    await behind;
    assert.ok(job.inFlight <= WINDOW_BYTES);
    for (let i = 0; i < 40; i++) {
      given.push(chunk);
      await sums.update(chunk);
    }
    assert.ok(job.maxInFlight <= WINDOW_BYTES + BATCH_BYTES, `at most ${job.maxInFlight} bytes were in flight`);
    assert.deepEqual(await sums.digest(), expected(Buffer.concat(given)));
  });

  it('fails the uploads of a worker that dies, and hashes the next upload on a new one', async () => {
    const pool = new ChecksumWorkers(1);
    try {
      const sums = new UploadChecksums(pool);
      await feed(sums, randomBytes(OFF_THREAD_BYTES + 10), 50_000);
      assert.ok(sums.offThread);
      await pool.terminate();
      await assert.rejects(sums.digest(), /checksum worker exited/);
      const next = new UploadChecksums(pool);
      const bytes = randomBytes(OFF_THREAD_BYTES * 2);
      await feed(next, bytes, 50_000);
      assert.deepEqual(await next.digest(), expected(bytes));
    } finally {
      await pool.terminate();
    }
  });

  it('a dropped upload refuses more bytes and leaves its worker free for others', async () => {
    const sums = new UploadChecksums(workers);
    await feed(sums, randomBytes(OFF_THREAD_BYTES + 1), 10_000);
    sums.drop();
    await assert.rejects(sums.update(Buffer.alloc(10)) ?? Promise.resolve(), /dropped/);
    const other = new UploadChecksums(workers);
    const bytes = randomBytes(OFF_THREAD_BYTES + 1);
    await feed(other, bytes, 10_000);
    assert.deepEqual(await other.digest(), expected(bytes));
  });
});
