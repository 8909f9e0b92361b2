/**
 * An upload's bytes go from the request straight into the blob store: hashed (sha256, by the blob
 * store), measured, CRC-32'd (zip entries need it before their data) and SHA-1'd and MD5'd (the
 * checksums ownCloud's clients and rclone verify transfers with, computed by the blob store in the
 * same pass as its sha256: on a worker thread once the body is large, libs/blobs/src/digests.ts),
 * with back-pressure, never buffered whole.
 * A client that disconnects half way aborts the put: no blob is left (the blob store removes its
 * temporary data) and nothing is committed.
 *
 * The first bytes are kept (`head`): the commit hands them to the previewer, which then need not
 * read a blob that is not an image back from the store.
 *
 * Bytes are counted as they arrive against `limit` (what the user's quota still holds): the first
 * byte past it fails the put at once, so a chunked upload of unknown length cannot fill the disk
 * before the commit refuses it. The request is then only paused, not destroyed, so that the
 * caller can still answer (507, `Connection: close`) before the connection goes.
 */
import type { BlobWriter } from '@burrow/blobs';
import { badRequest, DomainError, type FileChecksums, quotaExceeded, UPLOAD_HEAD_BYTES } from '@burrow/contracts';
import type { Request } from 'express';
import { finished, Transform } from 'node:stream';

export interface IngestedBlob {
  blob: string;
  size: number;
  crc32: number;
  /** SHA-1 and MD5, lowercase hex */
  checksums: FileChecksums;
  /** the first `UPLOAD_HEAD_BYTES` (fewer for a shorter blob), base64: the catalog's previewer sniffs them */
  head: string;
}

/** The checksums of no bytes at all. */
export const EMPTY_CHECKSUMS: FileChecksums = {
  sha1: 'da39a3ee5e6b4b0d3255bfef95601890afd80709',
  md5: 'd41d8cd98f00b204e9800998ecf8427e',
};

export interface IngestOptions {
  /** the most bytes the upload may have (null or absent: no limit); past it, a 507 */
  limit?: number | null;
}

export async function ingest(req: Request, blobs: BlobWriter, options: IngestOptions = {}): Promise<IngestedBlob> {
  // bytes are stored exactly as they arrive: a coded body would be backed up still coded
  const coding = req.headers['content-encoding']?.trim().toLowerCase();
  if (coding && coding !== 'identity')
    throw new DomainError(415, { reason: `Content-Encoding ${coding} is not supported: upload the file's own bytes` });
  const limit = options.limit ?? Infinity;
  let size = 0;
  const head: Buffer[] = [];
  let headBytes = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > limit) {
        req.unpipe(meter);
        req.pause();
        callback(quotaExceeded());
        return;
      }
      if (headBytes < UPLOAD_HEAD_BYTES) {
        const part = chunk.subarray(0, UPLOAD_HEAD_BYTES - headBytes);
        head.push(Buffer.from(part));
        headBytes += part.length;
      }
      callback(null, chunk);
    },
  });
  // The put reports the meter's error (a quota passed); the put may first await (the free-space
  // check) while bytes already flow into the meter, and an error before it listens must not be
  // an uncaught exception.
  meter.on('error', () => undefined);
  // an aborted or failed request destroys the meter, which fails the put
  finished(req, (error) => {
    if (error) meter.destroy(error);
  });
  req.pipe(meter);
  const info = await blobs.put(meter, { checksums: true });
  if (!info.checksums) throw new Error('the blob store did not compute the checksums it was asked for');
  const { sha1, md5, crc32 } = info.checksums;
  return {
    blob: info.key,
    size,
    crc32,
    checksums: { sha1, md5 },
    head: Buffer.concat(head).toString('base64'),
  };
}

/** An optional unix-seconds header (`X-Burrow-Mtime`); a 400 naming it when malformed. */
export function unixHeader(req: Request, name: string): number | undefined {
  const raw = req.headers[name.toLowerCase()];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (!/^\s*\d{1,12}\s*$/.test(value)) throw badRequest(`${name} must be unix seconds`, [name]);
  return Number(value.trim());
}

/** The declared body length, when the client gave one. */
export function declaredLength(req: Request): number | undefined {
  const raw = req.headers['content-length'];
  return raw !== undefined && /^\d{1,16}$/.test(raw) ? Number(raw) : undefined;
}
