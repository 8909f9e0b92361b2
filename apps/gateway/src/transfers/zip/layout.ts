/**
 * One pass over the entries, as the archive lays them out: each file checked, preceded by the
 * folder entries its path opens (derived with a stack: in path order the files of one folder are
 * contiguous, since strings sharing the prefix `a/` are), each item with the offset of its local
 * header. planZip and both of writeZip's passes walk the same way, so they agree on every offset.
 */
import { centralHeaderLength, clampTime, localHeaderLength, MAX16, type RecordEntry } from './records.js';
import { ZipError, type ZipEntries, type ZipFileEntry } from './types.js';

export interface ZipItem extends RecordEntry {
  /** the file, or undefined for a derived folder entry */
  file?: ZipFileEntry;
  localLength: number;
  centralLength: number;
}

/** Where the walk is: the running totals a pass needs once the items run out. */
export interface WalkState {
  /** end of the last item's data: the central directory's offset once the walk is done */
  offset: number;
  count: number;
  files: number;
  centralSize: number;
  /** newest file mtime */
  mtime: number;
}

const LONE_SURROGATE = /\p{Cs}/u;

function checkEntry(e: ZipFileEntry): void {
  const p = e.path;
  const bad = (why: string) => new ZipError('ENTRY', `invalid zip entry ${JSON.stringify(p)}: ${why}`);
  if (typeof p !== 'string' || p === '') throw bad('empty path');
  if (p.startsWith('/') || p.endsWith('/')) throw bad('leading or trailing slash');
  if (p.includes('\0') || LONE_SURROGATE.test(p)) throw bad('NUL or unpaired surrogate');
  if (p.split('/').some((s) => s === '' || s === '.' || s === '..')) throw bad("empty, '.' or '..' segment");
  if (!Number.isSafeInteger(e.size) || e.size < 0) throw bad('size must be a non-negative integer');
  if (!Number.isInteger(e.crc32) || e.crc32 < 0 || e.crc32 > 0xffffffff)
    throw bad('crc32 must be an unsigned 32-bit integer');
  if (e.size === 0 && e.crc32 !== 0) throw bad('an empty file has CRC-32 0');
  if (!Number.isFinite(e.mtime)) throw bad('mtime must be a number');
  if (e.archivePath !== undefined) {
    const a = e.archivePath;
    const folder = (path: string) => path.slice(0, path.lastIndexOf('/') + 1);
    if (a === '' || a.endsWith('/') || a.includes('\0') || LONE_SURROGATE.test(a) || folder(a) !== folder(p))
      throw bad(`archivePath ${JSON.stringify(a)} must be another name in the same folder`);
    const last = a.slice(folder(a).length);
    if (last === '.' || last === '..') throw bad("archivePath cannot end in '.' or '..'");
  }
}

/** Code unit -> a key ordering like code points (surrogates above the rest of the BMP). */
const pointKey = (u: number) => (u >= 0xd800 && u <= 0xdfff ? u + 0x10000 : u);

/**
 * Checks that paths strictly increase in one lexicographic order throughout: JS string order
 * (UTF-16 code units: the memory document store) or UTF-8 byte order (code points: MongoDB).
 * The two differ only between a character above U+FFFF and one in U+E000..U+FFFF; the first such
 * pair fixes the order. Either order keeps folders contiguous, which the stack relies on.
 */
class OrderCheck {
  private previous: string | null = null;
  private order: 'js' | 'utf8' | null = null;

  next(path: string): void {
    const prev = this.previous;
    this.previous = path;
    if (prev === null) return;
    let i = 0;
    const n = Math.min(prev.length, path.length);
    while (i < n && prev.charCodeAt(i) === path.charCodeAt(i)) i++;
    let js: number;
    let utf8: number;
    if (i === n)
      js = utf8 = prev.length - path.length; // one is a prefix of the other
    else {
      const a = prev.charCodeAt(i);
      const b = path.charCodeAt(i);
      js = a - b;
      utf8 = pointKey(a) - pointKey(b);
    }
    if (js < 0 && utf8 < 0) return;
    const wanted = js < 0 ? 'js' : utf8 < 0 ? 'utf8' : null;
    if (wanted !== null && (this.order === null || this.order === wanted)) {
      this.order = wanted;
      return;
    }
    throw new ZipError('ENTRY', `zip entries out of path order: ${JSON.stringify(path)} after ${JSON.stringify(prev)}`);
  }
}

/** Walks `entries()` once, filling `state` as it goes; read `state` after the loop. */
export async function* walk(entries: ZipEntries, state: WalkState): AsyncGenerator<ZipItem> {
  const order = new OrderCheck();
  /** open folders, outermost first, each as its path plus '/' */
  const folders: string[] = [];
  const item = (
    name: Buffer,
    dir: boolean,
    size: number,
    crc32: number,
    mtime: number,
    file?: ZipFileEntry,
  ): ZipItem => {
    if (name.length > MAX16)
      throw new ZipError('ENTRY', `zip entry name longer than ${MAX16} bytes: ${name.toString('utf8', 0, 100)}...`);
    const offset = state.offset;
    const localLength = localHeaderLength(name.length, size);
    const centralLength = centralHeaderLength(name.length, size, offset);
    state.offset += localLength + size;
    state.count++;
    state.centralSize += centralLength;
    return { name, dir, size, crc32, mtime, offset, file, localLength, centralLength };
  };
  for await (const file of entries()) {
    checkEntry(file);
    order.next(file.path);
    const mtime = clampTime(file.mtime);
    while (folders.length > 0 && !file.path.startsWith(folders[folders.length - 1])) folders.pop();
    // open every folder between the innermost still open and the file
    let slash = folders.length > 0 ? folders[folders.length - 1].length - 1 : -1;
    while ((slash = file.path.indexOf('/', slash + 1)) !== -1) {
      const folder = file.path.slice(0, slash + 1);
      folders.push(folder);
      yield item(Buffer.from(folder, 'utf8'), true, 0, 0, mtime);
    }
    state.files++;
    state.mtime = Math.max(state.mtime, mtime);
    yield item(Buffer.from(file.archivePath ?? file.path, 'utf8'), false, file.size, file.crc32, mtime, file);
  }
}

export const newWalkState = (): WalkState => ({ offset: 0, count: 0, files: 0, centralSize: 0, mtime: 0 });
