/**
 * The thread a large put's digests are computed on (digests.ts): the sha256 that names the blob
 * and, when the put asks for them, SHA-1, MD5 and CRC-32, of each put it is given, fed by messages
 * of the put's bytes (copies: the main thread writes the same bytes to the store). It acknowledges
 * the bytes it has hashed, so the main thread can hold a put back when it runs ahead (a bounded
 * window per put), and answers the digests when the put's bytes end.
 */
import { parentPort } from 'node:worker_threads';
import { type Digests, type DigestSet, type Hashers, hashers } from './hashers.js';

export type DigestRequest =
  | { id: number; op: 'start'; set: DigestSet }
  | { id: number; op: 'data'; chunks: Uint8Array[] }
  | { id: number; op: 'end' }
  | { id: number; op: 'drop' };

export type DigestReply =
  { id: number; hashed: number } | { id: number; digests: Digests } | { id: number; error: string };

const jobs = new Map<number, Hashers>();

function reply(message: DigestReply): void {
  parentPort!.postMessage(message);
}

parentPort!.on('message', (m: DigestRequest) => {
  try {
    if (m.op === 'start') {
      jobs.set(m.id, hashers(m.set));
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
        job.update(chunk);
        bytes += chunk.length;
      }
      reply({ id: m.id, hashed: bytes });
      return;
    }
    jobs.delete(m.id);
    reply({ id: m.id, digests: job.digest() });
  } catch (error) {
    jobs.delete(m.id);
    reply({ id: m.id, error: (error as Error).message });
  }
});
