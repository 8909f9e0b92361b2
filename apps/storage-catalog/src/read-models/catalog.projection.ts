/**
 * The catalog's read models, indexed by device + parent folder for listings and by device + path
 * for subtree walks, so a page costs the same whatever the size of the folder or the catalog:
 * - `files`: one document per file, holding its latest version and how many versions are stored;
 * - `folders`: one document per folder that holds live files somewhere below it, or that was made
 *   on its own (WebDAV MKCOL, COPY, MOVE, or given dead properties) or holds such a folder, with the
 *   live files, folders and bytes of its subtree (a folder of files appears with its first file and
 *   goes with its last; a made one stays until deleted);
 * - `versions`: one document per stored version, marked `latest: false` with the time it was
 *   superseded once a newer version of its file is committed (what `versionpurge_interval` counts);
 * - `previews`: one document per committed blob: its preview blobs once made (copied onto its files
 *   and versions), or that it has none (`failed`: no image, or one the previewer cannot read), or
 *   that nothing is decided yet (`pending`: the previewer's work list);
 * - `dead_property_usage`: per user, what their files' and folders' WebDAV dead properties take and
 *   how much of them was written today (`dead-property-usage.ts`).
 * Documents hold no nested arrays (FerretDB refuses them). Their types and collections are in
 * catalog.documents.ts.
 */
import {
  ancestorsOf,
  type DeviceEvent,
  type FileEvent,
  type FileVersionData,
  nameOf,
  parentOf,
  type PreviewEvent,
  StreamPrefixes,
  withChecksums,
} from '@burrow/contracts';
import { type DocumentStore, prefixRange } from '@burrow/documents';
import type { Projection } from '@burrow/eventsourcing';
import {
  type FileDoc,
  filesCollection,
  folderId,
  type FolderDoc,
  foldersCollection,
  NOT_AN_IMAGE,
  PREVIEW_BLOB_FIELDS,
  type Previews,
  previewsCollection,
  type VersionDoc,
  versionId,
  versionsCollection,
} from './catalog.documents.js';
import { countDeadProperties, storedPropertyBytes } from './dead-property-usage.js';

const PAGE = 1000;

/** A folder is listed while it holds live files, or is or holds a made folder. */
const present = (doc: FolderDoc) => doc.files > 0 || (doc.marks ?? 0) > 0;

/** The folders from the device root down to the one holding `path` (a file's or a folder's). */
const chainAbove = (path: string) => ancestorsOf(path);
/** The folders from the device root down to `path` itself (a folder path). */
const chainTo = (path: string) => (path === '' ? [''] : [...ancestorsOf(path), path]);

/**
 * A file became live (+1) or dead (-1), its size changed, or a folder was made (`marks` +1): the
 * counts of every folder of `chain` (from the device root down) follow. A folder that appears (or
 * goes) adds (or removes) one folder in each folder above it. `edit` changes the last folder of
 * the chain before it is written.
 */
async function adjustFolders(
  docs: DocumentStore,
  f: { userId: string; deviceId: string },
  chain: string[],
  delta: { files?: number; bytes?: number; marks?: number },
  edit?: (doc: FolderDoc) => void,
): Promise<void> {
  const folders = foldersCollection(docs);
  const loaded: FolderDoc[] = [];
  for (const path of chain) {
    loaded.push(
      (await folders.get(folderId(f.deviceId, path))) ?? {
        _id: folderId(f.deviceId, path),
        userId: f.userId,
        deviceId: f.deviceId,
        path,
        parent: path ? parentOf(path) : '',
        name: path ? nameOf(path) : '',
        files: 0,
        folders: 0,
        bytes: 0,
      },
    );
  }
  loaded.forEach((doc, depth) => {
    const before = present(doc);
    doc.files += delta.files ?? 0;
    doc.bytes += delta.bytes ?? 0;
    doc.marks = (doc.marks ?? 0) + (delta.marks ?? 0);
    // the device root is no folder of anything; a deeper one appearing or going counts above it
    if (depth > 0 && before !== present(doc)) {
      for (let above = 0; above < depth; above++) loaded[above].folders += present(doc) ? 1 : -1;
    }
  });
  if (edit && loaded.length) edit(loaded[loaded.length - 1]);
  for (const doc of loaded) {
    if (!present(doc)) await folders.delete(doc._id);
    else await folders.upsert(doc);
  }
}

