/**
 * The thread a large put's digests are computed on (digests.ts): the sha256 that names the blob
 * and, when the put asks for them, SHA-1, MD5 and CRC-32, of each put it is given, fed by messages
 * of the put's bytes (copies: the main thread writes the same bytes to the store). It acknowledges
 * the bytes it has hashed, so the main thread can hold a put back when it runs ahead (a bounded
 * window per put), and answers the digests when the put's bytes end.
 */
import { createHash, type Hash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
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

export type DigestRequest =
  | { id: number; op: 'start'; set: DigestSet }
  | { id: number; op: 'data'; chunks: Uint8Array[] }
  | { id: number; op: 'end' }
  | { id: number; op: 'drop' };

export type DigestReply =
  { id: number; hashed: number } | { id: number; digests: Digests } | { id: number; error: string };

interface Job {
  sha256: Hash | null;
  sha1: Hash | null;
  md5: Hash | null;
  crc: number | null;
}

const jobs = new Map<number, Job>();

function start(set: DigestSet): Job {
  return {
    sha256: set.sha256 ? createHash('sha256') : null,
    sha1: set.checksums ? createHash('sha1') : null,
    md5: set.checksums ? createHash('md5') : null,
    crc: set.checksums ? 0 : null,
  };
}

function reply(message: DigestReply): void {
  parentPort!.postMessage(message);
}

parentPort!.on('message', (m: DigestRequest) => {
  try {
    if (m.op === 'start') {
      jobs.set(m.id, start(m.set));
      return;
    }
    const job = jobs.get(m.id);
    if (m.op === 'drop' || !job) {
      jobs.delete(m.id);
      if (m.op !== 'drop') reply({ id: m.id, error: 'no such digest job' });
      return;
    }
    if (m.op === 'data') {
      let bytes = 0;
      for (const chunk of m.chunks) {
        job.sha256?.update(chunk);
        job.sha1?.update(chunk);
        job.md5?.update(chunk);
        if (job.crc !== null) job.crc = crc32(chunk, job.crc);
        bytes += chunk.length;
      }
      reply({ id: m.id, hashed: bytes });
      return;
    }
    jobs.delete(m.id);
    reply({
      id: m.id,
      digests: {
        sha256: job.sha256?.digest('hex'),
        sha1: job.sha1?.digest('hex'),
        md5: job.md5?.digest('hex'),
        crc32: job.crc === null ? undefined : job.crc >>> 0,
      },
    });
  } catch (error) {
    jobs.delete(m.id);
    reply({ id: m.id, error: (error as Error).message });
  }
});
