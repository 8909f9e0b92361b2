/**
 * A small blob read in one go (port.ts `readSmall`, `SMALL_BLOB_BYTES`): an open and one read on
 * the thread pool, the close not waited for, where a stream takes an open, an fstat, a read, a
 * read finding the end and a close. A file shorter than asked reads as null (the caller streams
 * and fails as a stream does); a missing one is a BlobNotFoundError.
 */
import { close, open, read } from 'node:fs';
import { BlobNotFoundError } from './port.js';

export async function readInOneGo(
  path: string | null,
  key: string,
  length: number,
  start: number,
): Promise<Buffer | null> {
  if (path === null) throw new BlobNotFoundError(key);
  const fd = await new Promise<number>((resolve, reject) =>
    open(path, 'r', (error, opened) =>
      error
        ? reject(error.code === 'ENOENT' || error.code === 'ENOTDIR' ? new BlobNotFoundError(key) : error)
        : resolve(opened),
    ),
  );
  const bytes = Buffer.allocUnsafe(length);
  try {
    const got =
      length === 0
        ? 0
        : await new Promise<number>((resolve, reject) =>
            read(fd, bytes, 0, length, start, (error, n) => (error ? reject(error) : resolve(n))),
          );
    return got === length ? bytes : null;
  } finally {
    close(fd, () => undefined);
  }
}
