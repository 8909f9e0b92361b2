/**
 * Sending stored bytes (a file version, a preview) as HTTP does it: `Content-Length`, a strong
 * `ETag` (the content hash), `Last-Modified`, `Content-Type` from the name, `Content-Disposition`
 * with the UTF-8 name (RFC 6266 / 5987, by `content-disposition`), `OC-Checksum` (SHA-1, when the
 * version has it), conditional requests
 * (`If-None-Match`, `If-Modified-Since` -> 304) and one byte range (`Range`, `If-Range` -> 206, 416);
 * a request for several ranges gets the whole representation, as RFC 9110 allows.
 *
 * The bytes stream from the blob store with back-pressure and are never buffered whole, except a
 * small blob or range (up to `SMALL_BLOB_BYTES`), read in one go and sent with `end`. The blob is
 * opened before the status line is written, so a missing blob is still a clean JSON error; a failure
 * after the first byte destroys the connection, so a client never mistakes a short body for a whole
 * one (its Content-Length is not met).
 */
import { BlobNotFoundError, type BlobReader, type ByteRange, SMALL_BLOB_BYTES } from '@burrow/blobs';
import { DomainError, type FileChecksums } from '@burrow/contracts';
import { create as contentDisposition } from 'content-disposition';
import type { Request, Response } from 'express';
import { contentType, lookup } from 'mime-types';
import rangeParser from 'range-parser';
import { copyExactly } from './streams.js';

export interface Representation {
  /** the blob key (sha256 hex): also the strong ETag */
  blob: string;
  size: number;
  /** unix seconds */
  mtime: number;
  /** the name for Content-Type and Content-Disposition */
  name: string;
  /** a file version's SHA-1 and MD5: sent as `OC-Checksum: SHA1:<hex>` (ownCloud's form, which rclone and sync clients read) */
  checksums?: FileChecksums;
}

export interface SendOptions {
  /** `attachment` (downloads) or `inline` (previews shown in pages) */
  disposition: 'attachment' | 'inline';
  /** overrides the type derived from the name */
  type?: string;
  /** how long caches may keep it (seconds); private, since most of it needs a login */
  maxAge?: number;
  /** the entity tag, when an interface spells the content hash its own way (WebDAV: shorter) */
  etag?: string;
}

const etagOf = (blob: string) => `"${blob}"`;

/**
 * The catalog names a blob the store does not have (lost or deleted behind the catalog's back): a
 * 500 whose reason says so, rather than an anonymous internal error. The key stays out of the
 * response; the message, which the error filter logs for every 5xx, names it for the operator.
 */
export class MissingBlobError extends DomainError {
  constructor(readonly blob: string) {
    super(500, { reason: 'the stored bytes of this file are missing from the blob store' });
    this.name = 'MissingBlobError';
    this.message = `blob ${blob} is in the catalog but missing from the blob store`;
  }
}

/** Opens a blob, a missing one as a MissingBlobError. */
export async function openBlob(blobs: BlobReader, key: string, range?: ByteRange) {
  try {
    return await blobs.get(key, range);
  } catch (error) {
    throw error instanceof BlobNotFoundError ? new MissingBlobError(key) : error;
  }
}

/**
 * A small blob (or range) in one buffer (`readSmall`: one read, no stream), a missing one as a
 * MissingBlobError; null when the store has no such read, the blob is larger, or the bytes do not
 * read back as they should (the caller then streams, and fails as a stream does).
 */
export async function readSmallBlob(
  blobs: BlobReader,
  key: string,
  length: number,
  range?: ByteRange,
): Promise<Buffer | null> {
  if (!blobs.readSmall || length > SMALL_BLOB_BYTES) return null;
  try {
    return await blobs.readSmall(key, length, range);
  } catch (error) {
    throw error instanceof BlobNotFoundError ? new MissingBlobError(key) : error;
  }
}

/** Does an If-None-Match / If-Range list name this entity tag (weak comparison for If-None-Match)? */
function matches(header: string, etag: string, weak: boolean): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((raw) => {
    let tag = raw.trim();
    if (weak && tag.startsWith('W/')) tag = tag.slice(2);
    return tag === etag;
  });
}

export const httpDate = (unixSeconds: number) => new Date(Math.max(0, unixSeconds) * 1000).toUTCString();

/** The content type for a file name: a text type carries its charset; unknown is octet-stream. */
export function typeOf(name: string): string {
  const type = lookup(name);
  return (type && contentType(type)) || 'application/octet-stream';
}

/** What a conditional or ranged request resolves to before any byte is read. */
export type Plan = { status: 304 } | { status: 416 } | { status: 200 } | { status: 206; range: ByteRange };

