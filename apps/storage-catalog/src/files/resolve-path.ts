/**
 * What a WebDAV path names on a device, from the read models: a path without a trailing slash is
 * the live file of that name or else the folder; with one, or '' (the device root), only a folder.
 * Paths come canonical from here on: a file path without, a folder path with its trailing slash.
 */
import {
  type DeadProperties,
  type FileEntry,
  fileIdOf,
  type FolderStat,
  folderPath,
  nameOf,
  pathSegments,
} from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import {
  type FileDoc,
  filesCollection,
  type FolderDoc,
  foldersCollection,
  folderId,
} from '../read-models/catalog.documents.js';
import { toFileEntry } from './listing.js';

export type ResolvedPath =
  | { kind: 'file'; path: string; doc: FileDoc }
  /** `doc` null: the device root, which has no document while it holds nothing */
  | { kind: 'folder'; path: string; doc: FolderDoc | null };

export const propsOf = (doc: { props?: string } | null): DeadProperties =>
  doc?.props ? (JSON.parse(doc.props) as DeadProperties) : {};

/** The live file or the folder `path` names, or null. */
export async function resolvePath(docs: DocumentStore, deviceId: string, path: string): Promise<ResolvedPath | null> {
  const segments = pathSegments(path);
  if (segments.length === 0)
    return { kind: 'folder', path: '', doc: await foldersCollection(docs).get(folderId(deviceId, '')) };
  if (!path.endsWith('/')) {
    const file = segments.join('/');
    const doc = await filesCollection(docs).get(fileIdOf(deviceId, file));
    if (doc && !doc.deleted) return { kind: 'file', path: file, doc };
  }
  const folder = folderPath(path);
  const doc = await foldersCollection(docs).get(folderId(deviceId, folder));
  return doc ? { kind: 'folder', path: folder, doc } : null;
}

/** Does a folder exist at `folder` (a canonical folder path; '' is the device root, always there)? */
export async function folderExists(docs: DocumentStore, deviceId: string, folder: string): Promise<boolean> {
  return folder === '' || (await foldersCollection(docs).get(folderId(deviceId, folder))) !== null;
}

export function toFolderStat(path: string, doc: FolderDoc | null): FolderStat {
  return {
    path,
    name: path ? nameOf(path) : '',
    files: doc?.files ?? 0,
    folders: doc?.folders ?? 0,
    bytes: doc?.bytes ?? 0,
    created: doc?.made ? (doc.made_at ?? null) : null,
    props: propsOf(doc),
  };
}

export const toFileStat = (doc: FileDoc): FileEntry & { props: DeadProperties } => ({
  ...toFileEntry(doc),
  props: propsOf(doc),
});
