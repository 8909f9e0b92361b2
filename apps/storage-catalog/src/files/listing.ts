/**
 * Reading the catalog a page at a time: a folder (subfolders, then files, each by name) and a
 * subtree (every live file under a folder, by path). Cursors are opaque to callers and name the
 * last entry returned, so a page costs an index range scan whatever the folder's size, and paging
 * is stable while the folder changes (an entry is never returned twice).
 *
 * The catalog lets a file and a folder have the same path (`a` and `a/x`); a zip, like any file
 * system, cannot hold both, so a subtree page names such a file apart for the archive
 * (`archive_name`, `a (file)`), checked against the files and folders beside it.
 */
import {
  badRequest,
  fileIdOf,
  type FileEntry,
  type FolderEntry,
  type FolderPage,
  LISTING_PAGE_DEFAULT,
  LISTING_PAGE_MAX,
  type SubtreeFile,
  type SubtreePage,
  withChecksums,
} from '@burrow/contracts';
import { type DocumentStore, prefixRange } from '@burrow/documents';
import {
  type FileDoc,
  filesCollection,
  type FolderDoc,
  folderId,
  foldersCollection,
} from '../read-models/catalog.documents.js';

interface FolderCursor {
  /** 'd' while listing subfolders, 'f' files */
  p: 'd' | 'f';
  /** the last name returned */
  n: string;
}

const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

function decode<T>(cursor: string | undefined, check: (v: Record<string, unknown>) => boolean): T | null {
  if (!cursor) return null;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (value && typeof value === 'object' && check(value)) return value as T;
  } catch {
    // fall through
  }
  throw badRequest('invalid cursor', ['cursor']);
}

const pageSize = (limit: number | undefined) => Math.min(Math.max(1, limit ?? LISTING_PAGE_DEFAULT), LISTING_PAGE_MAX);

export const toFileEntry = (f: FileDoc): FileEntry => ({
  path: f.path,
  name: f.name,
  version: f.version,
  size: f.size,
  blob: f.blob,
  crc32: f.crc32,
  ...withChecksums(f),
  mtime: f.mtime,
  ctime: f.ctime,
  at: f.at,
  previews: f.previews,
  versions: f.versions,
});

/**
 * toFileEntry's fields, for the store to read a listing's files as entries (one object per file,
 * not a document and then its entry: a 5,000-file page keeps half the objects alive).
 */
const FILE_ENTRY_FIELDS = [
  'path',
  'name',
  'version',
  'size',
  'blob',
  'crc32',
  'checksums',
  'mtime',
  'ctime',
  'at',
  'previews',
  'versions',
] as const satisfies readonly (keyof FileEntry)[];

const toFolderEntry = (f: FolderDoc): FolderEntry => ({
  name: f.name,
  path: f.path,
  files: f.files,
  folders: f.folders,
});

/** A page of a folder as documents: subfolders, then files, each by name. */
export function folderPage(
  docs: DocumentStore,
  deviceId: string,
  path: string,
  options: { cursor?: string; limit?: number },
): Promise<{ dirs: FolderDoc[]; files: FileDoc[]; next: string | null }> {
  return pageOf<FileDoc>(docs, deviceId, path, options);
}

