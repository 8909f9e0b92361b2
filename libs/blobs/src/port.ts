/**
 * The BlobStore port: content-addressed blobs. `put` streams the bytes in, hashing on the way,
 * and names the blob by its sha256 (hex). Nothing here buffers a whole blob.
 *
 * A put always writes the bytes it was given, even when a blob of that key is stored already,
 * and replaces it atomically: a stored copy is never trusted by its size, so a damaged one (bytes
 * flipped on disk) is healed by the next upload of that content instead of being served to
 * everyone who uploads it. Readers of the old copy go on reading it.
 *
 * Reclaiming blobs nothing references (the storage catalog's reaper) races uploads: a client may
 * put content that is already stored, then commit it. So a put always leaves the blob with a fresh
 * modification time, `list` shows that time, and `deleteIfUnchanged` deletes only a blob no put
 * has touched since a given time.
 */
import type { Readable } from 'node:stream';

export interface BlobInfo {
  /** sha256 of the content, lowercase hex; also the blob's key */
  key: string;
  size: number;
}

/** What WebDAV's clients verify transfers with, and a zip entry carries: computed by a put that asks. */
export interface BlobChecksums {
  /** lowercase hex */
  sha1: string;
  /** lowercase hex */
  md5: string;
  /** unsigned */
  crc32: number;
}

export interface PutOptions {
  /** compute SHA-1, MD5 and CRC-32 of the bytes too, in the same pass as the sha256 */
  checksums?: boolean;
}

export interface PutInfo extends BlobInfo {
  /** present when the put was asked for them */
  checksums?: BlobChecksums;
}

export interface ByteRange {
  start: number;
  /** inclusive */
  end: number;
}

/** A stored blob as `list` shows it. */
export interface ListedBlob extends BlobInfo {
  /** when the last put of this content finished, in ms since the epoch (the store's clock) */
  modifiedMs: number;
}

export interface BlobListOptions {
  /** list keys strictly after this one (the `next` of the page before) */
  after?: string;
  /** at most this many (default and maximum: BLOB_LIST_MAX) */
  limit?: number;
}

export interface BlobPage {
  /** in key order */
  blobs: ListedBlob[];
  /** the `after` of the next page; null when this is the last */
  next: string | null;
}

export const BLOB_LIST_MAX = 1000;

export interface BlobStore {
  /** Streams `source` in (see the header); with `checksums`, its SHA-1, MD5 and CRC-32 computed on the way. */
  put(source: Readable, options?: PutOptions): Promise<PutInfo>;
  /** Throws BlobNotFoundError when absent. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  stat(key: string): Promise<BlobInfo | null>;
  exists(key: string): Promise<boolean>;
  /** Deleting an absent blob is not an error. */
  delete(key: string): Promise<void>;
  /** Every blob, a page at a time, in key order (temporary data of puts under way is not listed). */
  list(options?: BlobListOptions): Promise<BlobPage>;
  /**
   * Deletes the blob only if no put of it finished after `cutoffMs` (ms since the epoch); true when
   * it deleted it. The reaper's delete: a put that lands meanwhile keeps the blob.
   */
  deleteIfUnchanged(key: string, cutoffMs: number): Promise<boolean>;
  /**
   * Removes what interrupted puts left (a process killed mid-upload) and that is older than
   * `cutoffMs`; returns how many items it removed. Puts under way are younger than any sane cutoff.
   */
  sweepTemporary(cutoffMs: number): Promise<number>;
  /**
   * Removes, whatever their age, the temporary data of puts whose process is gone (killed
   * mid-upload): those of this host whose process no longer runs (temporary.ts). Returns how many
   * items it removed. Run at start; puts under way, of this process or another, are left alone.
   */
  sweepAbandoned(): Promise<number>;
  /**
   * Takes a blob whose bytes do not hash to its key out of the store (it then reads as missing,
   * and the next put of that content stores it anew), keeping the bytes aside for the operator
   * (the local folder's `quarantine/`, MinIO's `quarantine/` prefix). The bytes are read again
   * first: a blob that verifies, or one a put replaced meanwhile, is left in place. True when it
   * took the blob out.
   */
  quarantine(key: string): Promise<boolean>;
  ping(): Promise<void>;
  /**
   * What the store can say of a blob's stored bytes without reading them, and that changes
   * whenever they may have changed through the file system (the local folder: device, inode, size,
   * modification and change times). Optional: a store without it (MinIO) has every whole read
   * checked. Null when the blob is absent.
   */
  fingerprint?(key: string): Promise<BlobFingerprint | null>;
  /**
   * A whole read together with the fingerprint of the bytes it reads (not of whatever holds the
   * name a moment before or after), for less than `fingerprint` then `get` cost. Optional, with
   * `fingerprint`. Throws BlobNotFoundError when absent.
   */
  getWithFingerprint?(key: string): Promise<{ stream: Readable; fingerprint: BlobFingerprint }>;
}

