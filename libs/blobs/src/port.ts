/**
 * The BlobStore port: content-addressed blobs. `put` streams the bytes in, hashing on the way,
 * and names the blob by its sha256 (hex). Nothing here buffers a whole blob.
 */
import type { Readable } from 'node:stream';

export interface BlobInfo {
  /** sha256 of the content, lowercase hex; also the blob's key */
  key: string;
  size: number;
}

export interface ByteRange {
  start: number;
  /** inclusive */
  end: number;
}

export interface BlobStore {
  put(source: Readable): Promise<BlobInfo>;
  /** Throws BlobNotFoundError when absent. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  stat(key: string): Promise<BlobInfo | null>;
  exists(key: string): Promise<boolean>;
  /** Deleting an absent blob is not an error. */
  delete(key: string): Promise<void>;
  ping(): Promise<void>;
}

/** Reading blobs. */
export type BlobReader = Pick<BlobStore, 'get' | 'stat' | 'exists' | 'ping'>;
/** Adding blobs (the gateway ingests uploads; only the storage catalog deletes). */
export type BlobWriter = Pick<BlobStore, 'put'>;

export class BlobNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`blob not found: ${key}`);
    this.name = 'BlobNotFoundError';
  }
}

export const isBlobKey = (key: string) => /^[0-9a-f]{64}$/.test(key);
