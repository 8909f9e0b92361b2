/**
 * PUT: a new version of a file, streamed through the same ingest as the storage interface's
 * uploads (hashed and measured into the blob store as the bytes arrive, never buffered whole), so
 * quota (507), dedup and durability are the same. WebDAV's rules on top: the folder must exist
 * (409), a folder is not a file (405), `If-Match` / `If-None-Match` and locks are honoured
 * before a byte is read. `X-OC-Mtime` (rclone's owncloud and nextcloud vendors, the ownCloud and
 * Nextcloud desktop clients) sets the modification time, answered with `X-OC-Mtime: accepted`.
 * A client that stops half way leaves nothing: no blob, no version; the old version stays.
 */
import { badRequest, DomainError, type FileVersionInfo } from '@burrow/contracts';
import type { Request } from 'express';
import { Readable } from 'node:stream';
import { declaredLength, EMPTY_CHECKSUMS, type IngestedBlob, unixHeader } from '../transfers/ingest.js';
import { upload } from '../transfers/upload.js';
import type { DavCall } from './context.js';
import { etagOf } from './resources.js';
import { guardWrite } from './write-guard.js';

/** `X-OC-Mtime`: unix seconds, fractions allowed (ownCloud clients send whole seconds; some send more). */
export function ocMtime(req: Request): number | undefined {
  const raw = req.headers['x-oc-mtime'];
  if (raw === undefined) return undefined;
  const value = (Array.isArray(raw) ? raw[0] : raw).trim();
  if (!/^\d{1,12}(\.\d+)?$/.test(value)) throw badRequest('X-OC-Mtime must be unix seconds', ['X-OC-Mtime']);
  return Math.floor(Number(value));
}

/** HTTP's preconditions on the current entity tag (RFC 9110 §13.1.1, §13.1.2). */
function checkPreconditions(req: Request, etag: string | null): void {
  const match = req.headers['if-match'];
  if (match !== undefined) {
    const ok = match.trim() === '*' ? etag !== null : etag !== null && match.split(',').some((t) => t.trim() === etag);
    if (!ok) throw new DomainError(412, { reason: 'If-Match does not hold' });
  }
  const noneMatch = req.headers['if-none-match'];
  if (noneMatch !== undefined) {
    const hit =
      noneMatch.trim() === '*'
        ? etag !== null
        : etag !== null && noneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
    if (hit) throw new DomainError(412, { reason: 'If-None-Match does not hold' });
  }
}

/**
 * Writes `path` on the target's device from the request body (the same upload as the storage
 * interface's, transfers/upload.ts); whether the file existed before. A conditional PUT (`If-Match`,
 * `If-None-Match`) asks for the current version before a byte is read.
 */
export async function putFile(
  call: DavCall,
  body: Request | null,
): Promise<{ existed: boolean; version: FileVersionInfo }> {
  const { req, res, target } = call;
  if (target.device === null || !target.path || target.slash)
    throw new DomainError(405, { reason: 'a folder is not a file: PUT a file inside it' });
  if (req.headers['content-range'] !== undefined)
    throw badRequest('partial PUT (Content-Range) is not supported', ['Content-Range']);
  const mtime = ocMtime(req) ?? unixHeader(req, 'X-Burrow-Mtime');
  const expected = req.headers['x-expected-entity-length'];
  const size =
    body === null
      ? 0
      : (declaredLength(req) ??
        (typeof expected === 'string' && /^\d{1,16}$/.test(expected) ? Number(expected) : undefined));
  const conditional = req.headers['if-match'] !== undefined || req.headers['if-none-match'] !== undefined;
  const { version } = await upload(call, {
    req,
    res,
    userId: call.user.userId,
    device: target.device,
    path: target.path,
    size,
    mtime,
    strict: true,
    needsCurrent: conditional,
    async before(current) {
      // known when asked for (conditional requests); otherwise the lock check reads it only if its If header needs it
      const etag = current === undefined ? undefined : current ? etagOf(current.blob) : null;
      if (etag !== undefined) checkPreconditions(req, etag);
      await guardWrite(call, [{ target }], etag === undefined ? undefined : { etag });
    },
    // counted against the quota as the bytes arrive: past it, a 507 and the connection closes
    body: body ? undefined : () => emptyBlob(call),
  });
  return { existed: version.existed, version };
}

/** The empty content (a LOCK on an unmapped URL makes an empty file). */
async function emptyBlob(call: DavCall): Promise<IngestedBlob> {
  const info = await call.blobs.put(Readable.from([]));
  return { blob: info.key, size: 0, crc32: 0, checksums: EMPTY_CHECKSUMS, head: '' };
}

export async function put(call: DavCall): Promise<void> {
  const { existed, version } = await putFile(call, call.req);
  const res = call.res;
  res.setHeader('ETag', etagOf(version.blob));
  if (call.req.headers['x-oc-mtime'] !== undefined) res.setHeader('X-OC-Mtime', 'accepted');
  res.status(existed ? 204 : 201).end();
}
