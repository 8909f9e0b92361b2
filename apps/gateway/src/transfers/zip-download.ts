/**
 * A folder (or several, for a share room's root) as a zip, generated on the fly by the zip writer
 * (`zip/`): entries stored, so the archive's length and ETag are known from the catalog before the
 * first byte (one metadata pass), and a `Range` (a resumed download) generates only the bytes asked
 * for, opening only the blobs it covers. The catalog is read a page at a time in every pass.
 *
 * Entries sit under the folder's own name (`Documents/...`); a file whose path is also a folder's
 * goes under the name the catalog picks for it (`a (file)`: `archive_name`). A failure after the status line (a
 * missing blob, a read error, bytes that do not match the CRC-32 recorded at upload, the folder
 * changing under the download) destroys the connection before the central directory: the client
 * sees a failed download, never an archive that looks whole with a wrong file inside. A HEAD
 * checks that every blob is there (a GET finds out only as it goes), so the two agree.
 */
import type { BlobReader } from '@burrow/blobs';
import { LISTING_PAGE_MAX, type SubtreeFile, type SubtreePage, Subjects } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { create as contentDisposition } from 'content-disposition';
import type { Request, Response } from 'express';
import { Readable } from 'node:stream';
import { httpDate, MissingBlobError, planDownload, readSmallBlob as smallRead } from './download.js';
import { planZip, writeZip, type ZipEntries, type ZipFileEntry, ZipError } from './zip/index.js';

/** Where a cut-short zip is reported (the gateway's logger, GATEWAY_LOGGER). */
export interface ZipErrorLog {
  error(obj: object, msg: string): void;
}

export interface ZipRoot {
  userId: string;
  device: string;
  /** the folder's path within the device ('' for the whole device) */
  path: string;
  /** where its files go in the archive: '' or a name ending with `/` */
  prefix: string;
}

/**
 * The archive's entries: every live file under each root, in order, a catalog page at a time.
 * A root whose files all came in one page is not asked for again by the later passes over the
 * same entries (the plan, the bytes, the central directory: one catalog call instead of three for
 * a folder of up to LISTING_PAGE_MAX files, ~0.5 ms each), as long as what is kept stays within one
 * page's worth of entries; every pass then sees the same files, so the archive is the one planned.
 */
export function folderEntries(rpc: RpcClient, blobs: BlobReader, roots: ZipRoot[]): ZipEntries {
  // the writer takes entries in path order: roots by prefix (no prefix is another's, each ends with /)
  const ordered = [...roots].sort((a, b) => (a.prefix < b.prefix ? -1 : a.prefix > b.prefix ? 1 : 0));
  const getChecked = blobs.getChecked?.bind(blobs);
  /** the entries of the roots listed whole in one page, by root */
  const kept = new Map<ZipRoot, ZipFileEntry[]>();
  let keptCount = 0;
  const entryOf = (root: ZipRoot, f: SubtreeFile): ZipFileEntry => {
    const path = root.prefix + f.path.slice(root.path.length);
    return {
      path,
      // a file with a folder of the same path is named apart (`a (file)`): an archive cannot hold both
      ...(f.archive_name ? { archivePath: path.slice(0, path.lastIndexOf('/') + 1) + f.archive_name } : {}),
      size: f.size,
      crc32: f.crc32,
      mtime: f.mtime,
      id: f.blob,
      open: async (start: number, end: number) => {
        // a small part read in one go (a range: unhashed, as `get` of a range), else a stream
        const bytes = await smallRead(blobs, f.blob, end - start + 1, { start, end });
        return bytes ? Readable.from([bytes]) : blobs.get(f.blob, { start, end });
      },
      // a whole entry read unhashed, its CRC-32 skipped when the blob read back right recently;
      // a small one read in one go and hashed (readSmall), so its CRC-32 need not be checked
      ...(getChecked
        ? {
            openChecked: async () => {
              const bytes = f.size > 0 ? await smallRead(blobs, f.blob, f.size) : null;
              return bytes
                ? { stream: Readable.from([bytes]), known: true, passed: () => undefined }
                : getChecked(f.blob);
            },
          }
        : {}),
    };
  };
  return async function* () {
    for (const root of ordered) {
      const known = kept.get(root);
      if (known) {
        yield* known;
        continue;
      }
      let cursor: string | undefined;
      do {
        const page = await rpc.call<SubtreePage>(Subjects.storage.walkFolder, {
          userId: root.userId,
          device: root.device,
          path: root.path,
          cursor,
          limit: LISTING_PAGE_MAX,
        });
        const entries = page.files.map((f) => entryOf(root, f));
        if (cursor === undefined && !page.next && keptCount + entries.length <= LISTING_PAGE_MAX) {
          kept.set(root, entries);
          keptCount += entries.length;
        }
        yield* entries;
        cursor = page.next ?? undefined;
      } while (cursor);
    }
  };
}

