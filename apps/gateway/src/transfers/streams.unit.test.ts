/**
 * copyExactly: exactly the catalog's length reaches the response, with back-pressure, or it fails
 * (the caller then cuts the connection) and the source is released.
 */
import assert from 'node:assert/strict';
import { PassThrough, Readable, Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { FileReadStream, READ_CHUNK_BYTES, readBuffers } from '@burrow/blobs';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withServer } from '../testing/http-serve.js';
import { ClientGoneError, copyExactly, ShortBlobError } from './streams.js';

const chunks = (sizes: number[]) => sizes.map((n, i) => Buffer.alloc(n, i + 1));

/** A slow sink (a full buffer after every chunk) that keeps what it got. */
function sink() {
  const got: Buffer[] = [];
  const out = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _encoding, callback) {
      got.push(chunk);
      setImmediate(callback);
    },
  });
  return { out, bytes: () => Buffer.concat(got) };
}

describe('copyExactly', () => {
  it('copies every byte in order, waiting for the sink, and leaves it open', async () => {
    const source = Readable.from(chunks([3, 5, 7, 1]));
    const { out, bytes } = sink();
    await copyExactly(source, out, 16);
    assert.deepEqual(bytes(), Buffer.concat(chunks([3, 5, 7, 1])));
    assert.equal(out.writableEnded, false);
  });

  it('a source longer than the length fails at the first byte too many; a shorter one at its end', async () => {
    const long = Readable.from(chunks([4, 4]));
    await assert.rejects(copyExactly(long, sink().out, 6), ShortBlobError);
    assert.ok(long.destroyed, 'the source is released');
    await assert.rejects(copyExactly(Readable.from(chunks([4])), sink().out, 6), ShortBlobError);
  });

  it('a client gone mid-copy is a ClientGoneError, and the source is released', async () => {
    const source = new PassThrough();
    const { out } = sink();
    const copy = copyExactly(source, out, 100);
    source.write(Buffer.alloc(10));
    await new Promise((resolve) => setImmediate(resolve));
    out.destroy();
    await assert.rejects(copy, ClientGoneError);
    assert.ok(source.destroyed);
    await assert.rejects(copyExactly(Readable.from(chunks([1])), out, 1), ClientGoneError, 'already gone');
  });

  it('a source that fails (a read error, bytes that do not match their hash) rejects with its error', async () => {
    const source = new PassThrough();
    const copy = copyExactly(source, sink().out, 100);
    source.write(Buffer.alloc(10));
    source.destroy(new Error('EIO'));
    await assert.rejects(copy, /EIO/);
  });

  it('gives a blob read’s chunks back once an HTTP response’s socket has them; a sink that keeps chunks gets them for good', async () => {
    const bytes = randomBytes(3 * READ_CHUNK_BYTES + 11);
    const path = join(mkdtempSync(join(tmpdir(), 'copy-')), 'blob');
    writeFileSync(path, bytes);
    const read = () => new FileReadStream(openSync(path, 'r'), { start: 0, end: bytes.length - 1 });

    // a Writable that keeps what it is given: nothing is given back, so nothing it holds is read into
    const before = readBuffers.outstanding;
    const kept = sink();
    await copyExactly(read(), kept.out, bytes.length);
    await copyExactly(read(), sink().out, bytes.length);
    assert.ok(kept.bytes().equals(bytes));
    assert.equal(readBuffers.outstanding - before, 6, 'three full chunks a copy, none given back');

    // an HTTP response: every full chunk is given back, and read into again by the next download
    await withServer(
      (_req, res) => void copyExactly(read(), res, bytes.length).then(() => res.end()),
      async (download) => {
        const outstanding = readBuffers.outstanding;
        const reused = readBuffers.reused;
        const [a, b] = await Promise.all([download(), download()]);
        assert.ok(a.equals(bytes) && b.equals(bytes), 'both downloads whole and right');
        assert.ok((await download()).equals(bytes));
        assert.equal(readBuffers.outstanding, outstanding, 'every full chunk given back');
        assert.ok(readBuffers.reused - reused >= 3, 'and read into again');
      },
    );
  });
});
