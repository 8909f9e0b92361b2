/**
 * Checking stored bytes against their key (the sha256 of the content): by reading a blob whole
 * (the scrub, quarantine), and on the way as a blob is read whole for a client (`verifyingReader`):
 * the last chunk is held back until the hash is known, so a reader of bytes that do not match
 * never receives a complete body, only one cut short.
 */
import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { recycleReadBuffer } from './read-buffers.js';
import { type BlobFingerprint, BlobNotFoundError, type BlobReader, type ByteRange, type CheckedRead } from './port.js';

/** The stored bytes of `key` do not hash to it. */
export class CorruptBlobError extends Error {
  constructor(
    readonly key: string,
    readonly actual: string,
  ) {
    super(`blob ${key} is corrupt: its bytes hash to ${actual}`);
    this.name = 'CorruptBlobError';
  }
}

/** The sha256 (hex) of everything `stream` yields. */
export async function sha256Of(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) {
    hash.update(chunk as Buffer);
    // hashed: nobody needs the bytes (read-buffers.ts)
    recycleReadBuffer(chunk as Buffer);
  }
  return hash.digest('hex');
}

/** Reads a blob whole: `ok`, `corrupt` (with what its bytes hash to) or `missing`. */
export async function verifyBlob(
  reader: Pick<BlobReader, 'get'>,
  key: string,
): Promise<{ state: 'ok' } | { state: 'corrupt'; actual: string } | { state: 'missing' }> {
  let stream: Readable;
  try {
    stream = await reader.get(key);
  } catch (error) {
    if (error instanceof BlobNotFoundError) return { state: 'missing' };
    throw error;
  }
  const actual = await sha256Of(stream);
  return actual === key ? { state: 'ok' } : { state: 'corrupt', actual };
}

/** How `verifyingReader` remembers blobs it checked. */
export interface VerifyingOptions {
  /**
   * A whole read of a blob checked less than this long ago, whose fingerprint has not changed
   * since, passes unchecked (0: every whole read is checked). Needs a store with `fingerprint`.
   */
  reverifyAfterMs?: number;
  /** how many checked blobs are remembered at most (the longest-remembered are forgotten first) */
  remember?: number;
  /** the clock (tests) */
  now?: () => number;
}

/**
 * A check is remembered only for bytes that last changed this long before it: file times move in
 * coarse ticks (a few ms), so a write landing in the same tick as the last change would leave the
 * fingerprint as it was; a second is far beyond any tick.
 */
const SETTLED_MS = 1000;

/**
 * A reader whose whole-blob reads (`get` without a range) check the bytes against the key as they
 * pass, holding the last chunk back until the end: on a mismatch the stream fails instead of
 * ending (`onCorrupt` hears of it first), so the client's download is cut short, never complete
 * with wrong bytes. Ranged reads pass unchecked: a part cannot be checked against the whole's
 * hash (the scrub, `admin verify-blobs`, checks every blob whole).
 *
 * sha256 is most of a download's CPU (2.7 ms per MiB on a core without SHA instructions), so with
 * `reverifyAfterMs` a blob that read back whole and right is remembered with its fingerprint, and
 * its next whole reads within that time pass unchecked unless the fingerprint changed: a write to
 * the file changes it, so damage done through the file system is always caught; what is left is
 * decay of the medium under an unchanged file, which the next check after `reverifyAfterMs`, the
 * scrub and `admin verify-blobs` catch.
 *
 * `getChecked` is the whole read of a caller that checks the bytes by its own means (the zip
 * writer, each entry against the CRC-32 recorded at upload): unhashed, and `known` when the blob
 * read back right, by its hash or by such a check, within `reverifyAfterMs` with its fingerprint
 * unchanged, so the caller can skip its check as a download skips the hash; `passed()` remembers
 * the caller's check. A blob remembered by a caller's check only is still hashed by `get`: a
 * CRC-32 is not the hash a download's ETag names.
 */
