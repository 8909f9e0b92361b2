/**
 * The objects of interface B built from the catalog's records, shared by the storage interface
 * (`/storage/`) and public share rooms (`/share/`): file objects, folder objects streamed a page at
 * a time, version lists, file and preview downloads.
 *
 * URLs inside objects are relative and percent-encoded (clients concatenate them: subfolder =
 * folder URL + `dirs[i][1]`, file = folder URL + `files[i].url`); folders end with `/`.
 */
import type { BlobReader } from '@burrow/blobs';
import {
  badRequest,
  type FileEntry,
  type FileVersionInfo,
  type FolderPage,
  notFound,
  PREVIEW_WIDTHS,
  type PreviewWidth,
} from '@burrow/contracts';
import type { Request, Response } from 'express';
import { sendBlob } from './download.js';
import { listingPageSize } from './listing-page.js';
import { queryValue } from '../http/query.js';
import { write } from './streams.js';

export interface FileObject {
  url: string;
  name: string;
  size: number;
  ctime: number;
  mtime: number;
  preview_25?: string;
  preview_48?: string;
  preview_228?: string;
  preview_800?: string;
  versions?: number;
  /** when the version was backed up (unix seconds): the mobile app reads it */
  etime: number;
}

/** A file object: of a listing (the latest version, with `versions`) or of a version list (`?version=<n>` urls). */
export function fileObject(file: FileVersionInfo & { versions?: number }, as: 'listing' | 'version'): FileObject {
  const base = encodeURIComponent(file.name);
  const url = as === 'version' ? `${base}?version=${file.version}` : base;
  const object: FileObject = {
    url,
    name: file.name,
    size: file.size,
    ctime: file.ctime,
    mtime: file.mtime,
    etime: file.at,
  };
  for (const width of PREVIEW_WIDTHS) {
    if (file.previews?.[`${width}`])
      object[`preview_${width}`] = `${url}${as === 'version' ? '&' : '?'}preview_${width}`;
  }
  if (as === 'listing') object.versions = file.versions ?? 1;
  return object;
}

/** `[display name, relative url]` of a subfolder. */
export const dirPair = (name: string): [string, string] => [name, `${encodeURIComponent(name)}/`];

/** Human-readable bytes, as `stats.backupsize` and `room_size` show them ("1.5 GB"). */
export function humanSize(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB', 'PB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${bytes} bytes`;
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

/** Splits a display name into the spec's first and last names (at the first space). */
export function splitName(name: string): { firstname: string; lastname: string } {
  const trimmed = name.trim();
  const space = trimmed.indexOf(' ');
  return space < 0
    ? { firstname: trimmed, lastname: '' }
    : { firstname: trimmed.slice(0, space), lastname: trimmed.slice(space + 1).trim() };
}

/**
 * Streams a folder object, fetching the catalog's pages one after another: memory stays bounded
 * whatever the folder's size. The first page is fetched before the status line, so an unknown
 * folder is a clean 404; a failure later destroys the connection (a truncated JSON text never
 * parses as a whole one).
 */
export async function sendFolder(
  res: Response,
  fetchPage: (cursor: string | undefined, limit: number) => Promise<FolderPage>,
  extra?: Record<string, unknown>,
): Promise<void> {
  let page = await fetchPage(undefined, listingPageSize());
  res.status(200).type('application/json');
  res.setHeader('Cache-Control', 'private, no-cache');
  try {
    const head = extra ? JSON.stringify(extra).slice(1, -1) + ',' : '';
    await write(res, `{${head}"dirs":[`);
    let section: 'dirs' | 'files' = 'dirs';
    let first = true;
    for (;;) {
      const parts: string[] = [];
      for (const d of page.dirs) {
        parts.push((first ? '' : ',') + JSON.stringify(dirPair(d.name)));
        first = false;
      }
      if (page.files.length > 0 && section === 'dirs') {
        parts.push('],"files":[');
        section = 'files';
        first = true;
      }
      for (const f of page.files) {
        parts.push((first ? '' : ',') + JSON.stringify(fileObject(f, 'listing')));
        first = false;
      }
      if (parts.length) await write(res, parts.join(''));
      if (!page.next) break;
      page = await fetchPage(page.next, listingPageSize());
    }
    await write(res, section === 'dirs' ? '],"files":[]}' : ']}');
    res.end();
  } catch (error) {
    res.destroy(error instanceof Error ? error : undefined);
  }
}

/** The version a `version` query value names: its integer prefix (`1cb=17000` is 1); undefined for the latest. */
export function requestedVersion(req: Request): number | undefined {
  const raw = queryValue(req, 'version');
  if (raw === undefined || raw.trim() === '') return undefined;
  const match = /^\s*(\d{1,9})/.exec(raw);
  if (!match) throw badRequest('version must be a version number (0 is the first)', ['version']);
  return Number(match[1]);
}

/**
 * The preview width asked for: the bare key `?preview_48` (or `preview_48=`), the same key with
 * junk glued on after the number (the mobile app's `?preview_48cb=<ms>` cache-buster, sent without
 * `&`), or `?preview=48`. `preview_480` names no preview (its number is 480).
 */
export function requestedPreview(req: Request): PreviewWidth | undefined {
  for (const key of Object.keys(req.query)) {
    const width = Number(/^preview_(\d{1,4})(?!\d)/.exec(key)?.[1]) as PreviewWidth;
    if (PREVIEW_WIDTHS.includes(width)) return width;
  }
  const value = queryValue(req, 'preview');
  if (value === undefined) return undefined;
  const width = Number(value) as PreviewWidth;
  if (!PREVIEW_WIDTHS.includes(width))
    throw badRequest(`preview must be one of ${PREVIEW_WIDTHS.join(', ')}`, ['preview']);
  return width;
}

/** Sends a file version's bytes, or one of its previews. */
export async function sendFileVersion(
  req: Request,
  res: Response,
  blobs: BlobReader,
  file: FileEntry | FileVersionInfo,
): Promise<void> {
  const width = requestedPreview(req);
  if (width !== undefined) {
    const blob = file.previews?.[`${width}`];
    if (!blob) throw notFound(`no ${width} px preview of ${file.name}`);
    const stat = await blobs.stat(blob);
    if (!stat) throw notFound(`no ${width} px preview of ${file.name}`);
    // previews are JPEG, or PNG where the image has transparency: the first bytes say which
    const png = await startsWithPng(blobs, blob, stat.size);
    const name = `${file.name.replace(/\.[^.]*$/, '')}-${width}.${png ? 'png' : 'jpg'}`;
    await sendBlob(
      req,
      res,
      blobs,
      { blob, size: stat.size, mtime: file.mtime, name },
      { disposition: 'inline', type: png ? 'image/png' : 'image/jpeg', maxAge: 3600 },
    );
    return;
  }
  await sendBlob(
    req,
    res,
    blobs,
    { blob: file.blob, size: file.size, mtime: file.mtime, name: file.name, checksums: file.checksums },
    { disposition: 'attachment' },
  );
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

async function startsWithPng(blobs: BlobReader, blob: string, size: number): Promise<boolean> {
  if (size < PNG_SIGNATURE.length) return false;
  const chunks: Buffer[] = [];
  for await (const chunk of await blobs.get(blob, { start: 0, end: PNG_SIGNATURE.length - 1 }))
    chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE);
}
