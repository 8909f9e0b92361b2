import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, open, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { LocalBlobStore } from './local.js';
import { type BlobFingerprint, BlobNotFoundError, type BlobReader, type ByteRange } from './port.js';
import { CorruptBlobError, verifyingReader } from './verify.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A store whose bytes and fingerprints the test sets: bytes can go bad under an unchanged fingerprint (decay of the medium). */
function fakeStore() {
  const bytes = new Map<string, Buffer>();
  const prints = new Map<string, BlobFingerprint>();
  let reads = 0;
  const reader: BlobReader = {
    async get(key: string, range?: ByteRange) {
      reads += 1;
      const all = bytes.get(key)!;
      return Readable.from([range ? all.subarray(range.start, range.end + 1) : all]);
    },
    async stat(key: string) {
      return bytes.has(key) ? { key, size: bytes.get(key)!.length } : null;
    },
    async exists(key: string) {
      return bytes.has(key);
    },
    async ping() {},
    async fingerprint(key: string) {
      return prints.get(key) ?? null;
    },
  };
  return { reader, bytes, prints, reads: () => reads };
}

function fixture(options: { reverifyAfterMs?: number; remember?: number } = {}) {
  const store = fakeStore();
  let clock = 100_000;
  const corrupt: string[] = [];
  const blobs = verifyingReader(store.reader, (error) => corrupt.push(error.key), { ...options, now: () => clock });
  const add = (text: string, id = `id-${text}`) => {
    const content = Buffer.from(text);
    const key = sha256(content);
    store.bytes.set(key, content);
    store.prints.set(key, { id, changedMs: 0 });
    return key;
  };
  const damage = (key: string) => {
    const bad = Buffer.from(store.bytes.get(key)!);
    bad[0] ^= 0xff;
    store.bytes.set(key, bad);
  };
  return { store, blobs, corrupt, add, damage, advance: (ms: number) => (clock += ms) };
}

async function read(blobs: BlobReader, key: string): Promise<Buffer> {
  return readAll(await blobs.get(key));
}

describe('verifyingReader', () => {
  it('checks every whole read when not told to remember (the default): bad bytes are an error, never a whole body', async () => {
    const f = fixture();
    const key = f.add('hello, blobs');
    assert.equal((await read(f.blobs, key)).toString(), 'hello, blobs');
    f.damage(key);
    await assert.rejects(
      read(f.blobs, key),
      (error: unknown) => error instanceof CorruptBlobError && error.key === key,
    );
    assert.deepEqual(f.corrupt, [key]);
  });

  it('ranged reads pass unchecked (a part cannot be checked against the whole)', async () => {
    const f = fixture();
    const key = f.add('0123456789');
    f.damage(key);
    assert.equal((await readAll(await f.blobs.get(key, { start: 2, end: 4 }))).toString(), '234');
    assert.deepEqual(f.corrupt, []);
  });

  it('remembers a blob that read back right while its fingerprint stands and for reverifyAfterMs; then checks it again', async () => {
    const f = fixture({ reverifyAfterMs: 60_000 });
    const key = f.add('remembered');
    await read(f.blobs, key);
    // decay under an unchanged file: what the window lets through, until the next check
    f.damage(key);
    assert.notEqual((await read(f.blobs, key)).toString(), 'remembered', 'the second read was not hashed');
    f.advance(60_000);
    await assert.rejects(read(f.blobs, key), CorruptBlobError);
    assert.deepEqual(f.corrupt, [key]);
  });

  it('a changed fingerprint (anything wrote the file) is checked again at once', async () => {
    const f = fixture({ reverifyAfterMs: 60_000 });
    const key = f.add('rewritten');
    await read(f.blobs, key);
    f.damage(key);
    f.store.prints.set(key, { id: 'written since', changedMs: 50_000 });
    await assert.rejects(read(f.blobs, key), CorruptBlobError);
  });

  it('a check of bytes that changed less than a second before is not remembered (file times move in coarse ticks)', async () => {
    const f = fixture({ reverifyAfterMs: 60_000 });
    const key = f.add('fresh');
    f.store.prints.set(key, { id: 'fresh', changedMs: 100_000 - 500 });
    await read(f.blobs, key);
    f.damage(key);
    await assert.rejects(read(f.blobs, key), CorruptBlobError);
  });

  it('remembers at most `remember` blobs: the longest remembered is forgotten first', async () => {
    const f = fixture({ reverifyAfterMs: 60_000, remember: 2 });
    const [a, b, c] = [f.add('a'), f.add('b'), f.add('c')];
    for (const key of [a, b, c]) await read(f.blobs, key);
    f.damage(a);
    f.damage(c);
    await assert.rejects(read(f.blobs, a), CorruptBlobError, 'a was forgotten: checked again');
    assert.notEqual((await read(f.blobs, c)).toString(), 'c', 'c is still remembered');
  });

  it("getChecked: a whole read left to the caller to check, known while a hash check or the caller's passed check stands", async () => {
    const f = fixture({ reverifyAfterMs: 60_000 });
    const key = f.add('checked by the caller');
    const first = await f.blobs.getChecked(key);
    assert.equal(first.known, false, 'never read back before');
    assert.equal((await readAll(first.stream)).toString(), 'checked by the caller');
    assert.equal((await f.blobs.getChecked(key)).known, false, 'a read alone proves nothing');
    first.passed();
    assert.equal((await f.blobs.getChecked(key)).known, true, "the caller's check is remembered for its reads");
    // the caller's check does not stand in for the hash a download is checked against
    f.damage(key);
    await assert.rejects(read(f.blobs, key), CorruptBlobError);
    // a written file (changed fingerprint) is not known; nor after reverifyAfterMs
    const other = f.add('hashed by a download');
    await read(f.blobs, other);
    assert.equal((await f.blobs.getChecked(other)).known, true, 'a hash check counts');
    f.store.prints.set(other, { id: 'written since', changedMs: 50_000 });
    assert.equal((await f.blobs.getChecked(other)).known, false);
    const late = f.add('late');
    (await f.blobs.getChecked(late)).passed();
    f.advance(60_000);
    assert.equal((await f.blobs.getChecked(late)).known, false);
  });

  it('getChecked without remembering (reverifyAfterMs 0) or without fingerprints: never known', async () => {
    const f = fixture();
    const key = f.add('plain');
    (await f.blobs.getChecked(key)).passed();
    assert.equal((await f.blobs.getChecked(key)).known, false);
    const g = fixture({ reverifyAfterMs: 60_000 });
    const unprinted = g.add('no print');
    g.store.prints.delete(unprinted);
    (await g.blobs.getChecked(unprinted)).passed();
    assert.equal((await g.blobs.getChecked(unprinted)).known, false);
  });

  it('with no fingerprint (a store that has none, or a blob gone) every read is checked', async () => {
    const f = fixture({ reverifyAfterMs: 60_000 });
    const key = f.add('no print');
    f.store.prints.delete(key);
    await read(f.blobs, key);
    f.damage(key);
    await assert.rejects(read(f.blobs, key), CorruptBlobError);
  });
});