/** Visits every document matching `filter`, a page at a time in `_id` order (`visit` may rewrite them). */
async function eachPage<T extends { _id: string; [key: string]: unknown }>(
  collection: ReturnType<DocumentStore['collection']>,
  filter: Record<string, unknown>,
  visit: (doc: T) => Promise<void>,
): Promise<void> {
  let after: string | null = null;
  for (;;) {
    // (flat, so an index on the filter's fields answers it)
    const page = (await collection.find(after === null ? filter : { ...filter, _id: { $gt: after } }, {
      sort: { _id: 1 },
      limit: PAGE,
    })) as T[];
    for (const doc of page) await visit(doc);
    if (page.length < PAGE) return;
    after = page[page.length - 1]._id;
  }
}

/**
 * The blob's previews as they stand; a blob seen for the first time joins the previewer's work
 * list, unless its commit knew it is no image (`image: false`): then it is decided here, as the
 * previewer would have decided it.
 */
async function previewsOf(docs: DocumentStore, d: FileVersionData): Promise<Previews> {
  const known = await previewsCollection(docs).get(d.blob);
  if (known) return known.previews;
  await previewsCollection(docs).upsert(
    d.image === false
      ? { _id: d.blob, previews: {}, failed: true, reason: NOT_AN_IMAGE, pending: false, since: d.at }
      : { _id: d.blob, previews: {}, failed: false, pending: true, since: d.at },
  );
  return {};
}

async function applyCommitted(docs: DocumentStore, d: FileVersionData): Promise<void> {
  const files = filesCollection(docs);
  const previews = await previewsOf(docs, d);
  const versions = versionsCollection(docs);
  await versions.upsert({
    _id: versionId(d.fileId, d.version),
    fileId: d.fileId,
    userId: d.userId,
    partnerId: d.partnerId,
    deviceId: d.deviceId,
    path: d.path,
    version: d.version,
    size: d.size,
    blob: d.blob,
    crc32: d.crc32,
    ...withChecksums(d),
    mtime: d.mtime,
    ctime: d.ctime,
    at: d.at,
    previews,
    latest: true,
    superseded_at: null,
  });
  const before = await files.get(d.fileId);
  const superseded =
    before && before.version !== d.version ? await versions.get(versionId(d.fileId, before.version)) : null;
  if (superseded?.latest) await versions.upsert({ ...superseded, latest: false, superseded_at: d.at });
  const wasLive = before !== null && !before.deleted;
  await files.upsert({
    _id: d.fileId,
    userId: d.userId,
    partnerId: d.partnerId,
    deviceId: d.deviceId,
    path: d.path,
    parent: parentOf(d.path),
    name: nameOf(d.path),
    deleted: false,
    deleted_at: null,
    versions: (before?.versions ?? 0) + 1,
    version: d.version,
    size: d.size,
    blob: d.blob,
    crc32: d.crc32,
    ...withChecksums(d),
    mtime: d.mtime,
    ctime: d.ctime,
    at: d.at,
    previews,
    incarnation: wasLive ? (before.incarnation ?? 0) : d.version,
    // a new version keeps the file's dead properties; a deleted file written again starts without
    ...(wasLive && before.props !== undefined ? { props: before.props } : {}),
  });
  if (wasLive) {
    if (d.size !== before.size) await adjustFolders(docs, d, chainAbove(d.path), { bytes: d.size - before.size });
  } else await adjustFolders(docs, d, chainAbove(d.path), { files: 1, bytes: d.size });
}

async function markDeleted(docs: DocumentStore, file: FileDoc, at: number): Promise<void> {
  if (file.deleted) return;
  const { props: dropped, ...kept } = file;
  await filesCollection(docs).upsert({ ...kept, deleted: true, deleted_at: at });
  await adjustFolders(docs, file, chainAbove(file.path), { files: -1, bytes: -file.size });
  await dropProperties(docs, file.userId, dropped);
}

/** A file's or folder's properties went with it. */
async function dropProperties(docs: DocumentStore, userId: string, props: string | undefined): Promise<void> {
  if (props) await countDeadProperties(docs, userId, { before: storedPropertyBytes(props), after: 0 });
}

