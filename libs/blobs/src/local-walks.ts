/**
 * The local blob store's walks over its folders (local.ts): listing the blobs in key order a page
 * at a time (the reaper and the scrubber), and sweeping its temporary folder of files older than a
 * cutoff or left by a killed process (temporary.ts).
 */
import { readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { type BlobListOptions, type BlobPage, isBlobKey, type ListedBlob, listLimit } from './port.js';
import { abandoned } from './temporary.js';

const HEX2 = /^[0-9a-f]{2}$/;

export const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** The names in a folder, sorted; none when it does not exist. */
async function sortedNames(path: string): Promise<string[]> {
  try {
    return (await readdir(path)).sort();
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

/**
 * Walks the two levels of folders of the store at `dir` in name order, skipping whole folders
 * before `after`, so a page reads at most a few folders' names whatever the store's size.
 */
export async function listBlobs(dir: string, options: BlobListOptions = {}): Promise<BlobPage> {
  const limit = listLimit(options);
  const after = options.after ?? '';
  const blobs: ListedBlob[] = [];
  for (const top of await sortedNames(dir)) {
    if (!HEX2.test(top) || top < after.slice(0, 2)) continue;
    for (const sub of await sortedNames(join(dir, top))) {
      if (!HEX2.test(sub) || top + sub < after.slice(0, 4)) continue;
      for (const key of await sortedNames(join(dir, top, sub))) {
        if (!isBlobKey(key) || key <= after || !key.startsWith(top + sub)) continue;
        try {
          const s = await stat(join(dir, top, sub, key));
          blobs.push({ key, size: s.size, modifiedMs: s.mtimeMs });
        } catch (error) {
          if (!isMissing(error)) throw error; // deleted meanwhile
          continue;
        }
        if (blobs.length === limit) return { blobs, next: key };
      }
    }
  }
  return { blobs, next: null };
}

/** Removes the files of the temporary folder `tmpDir` last modified at or before `cutoffMs`. */
export async function sweepTemporary(tmpDir: string, cutoffMs: number): Promise<number> {
  let removed = 0;
  for (const name of await sortedNames(tmpDir)) {
    const path = join(tmpDir, name);
    try {
      if ((await stat(path)).mtimeMs > cutoffMs) continue;
      await unlink(path);
      removed += 1;
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }
  return removed;
}

/** Removes the files of the temporary folder `tmpDir` that a process no longer running left. */
export async function sweepAbandoned(tmpDir: string): Promise<number> {
  let removed = 0;
  for (const name of await sortedNames(tmpDir)) {
    if (!abandoned(name)) continue;
    try {
      await unlink(join(tmpDir, name));
      removed += 1;
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }
  return removed;
}
