/**
 * A put's digests (digests.ts): the same whether computed on the main thread (small bodies) or on
 * a worker (large ones), however the bytes are chunked, each only when asked for; one put never
 * has more than a window of bytes with its worker; a worker that dies fails its puts, not the next.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { crc32 } from 'node:zlib';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  BATCH_BYTES,
  digestWorkers,
  DigestWorkers,
  type DigestSet,
  OFF_THREAD_BYTES,
  StreamDigests,
  WINDOW_BYTES,
  type WorkerJob,
} from './digests.js';
import { LocalBlobStore } from './local.js';

const workers = new DigestWorkers(2);
after(() => workers.terminate());

const ALL: DigestSet = { sha256: true, checksums: true };

const expected = (bytes: Buffer, set: DigestSet = ALL) => ({
  sha256: set.sha256 ? createHash('sha256').update(bytes).digest('hex') : undefined,
  sha1: set.checksums ? createHash('sha1').update(bytes).digest('hex') : undefined,
  md5: set.checksums ? createHash('md5').update(bytes).digest('hex') : undefined,
  crc32: set.checksums ? crc32(bytes) >>> 0 : undefined,
});

/** `bytes` in chunks of random sizes up to `most`, waiting whenever the worker is behind. */
async function feed(sums: StreamDigests, bytes: Buffer, most: number): Promise<void> {
  for (let at = 0; at < bytes.length;) {
    const n = 1 + Math.floor(Math.random() * most);
    await sums.update(bytes.subarray(at, at + n));
    at += n;
  }
}

describe('put digests', () => {
  for (const size of [0, 1, 4096, OFF_THREAD_BYTES, OFF_THREAD_BYTES + 1, 3 * 2 ** 20 + 17]) {
    it(`${size} bytes: the digests of the bytes, ${size > OFF_THREAD_BYTES ? 'on a worker with the checksums' : 'on the main thread'}, each only when asked for`, async () => {
      const bytes = randomBytes(size);
      for (const set of [ALL, { sha256: true, checksums: false }, { sha256: false, checksums: true }]) {
        for (const most of [1000, 70_000]) {
          const sums = new StreamDigests(set, workers);
          await feed(sums, bytes, most);
          assert.equal(
            sums.offThread,
            size > OFF_THREAD_BYTES && set.checksums,
            'only the checksums go to a worker, once the body is large',
          );
          assert.deepEqual(
            await sums.digest(),
            expected(bytes, set),
            `${JSON.stringify(set)}, chunks of up to ${most} bytes`,
          );
        }
      }
    });
  }

  it('holds a put back once a window of its bytes is with the worker, and lets it go on as they are hashed', async () => {
    const sums = new StreamDigests(ALL, workers);
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

  it('fails the puts of a worker that dies, and hashes the next put on a new one', async () => {
    const pool = new DigestWorkers(1);
    try {
      const sums = new StreamDigests(ALL, pool);
      await feed(sums, randomBytes(OFF_THREAD_BYTES + 10), 50_000);
      assert.ok(sums.offThread);
      await pool.terminate();
      await assert.rejects(sums.digest(), /digest worker exited/);
      const next = new StreamDigests(ALL, pool);
      const bytes = randomBytes(OFF_THREAD_BYTES * 2);
      await feed(next, bytes, 50_000);
      assert.deepEqual(await next.digest(), expected(bytes));
    } finally {
      await pool.terminate();
    }
  });

  for (const checksums of [true, false]) {
    it(`a put whose body fails half way stores nothing and leaves nothing with the workers (checksums: ${checksums})`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'burrow-digests-'));
      try {
        const store = new LocalBlobStore(dir);
        // a body that fails once 1 MiB of it was read (the store reads it only once its folders exist)
        let reads = 0;
        const source = new Readable({
          read() {
            if (reads++ < 8) this.push(randomBytes(128 * 1024));
            else this.destroy(new Error('the client went away'));
          },
        });
        const put = store.put(source, { checksums });
        await assert.rejects(put, /the client went away/);
        assert.equal(digestWorkers.busy, 0, 'no put left with a worker');
        assert.deepEqual((await store.list()).blobs, [], 'nothing stored');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it('a dropped put refuses more bytes and leaves its worker free for others', async () => {
    const sums = new StreamDigests(ALL, workers);
    await feed(sums, randomBytes(OFF_THREAD_BYTES + 1), 10_000);
    sums.drop();
    await assert.rejects(sums.update(Buffer.alloc(10)) ?? Promise.resolve(), /dropped/);
    const other = new StreamDigests(ALL, workers);
    const bytes = randomBytes(OFF_THREAD_BYTES + 1);
    await feed(other, bytes, 10_000);
    assert.deepEqual(await other.digest(), expected(bytes));
  });
});
