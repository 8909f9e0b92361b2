/**
 * FileReadStream and the read buffers: the bytes asked for, exactly, whatever the buffers went
 * through before; the descriptor closed however the stream ends; a buffer lent once at a time.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { fstat, openSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FileReadStream, READ_CHUNK_BYTES, readBuffers, recycleReadBuffer } from './read-buffers.js';

const MiB = 1024 * 1024;
let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'read-buffers-'));
});
after(() => rm(dir, { recursive: true, force: true }));

function file(bytes: Buffer): number {
  const path = join(dir, randomBytes(8).toString('hex'));
  writeFileSync(path, bytes);
  return openSync(path, 'r');
}

const isOpen = (fd: number) => new Promise<boolean>((resolve) => fstat(fd, (error) => resolve(!error)));

/** Everything the stream yields, each chunk copied out and then given back at once (as a download does once written). */
async function drain(stream: FileReadStream, giveBack = true): Promise<{ bytes: Buffer; chunks: number }> {
  const copies: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    copies.push(Buffer.from(chunk));
    if (giveBack) recycleReadBuffer(chunk);
  }
  return { bytes: Buffer.concat(copies), chunks: copies.length };
}

describe('FileReadStream', () => {
  it('yields exactly the file, or the range, for sizes around the chunk size, and closes its descriptor', async () => {
    for (const size of [0, 1, 4096, READ_CHUNK_BYTES - 1, READ_CHUNK_BYTES, READ_CHUNK_BYTES + 1, 3.5 * MiB]) {
      const bytes = randomBytes(size);
      const fd = file(bytes);
      const whole = await drain(new FileReadStream(fd, size > 0 ? { start: 0, end: size - 1 } : {}));
      assert.ok(whole.bytes.equals(bytes), `whole file of ${size} bytes`);
      assert.equal(await isOpen(fd), false, 'closed at the end');
      if (size < 3) continue;
      const fd2 = file(bytes);
      const range = { start: 1, end: size - 2 };
      const part = await drain(new FileReadStream(fd2, range));
      assert.ok(part.bytes.equals(bytes.subarray(1, size - 1)), `range of ${size} bytes`);
      // without an end: to the end of the file
      const fd3 = file(bytes);
      assert.ok((await drain(new FileReadStream(fd3, { start: 2 }))).bytes.equals(bytes.subarray(2)));
    }
  });

  it('gives the same bytes when every read reuses buffers given back by earlier reads', async () => {
    const files = Array.from({ length: 6 }, () => randomBytes(2 * MiB + 17));
    const reusedBefore = readBuffers.reused;
    // two streams at a time, each giving its chunks back as it goes: buffers move between them
    for (let i = 0; i < files.length; i += 2) {
      const [a, b] = await Promise.all(
        [files[i], files[i + 1]].map((bytes) =>
          drain(new FileReadStream(file(bytes), { start: 0, end: bytes.length - 1 })),
        ),
      );
      assert.ok(a.bytes.equals(files[i]));
      assert.ok(b.bytes.equals(files[i + 1]));
    }
    assert.ok(readBuffers.reused - reusedBefore >= 8, `buffers were used again (${readBuffers.reused - reusedBefore})`);
  });

  it('a chunk given back twice, or a buffer it never lent, does not enter the pool', async () => {
    const bytes = randomBytes(READ_CHUNK_BYTES);
    const stream = new FileReadStream(file(bytes), { start: 0, end: bytes.length - 1 });
    const chunks: Buffer[] = [];
    for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
    assert.equal(chunks.length, 1);
    // empty the pool's idle buffers, so what it holds next is known
    const held: Buffer[] = [];
    while (readBuffers.idle > 0) held.push(readBuffers.take());
    recycleReadBuffer(chunks[0]);
    recycleReadBuffer(chunks[0]);
    recycleReadBuffer(Buffer.allocUnsafeSlow(READ_CHUNK_BYTES));
    assert.equal(readBuffers.idle, 1, 'one buffer back, once');
    // the two next reads get two different buffers: the one given back is lent once
    const first = readBuffers.take();
    const second = readBuffers.take();
    assert.notEqual(first.buffer, second.buffer);
    for (const b of [first, second, ...held]) recycleReadBuffer(b);
  });

  it('a chunk nobody gives back stays the reader’s: later reads never write into it', async () => {
    const bytes = randomBytes(READ_CHUNK_BYTES);
    const kept: Buffer[] = [];
    for await (const chunk of new FileReadStream(file(bytes), {
      start: 0,
      end: bytes.length - 1,
    }) as AsyncIterable<Buffer>)
      kept.push(chunk);
    // other reads, giving their buffers back
    for (let i = 0; i < 4; i++)
      await drain(new FileReadStream(file(randomBytes(2 * MiB)), { start: 0, end: 2 * MiB - 1 }));
    assert.ok(Buffer.concat(kept).equals(bytes));
  });

  it('destroyed mid-read, it closes its descriptor once the read in flight has returned', async () => {
    const bytes = randomBytes(4 * MiB);
    const fd = file(bytes);
    const stream = new FileReadStream(fd, { start: 0, end: bytes.length - 1 });
    const closed = new Promise((resolve) => stream.once('close', resolve));
    stream.once('data', () => stream.destroy());
    stream.resume();
    await closed;
    assert.equal(await isOpen(fd), false);
    // destroyed before any read
    const fd2 = file(bytes);
    const idle = new FileReadStream(fd2, {});
    idle.destroy();
    await new Promise((resolve) => idle.once('close', resolve));
    assert.equal(await isOpen(fd2), false);
  });

  it('a read that fails is the stream’s error', async () => {
    const fd = file(randomBytes(10));
    // a descriptor that is not open: the read fails with EBADF
    const stream = new FileReadStream(fd + 10_000, { start: 0, end: 9 });
    await assert.rejects(drain(stream), /EBADF/);
  });
});