/** Decides 304 / 416 / 206 / 200 from the request's conditional and Range headers (RFC 9110 §13, §14). */
export function planDownload(req: Request, rep: { etag: string; size: number; mtime: number }): Plan {
  const etag = rep.etag;
  const noneMatch = req.headers['if-none-match'];
  if (noneMatch !== undefined) {
    if (matches(noneMatch, etag, true)) return { status: 304 };
  } else {
    const since = req.headers['if-modified-since'];
    const sinceMs = since ? Date.parse(since) : NaN;
    if (!Number.isNaN(sinceMs) && Math.floor(sinceMs / 1000) >= rep.mtime) return { status: 304 };
  }
  const rangeHeader = req.headers.range;
  if (!rangeHeader || (req.method !== 'GET' && req.method !== 'HEAD')) return { status: 200 };
  const ifRangeHeader = req.headers['if-range'];
  if (ifRangeHeader !== undefined) {
    const ifRange = String(ifRangeHeader).trim();
    // an entity tag must match exactly (strong); a date must be the Last-Modified sent
    const current =
      ifRange.startsWith('"') || ifRange.startsWith('W/')
        ? ifRange === etag
        : Date.parse(ifRange) === Date.parse(httpDate(rep.mtime));
    if (!current) return { status: 200 };
  }
  // RFC 9110 §14.1.1: a range whose last position is before its first is invalid, so the header is ignored (200)
  if (
    /(?:^|[=,])\s*(\d+)\s*-\s*(\d+)/.test(rangeHeader) &&
    rangeHeader.split(/[=,]/).some((spec) => {
      const m = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(spec);
      return m !== null && Number(m[2]) < Number(m[1]);
    })
  )
    return { status: 200 };
  const ranges = rangeParser(rep.size, rangeHeader, { combine: true });
  if (ranges === -1) return { status: 416 };
  // malformed (-2), not bytes, or several ranges: the whole representation
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return { status: 200 };
  return { status: 206, range: { start: ranges[0].start, end: ranges[0].end } };
}

/** Sends `rep`'s bytes from the blob store, honouring conditional and Range headers. */
export async function sendBlob(
  req: Request,
  res: Response,
  blobs: BlobReader,
  rep: Representation,
  options: SendOptions,
): Promise<void> {
  const etag = options.etag ?? etagOf(rep.blob);
  const plan = planDownload(req, { etag, size: rep.size, mtime: rep.mtime });
  const headers: Record<string, string> = {
    ETag: etag,
    'Last-Modified': httpDate(rep.mtime),
    'Accept-Ranges': 'bytes',
    'Cache-Control': `private, max-age=${options.maxAge ?? 0}`,
  };
  if (rep.checksums) headers['OC-Checksum'] = `SHA1:${rep.checksums.sha1}`;
  if (plan.status === 304) {
    res.status(304).set(headers).end();
    return;
  }
  if (plan.status === 416) {
    res
      .status(416)
      .set({ ...headers, 'Content-Range': `bytes */${rep.size}` })
      .json({ reason: `the range is outside the file's ${rep.size} bytes` });
    return;
  }
  const range = plan.status === 206 ? plan.range : rep.size > 0 ? { start: 0, end: rep.size - 1 } : null;
  const length = range ? range.end - range.start + 1 : 0;
  // opened before the status line: a missing blob is still a clean error
  // a HEAD says what a GET would: a file whose stored bytes are gone is the same error, not a 200
  if (req.method === 'HEAD' && range && !(await blobs.exists(rep.blob))) throw new MissingBlobError(rep.blob);
  const partial = plan.status === 206 ? range! : undefined;
  // small: one read into one buffer, sent with the headers (no stream); else a stream
  const bytes = req.method === 'HEAD' || !range ? null : await readSmallBlob(blobs, rep.blob, length, partial);
  const source = req.method === 'HEAD' || !range || bytes ? null : await openBlob(blobs, rep.blob, partial);
  res.status(plan.status).set({
    ...headers,
    'Content-Type': options.type ?? typeOf(rep.name),
    'Content-Length': String(length),
    'Content-Disposition': contentDisposition(rep.name, { type: options.disposition }),
    // stored files are the users' bytes: never run them as pages of this origin
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy':
      "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; sandbox",
  });
  if (plan.status === 206) res.setHeader('Content-Range', `bytes ${range!.start}-${range!.end}/${rep.size}`);
  if (!source) {
    res.end(bytes ?? undefined);
    return;
  }
  try {
    await copyExactly(source, res, length);
    res.end();
  } catch (error) {
    source.destroy();
    res.destroy(error instanceof Error ? error : undefined);
  }
}