/** Blobs checked at once by a HEAD. */
const HEAD_CHECKS_IN_FLIGHT = 16;

/** Throws MissingBlobError for the first entry whose blob is not in the store. */
async function requireBlobs(entries: ZipEntries, blobs: BlobReader): Promise<void> {
  let batch: string[] = [];
  const check = async () => {
    const found = await Promise.all(batch.map((key) => blobs.exists(key)));
    const missing = batch.find((_, i) => !found[i]);
    if (missing) throw new MissingBlobError(missing);
    batch = [];
  };
  for await (const entry of entries()) {
    if (entry.size === 0 || !entry.id) continue;
    batch.push(entry.id);
    if (batch.length === HEAD_CHECKS_IN_FLIGHT) await check();
  }
  await check();
}

export async function sendFolderZip(
  req: Request,
  res: Response,
  rpc: RpcClient,
  blobs: BlobReader,
  roots: ZipRoot[],
  name: string,
  log?: ZipErrorLog,
): Promise<void> {
  const entries = folderEntries(rpc, blobs, roots);
  const plan = await planZip(entries);
  const decision = planDownload(req, { etag: plan.etag, size: plan.length, mtime: plan.mtime });
  const headers: Record<string, string> = {
    ETag: plan.etag,
    'Last-Modified': httpDate(plan.mtime),
    'Accept-Ranges': 'bytes',
    'Cache-Control': 'private, max-age=0',
  };
  if (decision.status === 304) {
    res.status(304).set(headers).end();
    return;
  }
  if (decision.status === 416) {
    res
      .status(416)
      .set({ ...headers, 'Content-Range': `bytes */${plan.length}` })
      .json({ reason: `the range is outside the archive's ${plan.length} bytes` });
    return;
  }
  const range = decision.status === 206 ? decision.range : { start: 0, end: plan.length - 1 };
  if (req.method === 'HEAD') await requireBlobs(entries, blobs);
  res.status(decision.status).set({
    ...headers,
    'Content-Type': 'application/zip',
    'Content-Length': String(range.end - range.start + 1),
    'Content-Disposition': contentDisposition(`${name}.zip`, { type: 'attachment' }),
    'X-Content-Type-Options': 'nosniff',
  });
  if (decision.status === 206) res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${plan.length}`);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  try {
    await writeZip(entries, res, range, { expect: plan, verifyCrc: true });
  } catch (error) {
    // a client that went away is ordinary; anything else (a missing or unreadable blob, a folder
    // changing under the download) cut the archive short and the operator must hear of it
    if (!(error instanceof ZipError && error.code === 'OUTPUT_CLOSED')) {
      log?.error(
        {
          err: { message: (error as Error).message, code: (error as ZipError).code },
          zip: name,
          bytes: `${range.start}-${range.end}/${plan.length}`,
        },
        'zip download cut short',
      );
    }
    res.destroy(error instanceof Error ? error : undefined);
  }
}