/** A page of a folder, its files whole or cut to `fields`. */
async function pageOf<F extends { name: string }>(
  docs: DocumentStore,
  deviceId: string,
  path: string,
  options: { cursor?: string; limit?: number },
  fields?: readonly string[],
): Promise<{ dirs: FolderDoc[]; files: F[]; next: string | null }> {
  const limit = pageSize(options.limit);
  const cursor = decode<FolderCursor>(options.cursor, (v) => (v.p === 'd' || v.p === 'f') && typeof v.n === 'string');
  const dirs: FolderDoc[] = [];
  if (!cursor || cursor.p === 'd') {
    // the device root (name '') is its own parent: never listed; a folder document exists only
    // while the folder does (it holds live files, or is or holds a made folder)
    const filter = { deviceId, parent: path, name: { $gt: cursor ? cursor.n : '' } };
    const page = await foldersCollection(docs).find(filter, { sort: { name: 1 }, limit: limit + 1 });
    if (page.length > limit) {
      const shown = page.slice(0, limit);
      return { dirs: shown, files: [], next: encode({ p: 'd', n: shown[shown.length - 1].name }) };
    }
    dirs.push(...page);
  }
  const room = limit - dirs.length;
  if (room <= 0) {
    // the page is full of folders: the files start on the next one
    return { dirs, files: [], next: encode({ p: 'd', n: dirs[dirs.length - 1].name }) };
  }
  const after = cursor?.p === 'f' ? cursor.n : undefined;
  const filter =
    after === undefined
      ? { deviceId, parent: path, deleted: false }
      : { deviceId, parent: path, deleted: false, name: { $gt: after } };
  // as unknown as: with `fields` the store returns only those fields (F, the caller's pick of FileDoc); the port types a find as whole documents
  const files = (await filesCollection(docs).find(filter, {
    sort: { name: 1 },
    limit: room + 1,
    ...(fields ? { fields } : {}),
  })) as unknown as F[];
  const more = files.length > room;
  const shown = more ? files.slice(0, room) : files;
  return { dirs, files: shown, next: more ? encode({ p: 'f', n: shown[shown.length - 1].name }) : null };
}

export async function listFolder(
  docs: DocumentStore,
  deviceId: string,
  path: string,
  options: { cursor?: string; limit?: number },
): Promise<FolderPage> {
  const page = await pageOf<FileEntry>(docs, deviceId, path, options, FILE_ENTRY_FIELDS);
  return { dirs: page.dirs.map(toFolderEntry), files: page.files, next: page.next };
}

/** Every live file under `path` (a folder path; '' for the whole device), in path order. */
export async function walkFolder(
  docs: DocumentStore,
  deviceId: string,
  path: string,
  options: { cursor?: string; limit?: number },
): Promise<SubtreePage> {
  const limit = pageSize(options.limit);
  const cursor = decode<{ a: string }>(options.cursor, (v) => typeof v.a === 'string');
  const { $gte, $lt } = prefixRange(path);
  const range: Record<string, string> = cursor ? { $gt: cursor.a } : { $gte };
  if ($lt !== undefined) range.$lt = $lt;
  const page = await filesCollection(docs).find(
    { deviceId, deleted: false, path: range },
    { sort: { path: 1 }, limit: limit + 1 },
  );
  const more = page.length > limit;
  const shown = more ? page.slice(0, limit) : page;
  const twins = await folderTwins(docs, deviceId, shown);
  const files = await Promise.all(
    shown.map(async (f): Promise<SubtreeFile> =>
      twins.has(f.path) ? { ...toFileEntry(f), archive_name: await archiveName(docs, deviceId, f) } : toFileEntry(f),
    ),
  );
  return { files, next: more ? encode({ a: shown[shown.length - 1].path }) : null };
}

/** The paths among `files` that are also folders holding files (one query per page). */
async function folderTwins(docs: DocumentStore, deviceId: string, files: FileDoc[]): Promise<Set<string>> {
  if (!files.length) return new Set();
  const folders = await foldersCollection(docs).find({
    _id: { $in: files.map((f) => folderId(deviceId, `${f.path}/`)) },
    files: { $gt: 0 },
  });
  return new Set(folders.map((d) => d.path.slice(0, -1)));
}

/** `<name> (file)`, or `<name> (file N)` for the first N from 2 that no live file or folder beside it has. */
async function archiveName(docs: DocumentStore, deviceId: string, file: FileDoc): Promise<string> {
  for (let n = 1; ; n++) {
    const name = `${file.name} (file${n > 1 ? ` ${n}` : ''})`;
    const path = `${file.parent}${name}`;
    const sibling = await filesCollection(docs).get(fileIdOf(deviceId, path));
    const folder = await foldersCollection(docs).get(folderId(deviceId, `${path}/`));
    if ((!sibling || sibling.deleted) && (!folder || folder.files === 0)) return name;
  }
}