export function verifyingReader<R extends BlobReader>(
  reader: R,
  onCorrupt: (error: CorruptBlobError) => void,
  options: VerifyingOptions = {},
): R & Required<Pick<BlobReader, 'getChecked'>> {
  const reverifyAfterMs = options.reverifyAfterMs ?? 0;
  const remember = options.remember ?? 100_000;
  const now = options.now ?? Date.now;
  /**
   * blob key -> the fingerprint it had when it read back right, when, and whether by its hash (or
   * by a caller's check only); in insertion order
   */
  const checked = new Map<string, { id: string; at: number; hashed: boolean }>();
  const rememberRead = (key: string, fingerprint: BlobFingerprint | null, hashed: boolean) => {
    const at = now();
    if (!fingerprint || at - fingerprint.changedMs < SETTLED_MS) return;
    const seen = checked.get(key);
    // a caller's check does not stand in for (nor extend) a hash check of the same bytes
    if (!hashed && seen?.hashed && seen.id === fingerprint.id) return;
    checked.set(key, { id: fingerprint.id, at, hashed });
    if (checked.size > remember) checked.delete(checked.keys().next().value!);
  };
  const fingerprintOf = reverifyAfterMs > 0 && reader.fingerprint ? reader.fingerprint.bind(reader) : null;
  const openWithFingerprint =
    reverifyAfterMs > 0 && reader.getWithFingerprint ? reader.getWithFingerprint.bind(reader) : null;
  /** the whole blob, and its fingerprint when the store has them and reads are remembered */
  const open = async (key: string): Promise<{ stream: Readable | null; fingerprint: BlobFingerprint | null }> => {
    if (openWithFingerprint) return openWithFingerprint(key);
    return { stream: null, fingerprint: fingerprintOf ? await fingerprintOf(key) : null };
  };
  const get = async (key: string, range?: ByteRange): Promise<Readable> => {
    if (range) return reader.get(key, range);
    const opened = await open(key);
    const fingerprint = opened.fingerprint;
    if (fingerprint) {
      const seen = checked.get(key);
      if (seen?.hashed && seen.id === fingerprint.id && now() - seen.at < reverifyAfterMs)
        return opened.stream ?? reader.get(key);
      checked.delete(key);
    }
    const source = opened.stream ?? (await reader.get(key));
    const hash = createHash('sha256');
    let held: Buffer | null = null;
    const check = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        hash.update(chunk);
        const previous = held;
        held = chunk;
        callback(null, previous ?? undefined);
      },
      flush(callback) {
        const actual = hash.digest('hex');
        if (actual !== key) {
          const error = new CorruptBlobError(key, actual);
          onCorrupt(error);
          callback(error);
          return;
        }
        rememberRead(key, fingerprint, true);
        callback(null, held ?? undefined);
      },
    });
    source.on('error', (error) => check.destroy(error));
    check.on('close', () => source.destroy());
    return source.pipe(check);
  };
  const getChecked = async (key: string): Promise<CheckedRead> => {
    const opened = await open(key);
    const fingerprint = opened.fingerprint;
    const stream = opened.stream ?? (await reader.get(key));
    const seen = fingerprint ? checked.get(key) : undefined;
    const known = !!seen && seen.id === fingerprint!.id && now() - seen.at < reverifyAfterMs;
    return { stream, known, passed: () => rememberRead(key, fingerprint, false) };
  };
  const small = reader.readSmall?.bind(reader);
  /**
   * A small whole read is hashed in one go (a 64 KiB buffer: tens of µs), so it needs no
   * fingerprint; bytes that do not match are null, and the caller's stream then cuts the download
   * short as `get` does (and `onCorrupt` hears of it there).
   */
  const readSmall =
    small &&
    (async (key: string, length: number, range?: ByteRange): Promise<Buffer | null> => {
      const bytes = await small(key, length, range);
      if (!bytes || range) return bytes;
      return createHash('sha256').update(bytes).digest('hex') === key ? bytes : null;
    });
  return new Proxy(reader, {
    get(target, property) {
      if (property === 'get') return get;
      if (property === 'readSmall') return readSmall;
      if (property === 'getChecked') return getChecked;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as R & Required<Pick<BlobReader, 'getChecked'>>;
}
