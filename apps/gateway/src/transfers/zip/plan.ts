/**
 * The archive's plan before its first byte: with every size known, one pass over the entries'
 * metadata (no blob is opened) gives the exact length, and a hash over what determines the bytes
 * gives a strong ETag.
 */
import { createHash, type Hash } from 'node:crypto';
import { newWalkState, walk, type WalkState } from './layout.js';
import { tailLength } from './records.js';
import type { ZipEntries, ZipFileEntry, ZipPlan } from './types.js';

/**
 * Bump when the bytes written for the same entries change (layout, fields, extras), so that an
 * ETag a client holds never names bytes this writer no longer produces.
 */
const FORMAT = 'burrow-zip/1';

/** The ETag over the entry sequence: names, sizes, CRCs, times as stored, content ids. */
export class EtagHash {
  private readonly hash: Hash = createHash('sha256').update(`${FORMAT}\n`);

  add(file: ZipFileEntry, mtime: number): void {
    const fields: unknown[] = [file.path, file.size, file.crc32, mtime, file.id ?? null];
    if (file.archivePath !== undefined) fields.push(file.archivePath);
    this.hash.update(`${JSON.stringify(fields)}\n`);
  }

  digest(): string {
    return `"${this.hash.digest('base64url')}"`;
  }
}

export const archiveLength = (s: WalkState) =>
  s.offset + s.centralSize + tailLength({ count: s.count, centralOffset: s.offset, centralSize: s.centralSize });

/** One pass over `entries()`: the archive's length, ETag and counts. Rejects (ENTRY) on an invalid entry. */
export async function planZip(entries: ZipEntries): Promise<ZipPlan> {
  const state = newWalkState();
  const etag = new EtagHash();
  for await (const item of walk(entries, state)) if (item.file) etag.add(item.file, item.mtime);
  return {
    length: archiveLength(state),
    etag: etag.digest(),
    count: state.count,
    files: state.files,
    mtime: state.mtime,
  };
}
