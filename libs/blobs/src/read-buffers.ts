/**
 * A blob's bytes read from its file into buffers that are used again (the local folder's reads).
 *
 * Node's file streams allocate a new buffer for every read: a 1 MiB download allocated 1 MiB of
 * memory outside V8's heap, and V8 answers such allocations with a full collection of the whole
 * heap once enough of them add up. Measured (`bench:download`, 1 MiB GETs one after another): a
 * major collection every ~20 GETs, ~10 ms each over the gateway's live heap, 0.7 ms of the main
 * thread per GET plus the helpers' marking, where a bare file server's small heap costs next to
 * nothing.
 *
 * `FileReadStream` reads full chunks into buffers taken from `readBuffers` (a file's shorter last
 * part into a buffer of its size, as before); a consumer done with a chunk (its
 * bytes written out and nothing holding it: the download's copy, once the socket has taken it)
 * gives it back with `recycleReadBuffer`, and the next read uses it. Giving back is optional: a
 * chunk nobody gives back is collected as before, and a buffer the pool did not lend, or one given
 * back already, is ignored, so a consumer that gives back what it got can never hand the pool a
 * buffer twice. The pool keeps at most `FREE_BUFFERS` idle buffers (a few MiB held for good).
 */
import { close, read } from 'node:fs';
import { Readable } from 'node:stream';

/** One read's size: what a download's chunk is (1 MiB, as the bare file server it is measured against). */
export const READ_CHUNK_BYTES = 1024 * 1024;
/** Idle buffers kept for the next reads (MiB of memory held when downloads stop). */
const FREE_BUFFERS = 8;

class ReadBuffers {
  private readonly free: Buffer[] = [];
  /** the memory of each buffer lent and not given back (weak: one never given back is collected) */
  private readonly lent = new WeakSet<ArrayBufferLike>();
  /** buffers given back and used again (tests, diagnostics) */
  reused = 0;
  /** buffers lent and not given back (tests: a consumer gave back what it got); never given back, they stay counted */
  outstanding = 0;

  take(): Buffer {
    const reused = this.free.pop();
    if (reused) this.reused++;
    const buffer = reused ?? Buffer.allocUnsafeSlow(READ_CHUNK_BYTES);
    this.lent.add(buffer.buffer);
    this.outstanding++;
    return buffer;
  }

  /** Gives back the buffer `chunk` lies in (the whole of it, or the bytes a short read filled). */
  give(chunk: Buffer): void {
    const memory = chunk.buffer;
    if (!this.lent.has(memory)) return;
    this.lent.delete(memory);
    this.outstanding--;
    if (this.free.length < FREE_BUFFERS) this.free.push(Buffer.from(memory, 0, READ_CHUNK_BYTES));
  }

  /** idle buffers (tests) */
  get idle(): number {
    return this.free.length;
  }
}

export const readBuffers = new ReadBuffers();

/**
 * Gives a chunk of a blob read back to the pool once nothing needs its bytes any more (see the
 * header). Any other buffer is ignored.
 */
export function recycleReadBuffer(chunk: Buffer): void {
  readBuffers.give(chunk);
}

/**
 * The bytes `start`..`end` (inclusive; to the end of the file without `end`) of an open file, in
 * reads of up to `READ_CHUNK_BYTES` into lent buffers; the descriptor is the stream's, closed when
 * it ends or is destroyed (after a read in flight has returned: the number must not be reused
 * under it).
 */
export class FileReadStream extends Readable {
  private position: number;
  private readonly end: number;
  private reading = false;
  private closeWhenRead: ((error: Error | null) => void) | null = null;

  constructor(
    private readonly fd: number,
    bounds: { start?: number; end?: number } = {},
  ) {
    super({ highWaterMark: READ_CHUNK_BYTES });
    this.position = bounds.start ?? 0;
    this.end = bounds.end ?? Infinity;
  }

  override _read(): void {
    const wanted = Math.min(READ_CHUNK_BYTES, this.end - this.position + 1);
    if (wanted <= 0) {
      this.push(null);
      return;
    }
    // a full chunk into a lent buffer; a shorter read (a file's last part) into one of its size, as
    // Node's own stream does, so a consumer that gives nothing back pays what it paid before
    const buffer = wanted === READ_CHUNK_BYTES ? readBuffers.take() : Buffer.allocUnsafeSlow(wanted);
    this.reading = true;
    read(this.fd, buffer, 0, wanted, this.position, (error, bytesRead) => {
      this.reading = false;
      if (this.closeWhenRead) {
        readBuffers.give(buffer);
        this.closeWhenRead(null);
        return;
      }
      if (error) {
        readBuffers.give(buffer);
        this.destroy(error);
        return;
      }
      if (bytesRead === 0) {
        readBuffers.give(buffer);
        this.push(null);
        return;
      }
      this.position += bytesRead;
      this.push(bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead));
    });
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const closeFile = () => close(this.fd, (closeError) => callback(error ?? closeError ?? null));
    if (this.reading) this.closeWhenRead = closeFile;
    else closeFile();
  }
}
