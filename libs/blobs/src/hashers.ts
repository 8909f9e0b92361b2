/**
 * The digests of a put, one implementation for both places they are computed: the main thread
 * (small bodies, sha256-only puts) and the digest worker (digest-worker.ts).
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';

export interface DigestSet {
  /** the blob's name */
  sha256: boolean;
  /** SHA-1, MD5 and CRC-32 (what WebDAV's clients verify with, and zip entries carry) */
  checksums: boolean;
}

export interface Digests {
  sha256?: string;
  sha1?: string;
  md5?: string;
  crc32?: number;
}

export interface Hashers {
  update(chunk: Uint8Array): void;
  /** once, after the last `update` */
  digest(): Digests;
}

/** Fresh hashers for `set`: only what it asks for is computed. */
export function hashers(set: DigestSet): Hashers {
  const sha256 = set.sha256 ? createHash('sha256') : null;
  const sha1 = set.checksums ? createHash('sha1') : null;
  const md5 = set.checksums ? createHash('md5') : null;
  let crc = 0;
  return {
    update(chunk) {
      sha256?.update(chunk);
      sha1?.update(chunk);
      md5?.update(chunk);
      if (set.checksums) crc = crc32(chunk, crc);
    },
    digest: () => ({
      sha256: sha256?.digest('hex'),
      sha1: sha1?.digest('hex'),
      md5: md5?.digest('hex'),
      crc32: set.checksums ? crc >>> 0 : undefined,
    }),
  };
}
