/**
 * copyExactly: exactly the catalog's length reaches the response, with back-pressure, or it fails
 * (the caller then cuts the connection) and the source is released.
 */
import assert from 'node:assert/strict';
import { PassThrough, Readable, Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { readBuffers, recycleReadBuffer } from '@burrow/blobs';
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

  it('gives a chunk of a blob read back to the read buffers once the sink has taken it, not before', async () => {
    // the pool emptied first, so what it holds afterwards is what the copy gave back
    const held: Buffer[] = [];
    while (readBuffers.idle > 0) held.push(readBuffers.take());
    const lent = [readBuffers.take().fill(7), readBuffers.take().fill(9)];
    const idleWhileWriting: number[] = [];
    const got: Buffer[] = [];
    const out = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _encoding, callback) {
        idleWhileWriting.push(readBuffers.idle);
        got.push(Buffer.from(chunk));
        setImmediate(callback);
      },
    });
    await copyExactly(Readable.from(lent), out, lent[0].length * 2);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(idleWhileWriting, [0, 1], 'the first chunk was back only once the sink had it');
    assert.equal(readBuffers.idle, 2);
    assert.ok(
      Buffer.concat(got).equals(Buffer.concat([Buffer.alloc(lent[0].length, 7), Buffer.alloc(lent[0].length, 9)])),
    );
    for (const b of held) recycleReadBuffer(b);
  });
});