async function applyFile(docs: DocumentStore, fileId: string, e: FileEvent): Promise<void> {
  const files = filesCollection(docs);
  switch (e.type) {
    case 'FileVersionCommitted':
      await applyCommitted(docs, e.data);
      return;
    case 'FileDeleted': {
      const file = await files.get(fileId);
      if (file) await markDeleted(docs, file, e.data.at);
      return;
    }
    case 'FileVersionsPurged': {
      for (const v of e.data.versions) await versionsCollection(docs).delete(versionId(fileId, v));
      const file = await files.get(fileId);
      if (!file) return;
      const versions = file.versions - e.data.versions.length;
      if (versions > 0) {
        await files.upsert({ ...file, versions });
        return;
      }
      // nothing stored any more: the file is gone (it was deleted, or its device removed)
      await files.delete(fileId);
      await dropProperties(docs, file.userId, file.props);
      if (!file.deleted) await adjustFolders(docs, file, chainAbove(file.path), { files: -1, bytes: -file.size });
      return;
    }
    case 'FilePropertiesSet': {
      const file = await files.get(fileId);
      if (!file) return;
      const props = JSON.stringify(e.data.props);
      await files.upsert({ ...file, props });
      await countDeadProperties(docs, file.userId, {
        before: storedPropertyBytes(file.props),
        after: storedPropertyBytes(props),
        at: e.data.at,
      });
      return;
    }
    case 'FileMovedOut': {
      await versionsCollection(docs).delete(versionId(fileId, e.data.version));
      const file = await files.get(fileId);
      if (!file) return;
      const versions = file.versions - 1;
      if (file.version !== e.data.version) {
        // an older version went (the file was written again while it moved): the file stays as it is
        await files.upsert({ ...file, versions });
        return;
      }
      const { props: moved, ...kept } = file;
      if (versions > 0)
        await files.upsert({
          ...kept,
          versions,
          deleted: true,
          deleted_at: file.deleted ? file.deleted_at : e.data.at,
        });
      else await files.delete(fileId);
      await dropProperties(docs, file.userId, moved);
      if (!file.deleted) await adjustFolders(docs, file, chainAbove(file.path), { files: -1, bytes: -file.size });
      return;
    }
    default:
      return;
  }
}

/**
 * Everything under a folder was deleted: its live files are marked, its folders (made ones
 * included) go, and their counts leave the folders above, some of which may go with them.
 */
async function applyFolderDeleted(docs: DocumentStore, deviceId: string, path: string, at: number): Promise<void> {
  const files = filesCollection(docs);
  const folders = foldersCollection(docs);
  const top = await folders.get(folderId(deviceId, path));
  if (!top) return;
  const range = prefixRange(path);
  for (;;) {
    const page = await files.find({ deviceId, deleted: false, path: range }, { sort: { path: 1 }, limit: PAGE });
    for (const file of page) {
      const { props: dropped, ...kept } = file;
      await files.upsert({ ...kept, deleted: true, deleted_at: at });
      await dropProperties(docs, file.userId, dropped);
    }
    if (page.length < PAGE) break;
  }
  for (;;) {
    const page = await folders.find({ deviceId, path: range }, { sort: { path: 1 }, limit: PAGE });
    for (const folder of page) {
      await folders.delete(folder._id);
      await dropProperties(docs, folder.userId, folder.props);
    }
    if (page.length < PAGE) break;
  }
  // deepest first: a folder above that goes with it is one more folder gone for those above it
  let vanished = top.folders + (path === '' ? 0 : 1);
  for (const p of ancestorsOf(path).reverse()) {
    if (p === path) continue;
    const doc = await folders.get(folderId(deviceId, p));
    if (!doc) continue;
    doc.files -= top.files;
    doc.bytes -= top.bytes;
    doc.marks = (doc.marks ?? 0) - (top.marks ?? 0);
    doc.folders -= vanished;
    if (present(doc)) await folders.upsert(doc);
    else {
      await folders.delete(doc._id);
      if (p !== '') vanished += 1;
    }
  }
}

/** A folder was made: it and the folders above it hold one more made folder (once, however often it is told). */
async function applyFolderCreated(
  docs: DocumentStore,
  deviceId: string,
  d: { path: string; userId: string; at: number },
): Promise<void> {
  if ((await foldersCollection(docs).get(folderId(deviceId, d.path)))?.made) return;
  await adjustFolders(docs, { userId: d.userId, deviceId }, chainTo(d.path), { marks: 1 }, (doc) => {
    doc.made = true;
    doc.made_at = d.at;
  });
}

async function applyFolderProperties(
  docs: DocumentStore,
  deviceId: string,
  d: { path: string; props: Record<string, string>; at: number },
): Promise<void> {
  const doc = await foldersCollection(docs).get(folderId(deviceId, d.path));
  if (!doc) return;
  const props = JSON.stringify(d.props);
  await foldersCollection(docs).upsert({ ...doc, props });
  await countDeadProperties(docs, doc.userId, {
    before: storedPropertyBytes(doc.props),
    after: storedPropertyBytes(props),
    at: d.at,
  });
}

/** A removed device's folders go from the listings, and their properties with them (its files' go as they are purged). */
async function applyDeviceRemoved(docs: DocumentStore, deviceId: string): Promise<void> {
  await eachPage<FolderDoc>(foldersCollection(docs), { deviceId }, (folder) =>
    dropProperties(docs, folder.userId, folder.props),
  );
  await foldersCollection(docs).deleteMany({ deviceId });
}

