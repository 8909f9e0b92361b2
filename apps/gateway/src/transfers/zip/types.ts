/**
 * The zip writer's vocabulary: what a caller hands it (a re-runnable source of file entries, each
 * with its size and CRC-32 known in advance and a way to open any byte range of its content) and
 * what it hands back (the archive's plan, errors that say which side failed).
 */
import type { Readable } from 'node:stream';

export interface ZipFileEntry {
  /** Relative to the zip root, '/'-separated, no leading or trailing slash, no '.'/'..' segment. */
  path: string;
  /**
   * The name the entry is written under when it differs from `path`: the same folder, another last
   * segment (a file named apart from a folder of its path). Entries are ordered and nested by
   * `path`; the caller makes archive names unique.
   */
  archivePath?: string;
  /** Content length in bytes. */
  size: number;
  /** CRC-32 of the content (unsigned 32-bit), known from ingest. */
  crc32: number;
  /** Modification time, unix seconds (UTC). */
  mtime: number;
  /**
   * Content identity (e.g. the blob's sha256): part of the ETag, so that the same names, sizes,
   * CRCs and times over different bytes never share an ETag. Optional but recommended.
   */
  id?: string;
  /** The content bytes [start, endInclusive]; never called for an empty file. */
  open(start: number, endInclusive: number): Promise<Readable>;
  /**
   * The whole content, for a writer that checks CRC-32s (`verifyCrc`), from a store that remembers
   * what read back right: `known` when these bytes did recently and have not changed since (the
   * writer then skips their CRC), `passed()` to tell the store that the CRC of a whole read
   * matched. Optional (a whole read is then `open(0, size - 1)`); never called for an empty file.
   */
  openChecked?(): Promise<{ stream: Readable; known: boolean; passed(): void }>;
}

/**
 * The archive's content: each call starts a new pass over the same entries, in path order
 * (strictly increasing by JS string order or by UTF-8 byte order, one of the two throughout).
 * Page through the catalog inside it; the writer never holds more than one entry.
 */
export type ZipEntries = () => AsyncIterable<ZipFileEntry>;

export interface ZipPlan {
  /** The archive's exact length in bytes. */
  length: number;
  /** A strong ETag, quoted, ready for the header: same entries (and ids) -> same ETag and bytes. */
  etag: string;
  /** Entries in the archive: files plus the folder entries derived from their paths. */
  count: number;
  /** Files among them. */
  files: number;
  /** The newest file mtime (unix seconds), 0 for an empty archive: a `Last-Modified` candidate. */
  mtime: number;
}

/** Inclusive byte range of the archive, as in an HTTP `Range: bytes=start-end`. */
export interface ZipRange {
  start: number;
  end: number;
}

export interface WriteZipOptions {
  /**
   * The plan the response headers were built from (planZip's result). When given, the writer
   * checks that the entries still produce that archive (walking every entry's metadata even for
   * a range that ends early) and rejects with code CHANGED, before ending `out`, when they do not.
   */
  expect?: Pick<ZipPlan, 'length' | 'etag'>;
  /**
   * Check each wholly written entry's bytes against its CRC-32 and reject (BLOB) on a mismatch,
   * before any byte after the entry. Default false (it costs CPU per byte: bench:zip). The
   * gateway's folder zips turn it on: an archive served whole with a wrong file inside (a CRC
   * error found only on extraction) is worse than a download that fails and a blob the operator
   * is told about. Sizes are always checked. An entry whose `openChecked` says its bytes are
   * `known` (they read back right recently and have not changed since) is not checked again.
   */
  verifyCrc?: boolean;
  /** End `out` after the last byte (default true). `out` is never ended on failure. */
  end?: boolean;
}

export type ZipErrorCode =
  /** an entry is invalid: bad path, size, CRC or time, duplicate or out of order */
  | 'ENTRY'
  /** a blob could not be opened or read, or yielded a different length or CRC than its entry */
  | 'BLOB'
  /** the output was closed or failed before the archive was complete (the client went away) */
  | 'OUTPUT_CLOSED'
  /** the entries changed between two passes, or no longer match the expected plan */
  | 'CHANGED'
  /** the range is not within the archive */
  | 'RANGE';

export class ZipError extends Error {
  constructor(
    readonly code: ZipErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ZipError';
  }
}
