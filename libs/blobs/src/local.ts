/**
 * Embedded BlobStore: a local folder. Blobs live at `<dir>/<k0k1>/<k2k3>/<sha256>`; a put streams
 * into a temporary file while hashing, then renames it into place (atomic on one filesystem), so a
 * failed or partial upload never leaves a blob behind. Stored files may be personal data: folders
 * are created 0700 and files 0600.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type BlobInfo, BlobNotFoundError, type BlobStore, type ByteRange, isBlobKey } from './port.js';

/** 1 MiB reads: measured ~2x the throughput of the 64 KiB default when streaming to HTTP. */
const READ_HIGH_WATER_MARK = 1024 * 1024;
const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

export class LocalBlobStore implements BlobStore {
  private readonly tmpDir: string;

  constructor(private readonly dir: string) {
    this.tmpDir = join(dir, 'tmp');
  }

  private pathOf(key: string): string {
    if (!isBlobKey(key)) throw new BlobNotFoundError(key);
    return join(this.dir, key.slice(0, 2), key.slice(2, 4), key);
  }

  async put(source: Readable): Promise<BlobInfo> {
    await mkdir(this.tmpDir, { recursive: true, mode: PRIVATE_DIR });
    const tmp = join(this.tmpDir, randomUUID());
    const hash = createHash('sha256');
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        hash.update(chunk);
        size += chunk.length;
        cb(null, chunk);
      },
    });
    try {
      await pipeline(source, meter, createWriteStream(tmp, { mode: PRIVATE_FILE }));
      const key = hash.digest('hex');
      const target = this.pathOf(key);
      await mkdir(join(target, '..'), { recursive: true, mode: PRIVATE_DIR });
      await rename(tmp, target);
      return { key, size };
    } catch (error) {
      await rm(tmp, { force: true });
      throw error;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const path = this.pathOf(key);
    const info = await this.stat(key);
    if (!info) throw new BlobNotFoundError(key);
    return createReadStream(path, {
      highWaterMark: READ_HIGH_WATER_MARK,
      ...(range ? { start: range.start, end: range.end } : {}),
    });
  }

  async stat(key: string): Promise<BlobInfo | null> {
    if (!isBlobKey(key)) return null;
    try {
      const s = await stat(this.pathOf(key));
      return { key, size: s.size };
    } catch {
      return null;
    }
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  async delete(key: string): Promise<void> {
    if (!isBlobKey(key)) return;
    await rm(this.pathOf(key), { force: true });
  }

  async ping(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: PRIVATE_DIR });
  }
}