export interface BlobFingerprint {
  /** equal for two reads only if nothing wrote the bytes in between */
  id: string;
  /** when the bytes or their metadata last changed, ms since the epoch (the store's clock) */
  changedMs: number;
}

/**
 * A whole read for a caller that checks the bytes by its own means (the zip writer, against the
 * CRC-32 recorded at upload), from a reader that remembers blobs that read back right
 * (`verifyingReader`).
 */
export interface CheckedRead {
  stream: Readable;
  /**
   * These bytes read back right (by their hash, or by a caller's check of a whole read) within the
   * reader's re-check interval, and the file has not changed since: the caller need not check them.
   */
  known: boolean;
  /** Tells the reader that the caller's check of this whole read passed (remembered like a hash check, for such reads only). */
  passed(): void;
}

/** Reading blobs. */
export type BlobReader = Pick<BlobStore, 'get' | 'stat' | 'exists' | 'ping' | 'fingerprint' | 'getWithFingerprint'> & {
  /**
   * A small read in one go (`length` bytes from `range.start`, or the whole blob of `length` bytes
   * without a range): no stream, the bytes in one buffer (optional: the local folder has it; a
   * caller without it streams). null when the blob does not hold those bytes (shorter than the
   * catalog says, or, through `verifyingReader`, bytes that do not hash to the key): the caller
   * then streams, which fails as a stream does. Throws BlobNotFoundError when absent.
   */
  readSmall?(key: string, length: number, range?: ByteRange): Promise<Buffer | null>;
  /** A whole read for a caller that checks the bytes itself (optional: `verifyingReader` has it). Throws BlobNotFoundError when absent. */
  getChecked?(key: string): Promise<CheckedRead>;
};
/** Adding blobs (the gateway ingests uploads; only the storage catalog deletes blobs). */
export type BlobWriter = Pick<BlobStore, 'put' | 'sweepAbandoned'>;

export class BlobNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`blob not found: ${key}`);
    this.name = 'BlobNotFoundError';
  }
}

export const isBlobKey = (key: string) => /^[0-9a-f]{64}$/.test(key);

/**
 * Below this, a download or a zip entry reads its blob in one go (`readSmall`: an open, one read,
 * a close not waited for) instead of a stream (open, fstat, a read, a read finding the end, close,
 * and the stream's machinery): most of a small download's cost was its fixed cost.
 */
export const SMALL_BLOB_BYTES = smallBlobBytes(process.env.BURROW_SMALL_BLOB_BYTES);

/** BURROW_SMALL_BLOB_BYTES (0: every download streams, as before; for measuring); 64 KiB unless a whole number. */
function smallBlobBytes(setting: string | undefined): number {
  const n = setting === undefined || setting.trim() === '' ? NaN : Number(setting);
  return Number.isInteger(n) && n >= 0 ? n : 64 * 1024;
}

/** The page size a list call uses: the caller's limit within 1..BLOB_LIST_MAX. */
export function listLimit(options: BlobListOptions = {}): number {
  const limit = options.limit ?? BLOB_LIST_MAX;
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new RangeError(`list limit must be a positive integer, got ${limit}`);
  return Math.min(limit, BLOB_LIST_MAX);
}
