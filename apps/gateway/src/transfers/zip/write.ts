/**
 * Streaming the archive, or any byte range of it, with back-pressure. Pass 1 walks the entries
 * writing local headers and file data; entries wholly outside the range are skipped without
 * opening their blobs, and a partly covered blob is opened for the needed sub-range only. Pass 2
 * walks the entries again to regenerate the central directory (offsets recomputed, never held in
 * memory), then the tail. Any failure rejects before `out` is ended, so the caller can destroy
 * the connection: a client never receives a short archive that looks complete.
 */
import { recycleReadBuffer } from '@burrow/blobs';
import { keepsNoChunks } from '../streams.js';
import type { Readable, Writable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { newWalkState, walk, type ZipItem } from './layout.js';
import { archiveLength, EtagHash } from './plan.js';
import { centralHeader, localHeader, tail } from './records.js';
import { type WriteZipOptions, type ZipEntries, ZipError, type ZipRange } from './types.js';

/** Headers and small blob chunks are gathered into writes of about this size; larger chunks pass through as they come. */
const COALESCE = 64 * 1024;

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The output side: back-pressure, coalescing, and noticing promptly that the client went away. */
class Output {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private wake: (() => void) | null = null;
  private failure: ZipError | null = null;
  /** the blob being copied, destroyed if the output goes away */
  private source: Readable | null = null;
  private ending = false;

  /** chunks written to `out` are nobody's once written (an HTTP response): blob reads' buffers go back */
  private readonly giveBack: boolean;

  constructor(private readonly out: Writable) {
    this.giveBack = keepsNoChunks(out);
    out.on('drain', this.wakeUp);
    out.on('finish', this.wakeUp);
    out.on('close', this.onClose);
    out.on('error', this.onError);
  }

  private readonly wakeUp = () => {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  };

  private readonly onClose = () => {
    if (!this.out.writableFinished)
      this.fail(new ZipError('OUTPUT_CLOSED', 'the output closed before the archive was complete'));
  };

  private readonly onError = (err: Error) =>
    this.fail(new ZipError('OUTPUT_CLOSED', `the output failed: ${err.message}`, { cause: err }));

  private fail(err: ZipError): void {
    this.failure ??= err;
    this.source?.destroy(this.failure);
    this.wakeUp();
  }

  /** Throws if the output is gone. */
  check(): void {
    const gone = this.out.destroyed || (this.out.writableEnded && !this.ending);
    if (!this.failure && gone && !this.out.writableFinished)
      this.fail(new ZipError('OUTPUT_CLOSED', 'the output closed before the archive was complete'));
    if (this.failure) throw this.failure;
  }

  private waitForEvent(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  /** Writes `buf`; `giveBack`: it is a blob read's chunk, given back once written out (read-buffers.ts). */
  async write(buf: Buffer, giveBack = false): Promise<void> {
    this.check();
    const written = giveBack
      ? this.out.write(buf, (error) => {
          if (!error) recycleReadBuffer(buf);
        })
      : this.out.write(buf);
    if (!written) await this.waitForEvent();
    this.check();
  }

  async queue(buf: Buffer): Promise<void> {
    this.pending.push(buf);
    this.pendingBytes += buf.length;
    if (this.pendingBytes >= COALESCE) await this.flush();
  }

  /**
   * Small chunks (tiny files) join the headers around them; large ones go out as they are, and,
   * written to an HTTP response, a blob read's chunk is given back to the read buffers once the
   * socket has it (streams.ts `keepsNoChunks`; only full 1 MiB chunks are lent, so a queued small
   * one never is).
   */
  async pass(buf: Buffer): Promise<void> {
    if (buf.length < COALESCE / 4) return this.queue(buf);
    await this.flush();
    await this.write(buf, this.giveBack);
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const buf = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    await this.write(buf);
  }

  /** Copies exactly `want` bytes from `stream`, passing each chunk to `inspect` first. */
  async copy(stream: Readable, want: number, inspect: (chunk: Buffer) => void, what: string): Promise<void> {
    this.source = stream;
    let got = 0;
    try {
      this.check();
      for await (const chunk of stream as AsyncIterable<Buffer | string>) {
        const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        got += buf.length;
        if (got > want) throw new ZipError('BLOB', `${what}: the blob yielded more than the ${want} bytes asked for`);
        inspect(buf);
        await this.pass(buf);
      }
    } catch (err) {
      this.check(); // the output going away explains any read error that followed
      if (err instanceof ZipError) throw err;
      throw new ZipError('BLOB', `${what}: reading the blob failed: ${message(err)}`, { cause: err });
    } finally {
      this.source = null;
      stream.destroy();
    }
    if (got < want) throw new ZipError('BLOB', `${what}: the blob ended after ${got} of ${want} bytes`);
  }

  async end(): Promise<void> {
    this.check();
    this.ending = true;
    this.out.end();
    while (!this.out.writableFinished) {
      await this.waitForEvent();
      this.check();
    }
  }

  dispose(): void {
    this.out.off('drain', this.wakeUp);
    this.out.off('finish', this.wakeUp);
    this.out.off('close', this.onClose);
    this.out.off('error', this.onError);
  }
}

function checkRange(range: ZipRange | undefined): { start: number; end: number } {
  if (!range) return { start: 0, end: Number.MAX_SAFE_INTEGER };
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new ZipError('RANGE', `invalid range ${start}-${end}`);
  }
  return { start, end };
}

/**
 * Streams the archive of `entries()` to `out`, or only its bytes [range.start, range.end] (check
 * the range against planZip's length first: one past the archive's end rejects with RANGE, but
 * only once the walk gets there). Resolves once `out` has finished (unless options.end is false).
 * Rejects with a ZipError, leaving `out` unended (destroy it: the client must see a failed
 * download): ENTRY, BLOB, CHANGED, RANGE, or OUTPUT_CLOSED when `out` closed or failed first (then
 * the open blob stream is destroyed at once).
 */
export async function writeZip(
  entries: ZipEntries,
  out: Writable,
  range?: ZipRange,
  options: WriteZipOptions = {},
): Promise<void> {
  const { start, end } = checkRange(range);
  const verifyCrc = options.verifyCrc ?? false;
  const output = new Output(out);
  const overlaps = (offset: number, length: number) => length > 0 && offset <= end && offset + length > start;
  /** queues the part of `record` (at `offset` in the archive) inside the range */
  const emit = async (offset: number, record: () => Buffer, length: number) => {
    if (!overlaps(offset, length)) return;
    const buf = record();
    const from = Math.max(start - offset, 0);
    const to = Math.min(end + 1 - offset, length);
    await output.queue(from === 0 && to === length ? buf : buf.subarray(from, to));
  };
  const copyData = async (item: ZipItem) => {
    const dataStart = item.offset + item.localLength;
    if (!item.file || !overlaps(dataStart, item.size)) return;
    const from = Math.max(start, dataStart) - dataStart;
    const to = Math.min(end, dataStart + item.size - 1) - dataStart;
    const whole = from === 0 && to === item.size - 1;
    const path = item.file.path;
    output.check();
    let stream: Readable;
    /** whether to check the CRC, and whom to tell that it matched */
    let check = verifyCrc && whole;
    let passed: (() => void) | undefined;
    try {
      if (check && item.file.openChecked) {
        const opened = await item.file.openChecked();
        stream = opened.stream;
        check = !opened.known;
        passed = opened.passed;
      } else {
        stream = await item.file.open(from, to);
      }
    } catch (err) {
      throw new ZipError('BLOB', `${path}: cannot open the blob: ${message(err)}`, { cause: err });
    }
    let crc = 0;
    await output.copy(stream, to - from + 1, check ? (chunk) => (crc = crc32(chunk, crc)) : () => undefined, path);
    if (check && crc >>> 0 !== item.crc32) {
      throw new ZipError(
        'BLOB',
        `${path}: the blob's CRC-32 ${(crc >>> 0).toString(16)} differs from the entry's ${item.crc32.toString(16)}`,
      );
    }
    if (check) passed?.();
  };

  try {
    // pass 1: local headers and data
    const first = newWalkState();
    const firstTag = new EtagHash();
    let walkedAll = true;
    for await (const item of walk(entries, first)) {
      output.check(); // a client gone while the catalog was paged
      if (item.file) firstTag.add(item.file, item.mtime);
      if (item.offset > end) {
        if (!options.expect) {
          walkedAll = false;
          break;
        }
        continue; // the rest is only walked to check the plan
      }
      await emit(item.offset, () => localHeader(item), item.localLength);
      await copyData(item);
    }
    if (walkedAll) {
      const length = archiveLength(first);
      const etag = firstTag.digest();
      if (options.expect && (options.expect.etag !== etag || options.expect.length !== length)) {
        throw new ZipError(
          'CHANGED',
          `the entries changed since the plan: ${length} bytes ${etag}, expected ${options.expect.length} bytes ${options.expect.etag}`,
        );
      }
      if (range && end >= length)
        throw new ZipError('RANGE', `range ${start}-${end} is past the archive's ${length} bytes`);
      const centralOffset = first.offset;
      if (end >= centralOffset) {
        // pass 2: the central directory, then the tail
        const second = newWalkState();
        const secondTag = new EtagHash();
        let at = centralOffset;
        for await (const item of walk(entries, second)) {
          output.check();
          if (item.file) secondTag.add(item.file, item.mtime);
          await emit(at, () => centralHeader(item), item.centralLength);
          at += item.centralLength;
        }
        if (secondTag.digest() !== etag)
          throw new ZipError('CHANGED', 'the entries changed between the passes over them');
        const t = { count: first.count, centralOffset, centralSize: first.centralSize };
        await emit(at, () => tail(t), length - at);
      }
    }
    await output.flush();
    if (options.end !== false) await output.end();
  } finally {
    output.dispose();
  }
}