/** The blob's files and versions show these previews. */
async function showPreviews(docs: DocumentStore, blob: string, previews: Previews): Promise<void> {
  await eachPage<VersionDoc>(versionsCollection(docs), { blob }, (v) =>
    versionsCollection(docs).upsert({ ...v, previews }),
  );
  await eachPage<FileDoc>(filesCollection(docs), { blob }, (f) => filesCollection(docs).upsert({ ...f, previews }));
}

async function applyPreviews(docs: DocumentStore, e: PreviewEvent): Promise<void> {
  const collection = previewsCollection(docs);
  const blob = e.data.blob;
  const since = (await collection.get(blob))?.since ?? e.data.at;
  switch (e.type) {
    case 'PreviewsGenerated':
      await collection.upsert({ _id: blob, previews: e.data.previews, failed: false, pending: false, since });
      await showPreviews(docs, blob, e.data.previews);
      return;
    case 'PreviewsFailed':
      await collection.upsert({ _id: blob, previews: {}, failed: true, reason: e.data.reason, pending: false, since });
      return;
    case 'PreviewsDiscarded':
      // the blob was reaped; content committed again since (a race with the reaper) needs them anew
      if (await versionsCollection(docs).findOne({ blob })) {
        await collection.upsert({ _id: blob, previews: {}, failed: false, pending: true, since: e.data.at });
        await showPreviews(docs, blob, {});
      } else await collection.delete(blob);
      return;
    default:
      return;
  }
}

export const catalogProjection = (): Projection => ({
  name: 'catalog',
  prefixes: [StreamPrefixes.file, StreamPrefixes.device, StreamPrefixes.preview],
  async init(docs) {
    await filesCollection(docs).ensureIndex({ deviceId: 1, parent: 1, deleted: 1, name: 1 });
    await filesCollection(docs).ensureIndex({ deviceId: 1, deleted: 1, path: 1 });
    await filesCollection(docs).ensureIndex({ deviceId: 1, path: 1 });
    await filesCollection(docs).ensureIndex({ blob: 1 });
    // the purger's queries: a partner's files deleted before a cutoff, its versions superseded before one
    await filesCollection(docs).ensureIndex({ partnerId: 1, deleted: 1, deleted_at: 1 });
    await foldersCollection(docs).ensureIndex({ deviceId: 1, parent: 1, name: 1 });
    await foldersCollection(docs).ensureIndex({ deviceId: 1, path: 1 });
    await versionsCollection(docs).ensureIndex({ fileId: 1, version: 1 });
    await versionsCollection(docs).ensureIndex({ blob: 1 });
    await versionsCollection(docs).ensureIndex({ partnerId: 1, latest: 1, superseded_at: 1 });
    // the previewer's work list, oldest first; and which blobs are previews (the blob reaper: sparse,
    // as most blobs are no image and have none, so their previews document, written twice per
    // upload, adds no entry to these four)
    await previewsCollection(docs).ensureIndex({ pending: 1, since: 1 });
    for (const field of PREVIEW_BLOB_FIELDS)
      await previewsCollection(docs).ensureIndex({ [field]: 1 }, { sparse: true });
    // Indexes stores made by older builds keep and write on every upsert (issue 37): no query
    // filters on (deleted, deleted_at) without the partner (the purger's has its own index); a
    // lone `pending` is a prefix of (pending, since); the preview fields' full indexes are the
    // sparse ones above. An upload writes a files document once and a previews document twice.
    await filesCollection(docs).dropIndex({ deleted: 1, deleted_at: 1 });
    await previewsCollection(docs).dropIndex({ pending: 1 });
    for (const field of PREVIEW_BLOB_FIELDS) await previewsCollection(docs).dropIndex({ [field]: 1 });
  },
  async apply(event, docs) {
    if (event.stream.startsWith(StreamPrefixes.file)) {
      await applyFile(docs, event.stream.slice(StreamPrefixes.file.length), {
        type: event.type,
        data: event.data,
      } as FileEvent);
    } else if (event.stream.startsWith(StreamPrefixes.preview)) {
      await applyPreviews(docs, { type: event.type, data: event.data } as PreviewEvent);
    } else {
      const e = { type: event.type, data: event.data } as DeviceEvent;
      const deviceId = event.stream.slice(StreamPrefixes.device.length);
      if (e.type === 'FolderDeleted') await applyFolderDeleted(docs, deviceId, e.data.path, e.data.at);
      else if (e.type === 'FolderCreated') await applyFolderCreated(docs, deviceId, e.data);
      else if (e.type === 'FolderPropertiesSet') await applyFolderProperties(docs, deviceId, e.data);
      // a removed device is listed nowhere; its files stay until the purger has removed their versions
      else if (e.type === 'DeviceRemoved') await applyDeviceRemoved(docs, deviceId);
    }
  },
});
