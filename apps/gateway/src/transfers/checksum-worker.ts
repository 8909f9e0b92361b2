/**
 * The thread a large upload's checksums are computed on (checksums.ts): SHA-1, MD5 and CRC-32 of
 * each upload it is given, fed by messages of the upload's bytes (copies: the main thread writes
 * the same bytes to the blob store). It acknowledges the bytes it has hashed, so the main thread
 * can hold an upload back when it runs ahead (a bounded window per upload), and answers the three
 * checksums when the upload ends.
 */
import { createHash, type Hash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import { crc32 } from 'node:zlib';

export type ChecksumRequest =
  { id: number; op: 'data'; chunks: Uint8Array[] } | { id: number; op: 'end' } | { id: number; op: 'drop' };

export type ChecksumReply =
  | { id: number; hashed: number }
  | { id: number; sums: { sha1: string; md5: string; crc32: number } }
  | { id: number; error: string };

interface Job {
  sha1: Hash;
  md5: Hash;
  crc: number;
}

const jobs = new Map<number, Job>();

function job(id: number): Job {
  let j = jobs.get(id);
  if (!j) jobs.set(id, (j = { sha1: createHash('sha1'), md5: createHash('md5'), crc: 0 }));
  return j;
}

parentPort!.on('message', (m: ChecksumRequest) => {
  try {
    if (m.op === 'drop') {
      jobs.delete(m.id);
      return;
    }
    const j = job(m.id);
    if (m.op === 'data') {
      let bytes = 0;
      for (const chunk of m.chunks) {
        j.sha1.update(chunk);
        j.md5.update(chunk);
        j.crc = crc32(chunk, j.crc);
        bytes += chunk.length;
      }
      parentPort!.postMessage({ id: m.id, hashed: bytes } satisfies ChecksumReply);
      return;
    }
    jobs.delete(m.id);
    const sums = { sha1: j.sha1.digest('hex'), md5: j.md5.digest('hex'), crc32: j.crc >>> 0 };
    parentPort!.postMessage({ id: m.id, sums } satisfies ChecksumReply);
  } catch (error) {
    jobs.delete(m.id);
    parentPort!.postMessage({ id: m.id, error: (error as Error).message } satisfies ChecksumReply);
  }
});
