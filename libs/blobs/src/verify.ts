/**
 * Checking stored bytes against their key (the sha256 of the content): by reading a blob whole
 * (the scrub, quarantine), and on the way as a blob is read whole for a client (`verifyingReader`):
 * the last chunk is held back until the hash is known, so a reader of bytes that do not match
 * never receives a complete body, only one cut short.
 */
import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { BlobNotFoundError, type BlobReader, type ByteRange } from './port.js';

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
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Reads a blob whole: `ok`, `corrupt` (with what its bytes hash to) or `missing`. */
export async function verifyBlob(reader: Pick<BlobReader, 'get'>, key: string): Promise<{ state: 'ok' } | { state: 'corrupt'; actual: string } | { state: 'missing' }> {
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

/**
 * A reader whose whole-blob reads (`get` without a range) check the bytes against the key as they
 * pass, holding the last chunk back until the end: on a mismatch the stream fails instead of
 * ending (`onCorrupt` hears of it first), so the client's download is cut short, never complete
 * with wrong bytes. Ranged reads pass unchecked: a part cannot be checked against the whole's
 * hash (the scrub, `admin verify-blobs`, checks every blob whole).
 */
export function verifyingReader<R extends BlobReader>(reader: R, onCorrupt: (error: CorruptBlobError) => void): R {
  const get = async (key: string, range?: ByteRange): Promise<Readable> => {
    const source = await reader.get(key, range);
    if (range) return source;
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
        callback(null, held ?? undefined);
      },
    });
    source.on('error', (error) => check.destroy(error));
    check.on('close', () => source.destroy());
    return source.pipe(check);
  };
  return new Proxy(reader, {
    get(target, property) {
      if (property === 'get') return get;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