describe('verifyingReader over LocalBlobStore (real files)', () => {
  it('a remembered blob damaged in place is caught on its next read, even with its modification time put back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-verify-'));
    try {
      const store = new LocalBlobStore(dir);
      const content = Buffer.alloc(256 * 1024, 7);
      const { key } = await store.put(Readable.from([content]));
      // a clock well past the put, so the first check is remembered
      const blobs = verifyingReader(store, () => undefined, {
        reverifyAfterMs: 3_600_000,
        now: () => Date.now() + 10_000,
      });
      assert.deepEqual(await read(blobs, key), content);
      assert.deepEqual(await read(blobs, key), content);
      // file times move in ticks of a few ms: let one pass so the damage lands in another
      await new Promise((resolve) => setTimeout(resolve, 20));
      const path = join(dir, key.slice(0, 2), key.slice(2, 4), key);
      const before = await stat(path);
      const handle = await open(path, 'r+');
      await handle.write(Buffer.from([8, 8]), 0, 2, 1000);
      await handle.close();
      await utimes(path, before.atime, before.mtime);
      await assert.rejects(read(blobs, key), CorruptBlobError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the fingerprint names the file: a put renamed over it gives another', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-verify-'));
    try {
      const store = new LocalBlobStore(dir);
      const { key } = await store.put(Readable.from([Buffer.from('same bytes')]));
      const first = await store.fingerprint(key);
      assert.ok(first);
      assert.deepEqual(await store.fingerprint(key), first, 'stable while nothing writes');
      await store.put(Readable.from([Buffer.from('same bytes')]));
      assert.notEqual((await store.fingerprint(key))?.id, first.id);
      assert.equal(await store.fingerprint('0'.repeat(64)), null);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a small read in one go: the bytes, a range of them, null for bytes that do not hash to the key or a blob shorter than asked, missing as missing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-verify-'));
    try {
      const store = new LocalBlobStore(dir);
      const content = Buffer.from('small bytes, read in one go');
      const { key } = await store.put(Readable.from([content]));
      const corrupt: string[] = [];
      const blobs = verifyingReader(store, (error) => corrupt.push(error.key));
      assert.deepEqual(await blobs.readSmall(key, content.length), content);
      assert.deepEqual(await blobs.readSmall(key, 5, { start: 6, end: 10 }), content.subarray(6, 11));
      assert.equal(await blobs.readSmall(key, content.length + 1), null, 'the blob is shorter than the catalog says');
      await assert.rejects(blobs.readSmall('0'.repeat(64), 4), BlobNotFoundError);
      const path = join(dir, key.slice(0, 2), key.slice(2, 4), key);
      const handle = await open(path, 'r+');
      await handle.write(Buffer.from([8]), 0, 1, 0);
      await handle.close();
      assert.equal(await blobs.readSmall(key, content.length), null, 'damaged bytes are never handed out whole');
      // the stream the caller falls back to fails, and says so
      await assert.rejects(read(blobs, key), CorruptBlobError);
      assert.deepEqual(corrupt, [key]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
