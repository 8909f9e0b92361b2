/**
 * An upload's bytes go from the request straight into the blob store: hashed (sha256, by the blob
 * store), measured and CRC-32'd (zip entries need it before their data) in the same pass, with
 * back-pressure, never buffered whole. A client that disconnects half way aborts the put: no blob
 * is left (the blob store removes its temporary data) and nothing is committed.
 */
import type { BlobWriter } from '@burrow/blobs';
import { badRequest } from '@burrow/contracts';
import type { Request } from 'express';
import { pipeline, Transform } from 'node:stream';
import { crc32 } from 'node:zlib';

export interface IngestedBlob {
  blob: string;
  size: number;
  crc32: number;
}

export async function ingest(req: Request, blobs: BlobWriter): Promise<IngestedBlob> {
  let size = 0;
  let crc = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      crc = crc32(chunk, crc);
      callback(null, chunk);
    },
  });
  // an aborted or failed request destroys the meter, which fails the put
  pipeline(req, meter, (error) => {
    if (error) meter.destroy(error);
  });
  const info = await blobs.put(meter);
  return { blob: info.key, size, crc32: crc >>> 0 };
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
