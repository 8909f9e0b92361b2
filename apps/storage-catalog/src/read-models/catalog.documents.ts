/**
 * The catalog's documents and their collections: what a `files`, `folders`, `versions` and
 * `previews` document holds, and their ids. The catalog projection (catalog.projection.ts) writes
 * them; the handlers, the purger, the previewer, the reaper and the scrubber read them.
 */
import { type FileChecksums, PREVIEW_WIDTHS } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';

export type Previews = Partial<Record<'25' | '48' | '228' | '800', string>>;

export interface FileDoc {
  _id: string;
  userId: string;
  partnerId: string;
  deviceId: string;
  path: string;
  parent: string;
  name: string;
  deleted: boolean;
  deleted_at: number | null;
  /** stored (not purged) versions */
  versions: number;
  version: number;
  size: number;
  blob: string;
  crc32: number;
  /** SHA-1 and MD5 of the content (absent for versions committed before they were computed) */
  checksums?: FileChecksums;
  mtime: number;
  ctime: number;
  at: number;
  previews: Previews;
  /**
   * The version that began the file's current life: a commit after the file was deleted (itself or
   * with its folder) or purged starts a new one. Links and session extensions name it. Absent in
   * documents from before it was kept: 0.
   */
  incarnation?: number;
  /** its WebDAV dead properties, as JSON (absent: none) */
  props?: string;
  [key: string]: unknown;
}

export interface FolderDoc {
  _id: string;
  userId: string;
  deviceId: string;
  path: string;
  parent: string;
  name: string;
  files: number;
  folders: number;
  bytes: number;
  /** made folders in its subtree, itself included (absent on documents from before folders could be made) */
  marks?: number;
  /** made on its own (absent: no) */
  made?: boolean;
  /** when it was made */
  made_at?: number;
  /** its WebDAV dead properties, as JSON (property names hold dots, which documents may not) */
  props?: string;
  [key: string]: unknown;
}

export interface VersionDoc {
  _id: string;
  fileId: string;
  userId: string;
  partnerId: string;
  deviceId: string;
  path: string;
  version: number;
  size: number;
  blob: string;
  crc32: number;
  /** SHA-1 and MD5 of the content (absent for versions committed before they were computed) */
  checksums?: FileChecksums;
  mtime: number;
  ctime: number;
  at: number;
  previews: Previews;
  /** false once a newer version of the file was committed */
  latest: boolean;
  /** when that newer version was committed (null while latest) */
  superseded_at: number | null;
  [key: string]: unknown;
}

export interface PreviewDoc {
  /** the blob */
  _id: string;
  previews: Previews;
  failed: boolean;
  /** why there are none (when failed) */
  reason?: string;
  /** committed, and nothing decided about its previews yet */
  pending: boolean;
  /** when it became pending (unix seconds) */
  since: number;
  [key: string]: unknown;
}

/** The fields of a previews document that name preview blobs (each indexed, for the blob reaper). */
export const PREVIEW_BLOB_FIELDS = PREVIEW_WIDTHS.map((w) => `previews.${w}`);

export const filesCollection = (docs: DocumentStore) => docs.collection<FileDoc>('files');
export const foldersCollection = (docs: DocumentStore) => docs.collection<FolderDoc>('folders');
export const versionsCollection = (docs: DocumentStore) => docs.collection<VersionDoc>('versions');
export const previewsCollection = (docs: DocumentStore) => docs.collection<PreviewDoc>('previews');

/** Why a blob has no previews when its first bytes are no image's (its commit or the previewer records it). */
export const NOT_AN_IMAGE = 'not an image (JPEG, PNG, GIF or WebP)';

export const folderId = (deviceId: string, path: string) => `${deviceId}:${path}`;
export const versionId = (fileId: string, version: number) => `${fileId}:${version}`;
