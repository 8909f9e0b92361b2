/**
 * `ingest` hands the commit the upload's first bytes (the previewer sniffs them instead of reading
 * the blob back), whatever the chunks they arrived in, with its size, CRC-32, SHA-1 and MD5 (the
 * checksums WebDAV serves), through a real blob store; a large body's on a worker thread.
 */
import { LocalBlobStore, OFF_THREAD_BYTES } from '@burrow/blobs';
import { UPLOAD_HEAD_BYTES } from '@burrow/contracts';
import express from 'express';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { crc32 } from 'node:zlib';
import { EMPTY_CHECKSUMS, ingest } from './ingest.js';

const dir = mkdtempSync(join(tmpdir(), 'burrow-ingest-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** PUTs `chunks` (each written on its own, with a pause between) and answers with what `ingest` returned. */
async function upload(
  chunks: Buffer[],
): Promise<{ blob: string; size: number; crc32: number; checksums: { sha1: string; md5: string }; head: string }> {
  const blobs = new LocalBlobStore(join(dir, 'blobs'));
  const app = express();
  app.put('/f', (req, res, next) => {
    ingest(req, blobs).then((blob) => res.json(blob), next);
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    return await new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: (server.address() as AddressInfo).port, method: 'PUT', path: '/f' },
        (res) => {
          const body: Buffer[] = [];
          res.on('data', (c: Buffer) => body.push(c));
          res.on('end', () => resolve(JSON.parse(Buffer.concat(body).toString())));
        },
      );
      req.on('error', reject);
      void (async () => {
        for (const chunk of chunks) {
          req.write(chunk);
          await new Promise((r) => setTimeout(r, 5));
        }
        req.end();
      })();
    });
  } finally {
    server.close();
  }
}

describe('ingest', () => {
  it(`hands over the first ${UPLOAD_HEAD_BYTES} bytes however they arrive, all of a shorter upload, none of an empty one`, async () => {
    const bytes = Buffer.from('\x89PNG\r\n\x1a\n and then much more than the head of the file');
    const split = await upload([bytes.subarray(0, 3), bytes.subarray(3, 9), bytes.subarray(9)]);
    assert.equal(split.head, bytes.subarray(0, UPLOAD_HEAD_BYTES).toString('base64'));
    assert.equal(split.size, bytes.length);
    assert.equal(split.crc32, crc32(bytes) >>> 0);
    assert.equal((await upload([bytes])).head, split.head, 'one chunk: the same head');
    assert.equal((await upload([Buffer.from('tiny')])).head, Buffer.from('tiny').toString('base64'));
    assert.equal((await upload([])).head, '');
  });

  it("computes SHA-1 and MD5 of the bytes in the same pass, whatever the chunks, beside the blob store's sha256", async () => {
    const bytes = Buffer.concat([Buffer.from('checksums '), Buffer.alloc(200_000, 7), Buffer.from(' end')]);
    const digest = (algorithm: string, data: Buffer) => createHash(algorithm).update(data).digest('hex');
    const split = await upload([bytes.subarray(0, 1), bytes.subarray(1, 70_000), bytes.subarray(70_000)]);
    assert.deepEqual(split.checksums, { sha1: digest('sha1', bytes), md5: digest('md5', bytes) });
    assert.equal(split.blob, digest('sha256', bytes), "the blob key stays Burrow's own sha256");
    assert.deepEqual((await upload([])).checksums, { sha1: EMPTY_CHECKSUMS.sha1, md5: EMPTY_CHECKSUMS.md5 });
    assert.deepEqual(EMPTY_CHECKSUMS, { sha1: digest('sha1', Buffer.alloc(0)), md5: digest('md5', Buffer.alloc(0)) });
  });

  it('gives the same checksums for a body large enough to be hashed on a worker thread', async () => {
    const bytes = randomBytes(OFF_THREAD_BYTES * 3 + 12_345);
    const digest = (algorithm: string, data: Buffer) => createHash(algorithm).update(data).digest('hex');
    const chunks: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += 100_000) chunks.push(bytes.subarray(at, at + 100_000));
    const large = await upload(chunks);
    assert.deepEqual(large.checksums, { sha1: digest('sha1', bytes), md5: digest('md5', bytes) });
    assert.equal(large.crc32, crc32(bytes) >>> 0);
    assert.equal(large.size, bytes.length);
    assert.equal(large.blob, digest('sha256', bytes));
  });
});
