/** The Bloom filter of (collection, id) keys the committed cache keeps a rebuild's ids in (committed-cache.ts). */

/**
 * A Bloom filter of (collection, id) keys: 2^25 bits (4 MiB), 5 probes. At 3M keys (a rebuild of
 * 1M users' read models) it answers "maybe" for under 1% of the keys never added, at 6M for ~7%;
 * each such answer costs one lookup by id in the store, what every miss cost before.
 */
export class IdFilter {
  private static readonly BITS = 25;
  private static readonly PROBES = 5;
  private readonly words = new Int32Array(1 << (IdFilter.BITS - 5));

  add(collection: string, id: string): void {
    const mask = (1 << IdFilter.BITS) - 1;
    const [first, h2] = hashKey(collection, id);
    for (let i = 0, h1 = first; i < IdFilter.PROBES; i++, h1 = (h1 + h2) | 0) {
      const bit = h1 & mask;
      this.words[bit >>> 5] |= 1 << (bit & 31);
    }
  }

  mayHold(collection: string, id: string): boolean {
    const mask = (1 << IdFilter.BITS) - 1;
    const [first, h2] = hashKey(collection, id);
    for (let i = 0, h1 = first; i < IdFilter.PROBES; i++, h1 = (h1 + h2) | 0) {
      const bit = h1 & mask;
      if ((this.words[bit >>> 5] & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

/** Two 32-bit hashes (FNV-1a and a multiplicative one) of collection, a separator, id: the filter's probes are h1 + i * h2. */
function hashKey(collection: string, id: string): [number, number] {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  for (let i = 0; i < collection.length; i++) {
    const c = collection.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  h1 = Math.imul(h1 ^ 0xffff, 0x01000193);
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  // odd, so the probes step through distinct bits
  return [h1, h2 | 1];
}
