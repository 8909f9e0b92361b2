/**
 * Embedded BlobStore: a local folder. Blobs live at `<dir>/<k0k1>/<k2k3>/<sha256>`; a put streams
 * into a temporary file while hashing, then renames it into place (atomic on one filesystem), so a
 * failed or partial upload never leaves a blob behind. Stored files may be personal data: folders
 * are created 0700 and files 0600.
 *
 * A put resolves only once the blob is durable: its temporary file is flushed to disk (fsync,
 * through the descriptor it was written with, before it is closed) before it is renamed, and the
 * folder holding the new name is fsynced after, so a blob that was acknowledged (and then
 * committed in a file version) survives a power cut. Folder syncs are shared: an fsync of a folder
 * makes durable every rename into it done before the fsync started, so puts into one folder that
 * arrive while its sync runs all wait for the next one, started as soon as it ends (a group
 * commit, as the event store's WAL syncs). A folder a put had to create is made durable in its
 * parent the same way, in parallel with the blob's own folder sync (both before the put
 * resolves: the order between the two does not matter, only that both are done). Content already
 * stored is written again and renamed over the stored copy (atomic; readers of the old file go on
 * reading it): a copy damaged on disk, same size or not, is healed by the next upload of that
 * content. The new file's time is the put's (the reaper reads it). The folders a put needs are
 * created once per process and remembered: a `mkdir` per put was measurable on small files. The
 * 256 first-level folders are made before the first put (`ensureLayout`), so a put that makes a
 * second-level folder syncs its parent but never the root.
 *
 * A small put (a body that ends within `SMALL_PUT_BYTES`) runs on a worker thread: one message
 * there and one back instead of a dozen thread-pool jobs (small-puts.ts, put-worker.ts); its
 * folder syncs are its own, not grouped. Its key is known before a byte is written, so new
 * content is written under its final name (exclusive create), fsynced, and its folder fsynced: no
 * temporary file and no rename (issue 37). A crash mid-write can then leave a torn file under a
 * blob's name, never acknowledged and never committed; so content found already stored is read
 * back and compared before it is trusted (whole: its time refreshed, it and its folder fsynced;
 * not whole: replaced as above, through a temporary file renamed over it).
 *
 * Temporary files are named after their process (temporary.ts), so a process starting up removes
 * those a killed process left at once (`sweepAbandoned`). A blob whose bytes do not match its key
 * is moved to `quarantine/<key>.<ms>` (`quarantine`), where it stays for the operator.
 */
import { randomUUID } from 'node:crypto';
import { close, createWriteStream, fstat, open as openFile, type Stats } from 'node:fs';
import { link, mkdir, open, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  type BlobFingerprint,
  type BlobInfo,
  type BlobListOptions,
  BlobNotFoundError,
  type BlobPage,
  type BlobStore,
  type ByteRange,
  isBlobKey,
  type PutInfo,
  type PutOptions,
} from './port.js';
import { type DigestSet, digestsOf, StreamDigests, withChecksums } from './digests.js';
import { FolderSyncs } from './folder-syncs.js';
import { readInOneGo } from './small-read.js';
import { FileReadStream } from './read-buffers.js';
import { isMissing, listBlobs, sweepAbandoned, sweepTemporary } from './local-walks.js';
import { SmallPuts } from './small-puts.js';
import { temporaryName } from './temporary.js';
import { sha256Of } from './verify.js';

/** 1 MiB reads: measured ~2x the throughput of the 64 KiB default when streaming to HTTP. */
const READ_HIGH_WATER_MARK = 1024 * 1024;
const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;
/** the first-level shard folders' names */
const SHARDS = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** numbers, not bigints (those cost 5x the call here): the times keep sub-microsecond digits */
const fingerprintOf = (s: Stats): BlobFingerprint => ({
  id: `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`,
  changedMs: s.ctimeMs,
});

/** Puts a file moved aside back under its name, unless a put gave the name a new file meanwhile (then that one stays). */
async function putBack(aside: string, target: string): Promise<void> {
  try {
    await link(aside, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  await unlink(aside);
}

/** Bodies up to this size are put whole on a worker thread (`SmallPuts`); larger ones stream. */
export const SMALL_PUT_BYTES = 128 * 1024;
/** one pool per process, whatever the number of stores */
const smallPuts = new SmallPuts(4);

/** The chunks already read, then the rest of the source. */
async function* rest(head: Buffer[], iterator: AsyncIterator<Buffer | string>): AsyncGenerator<Buffer | string> {
  try {
    yield* head;
    for (let read = await iterator.next(); !read.done; read = await iterator.next()) yield read.value;
  } finally {
    await iterator.return?.();
  }
}

export interface LocalBlobStoreOptions {
  /** small bodies' file work on worker threads (default true; false: every put streams through the thread pool) */
  smallPuts?: boolean;
}

export class LocalBlobStore implements BlobStore {
  private readonly tmpDir: string;
  private readonly quarantineDir: string;
  /**
   * folders known to exist (created by this process or found there): at most 1 + 256 + 65,536;
   * `made` once it exists, `durable` once its name (and those of the folders made with it) is
   * synced in its parent
   */
  private readonly madeDirs = new Map<string, { made: Promise<void>; durable: Promise<void> }>();
  private readonly syncs = new FolderSyncs();

  private readonly smallPuts: boolean;

  constructor(
    private readonly dir: string,
    options: LocalBlobStoreOptions = {},
  ) {
    this.smallPuts = options.smallPuts ?? true;
    this.tmpDir = join(dir, 'tmp');
    this.quarantineDir = join(dir, 'quarantine');
  }

  /**
   * mkdir -p, once per folder and process: `made` resolves once the folder exists, `durable` once
   * the folders it made are synced in their parents (every parent at once). A failed attempt is
   * forgotten so the next put retries.
   */
  private ensureDir(path: string): { made: Promise<void>; durable: Promise<void> } {
    let dir = this.madeDirs.get(path);
    if (!dir) {
      const made = mkdir(path, { recursive: true, mode: PRIVATE_DIR });
      // new folders are names in their parents: flush those too (once, when they are made)
      const durable = made.then(async (first) => {
        if (first === undefined) return;
        const parents: string[] = [];
        for (let child = path; child.length >= first.length; child = dirname(child)) parents.push(dirname(child));
        await Promise.all(parents.map((parent) => this.syncs.sync(parent)));
      });
      dir = { made: made.then(() => undefined), durable };
      this.madeDirs.set(path, dir);
      const forget = () => this.madeDirs.delete(path);
      made.catch(forget);
      durable.catch(forget);
      // awaited by every put through the folder; a failure is theirs to report
      durable.catch(() => undefined);
    }
    return dir;
  }

  /**
   * The temporary folder and the 256 first-level shard folders (`00` to `ff`), made once per
   * process before the first put, and the store's root fsynced once if any of them was new: a put
   * that makes a second-level folder then fsyncs that folder's parent only, never the root (in a
   * young store most puts make one: 65,536 of them). A failure is forgotten: the next put retries.
   */
  private ensureLayout(): Promise<void> {
    this.layout ??= (async () => {
      await this.ensureDurableDir(this.tmpDir);
      const made = await Promise.all(
        SHARDS.map((top) =>
          mkdir(join(this.dir, top), { mode: PRIVATE_DIR }).then(
            () => true,
            (error: NodeJS.ErrnoException) => {
              if (error.code === 'EEXIST') return false;
              throw error;
            },
          ),
        ),
      );
      if (made.some(Boolean)) await this.syncs.sync(this.dir);
    })();
    this.layout.catch(() => (this.layout = null));
    return this.layout;
  }
  private layout: Promise<void> | null = null;

  /** ensureDir when the caller needs the folder to exist and be durable before going on. */
  private async ensureDurableDir(path: string): Promise<void> {
    const { made, durable } = this.ensureDir(path);
    await made;
    await durable;
  }

  private pathOf(key: string): string {
    if (!isBlobKey(key)) throw new BlobNotFoundError(key);
    return join(this.dir, key.slice(0, 2), key.slice(2, 4), key);
  }

  /**
   * Streams `source` into the store (see the header). A body that ends within `SMALL_PUT_BYTES`
   * is read whole and its file work handed to a worker thread in one message (small-puts.ts: the
   * same steps, the same durability); a larger one streams through the thread pool.
   */
  async put(source: Readable, options: PutOptions = {}): Promise<PutInfo> {
    await this.ensureLayout();
    const set: DigestSet = { sha256: true, checksums: options.checksums === true };
    if (!this.smallPuts) return this.putStreaming(source, set);
    const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
    const head: Buffer[] = [];
    let size = 0;
    while (size <= SMALL_PUT_BYTES) {
      // a source that fails (a client gone, a quota passed) fails the put here: nothing was written
      const read = await iterator.next();
      if (read.done) return this.putSmall(head, size, set);
      const chunk = typeof read.value === 'string' ? Buffer.from(read.value) : read.value;
      head.push(chunk);
      size += chunk.length;
    }
    return this.putStreaming(Readable.from(rest(head, iterator), { objectMode: false }), set);
  }

  private async putSmall(chunks: Buffer[], size: number, set: DigestSet): Promise<PutInfo> {
    const digests = digestsOf(chunks, set);
    const key = digests.sha256!;
    const info = withChecksums({ key, size }, digests);
    const target = this.pathOf(key);
    const folder = dirname(target);
    // one buffer of its own (not a slice of a pooled one), moved to the worker without a copy
    const data = Buffer.allocUnsafeSlow(size);
    let at = 0;
    for (const chunk of chunks) at += chunk.copy(data, at);
    const put = (): Promise<void> =>
      smallPuts.run(
        {
          tmp: join(this.tmpDir, temporaryName()),
          target,
          chunks: [data],
          fileMode: PRIVATE_FILE,
          dirMode: PRIVATE_DIR,
        },
        [data.buffer],
      );
    for (let known = this.madeDirs.get(folder); known; known = this.madeDirs.get(folder)) {
      try {
        await known.made;
        await known.durable;
      } catch {
        continue; // that attempt failed and was forgotten: this put makes the folder
      }
      // the folder exists and its name is durable (if it was removed behind the cache's back, the
      // worker makes it again and syncs what it made)
      await put();
      return info;
    }
    // the first put into the folder in this process: others wait for it (it may make the folder,
    // and a put into it must not resolve before the folder's name is durable)
    let settle!: (error?: Error) => void;
    const done = new Promise<void>(
      (resolve, reject) => (settle = (error) => (error === undefined ? resolve() : reject(error))),
    );
    done.catch(() => undefined);
    const entry = { made: done, durable: done };
    this.madeDirs.set(folder, entry);
    try {
      await put();
      settle();
    } catch (error) {
      if (this.madeDirs.get(folder) === entry) this.madeDirs.delete(folder);
      settle(error as Error);
      throw error;
    }
    return info;
  }

  private async putStreaming(source: Readable, set: DigestSet): Promise<PutInfo> {
    const tmp = join(this.tmpDir, temporaryName());
    // hashed on a worker thread once the body is large (digests.ts)
    const digests = new StreamDigests(set);
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        size += chunk.length;
        const behind = digests.update(chunk);
        if (behind) behind.then(() => cb(null, chunk), cb);
        else cb(null, chunk);
      },
    });
    try {
      // flush: the bytes are on disk (fsync before the close) before the name points at them
      // (replacing a stored copy, which is never trusted by its size: it may be damaged)
      await pipeline(source, meter, createWriteStream(tmp, { mode: PRIVATE_FILE, flush: true }));
      const computed = await digests.digest();
      const key = computed.sha256!;
      const target = this.pathOf(key);
      const folder = join(target, '..');
      let dir = this.ensureDir(folder);
      try {
        await dir.made;
        await rename(tmp, target);
      } catch (error) {
        // the folder was removed behind the cache's back (an operator tidying up): make it again
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        this.madeDirs.delete(folder);
        dir = this.ensureDir(folder);
        await dir.made;
        await rename(tmp, target);
      }
      // the new name in its folder, and the folder's own name if this put made it
      await Promise.all([this.syncs.sync(folder), dir.durable]);
      return withChecksums({ key, size }, computed);
    } catch (error) {
      digests.drop();
      await rm(tmp, { force: true });
      throw error;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    return (await this.openRead(key, range)).stream;
  }

  /** `length` bytes in one read (port.ts `readSmall`; small-read.ts); a key that is none reads as missing. */
  readSmall = (key: string, length: number, range?: ByteRange) =>
    readInOneGo(isBlobKey(key) ? this.pathOf(key) : null, key, length, range?.start ?? 0);

  /** A whole read, with the fingerprint of the very file it reads (taken from its open descriptor). */
  async getWithFingerprint(key: string): Promise<{ stream: Readable; fingerprint: BlobFingerprint }> {
    const { stream, stats } = await this.openRead(key);
    return { stream, fingerprint: fingerprintOf(stats) };
  }

  /**
   * Opens the blob and reads its size from the descriptor (two calls to the thread pool, where a
   * stat by name then a stream opening the name took three, and a fourth read to find the end):
   * a download's fixed cost. A whole read stops at the size the file had when opened; a put
   * renames another file over the name, never writes into this one.
   */
  private async openRead(key: string, range?: ByteRange): Promise<{ stream: Readable; stats: Stats }> {
    if (!isBlobKey(key)) throw new BlobNotFoundError(key);
    const fd = await new Promise<number>((resolve, reject) =>
      openFile(this.pathOf(key), 'r', (error, opened) =>
        error
          ? reject(isMissing(error) || error.code === 'ENOTDIR' ? new BlobNotFoundError(key) : error)
          : resolve(opened),
      ),
    );
    let stats: Stats;
    try {
      stats = await new Promise<Stats>((resolve, reject) =>
        fstat(fd, (error, s) => (error ? reject(error) : resolve(s))),
      );
    } catch (error) {
      close(fd, () => undefined);
      throw error;
    }
    const bounds = range
      ? { start: range.start, end: range.end }
      : stats.size > 0
        ? { start: 0, end: stats.size - 1 }
        : {};
    // read into buffers used again (read-buffers.ts): a download's chunks cost no new memory each
    return { stream: new FileReadStream(fd, bounds), stats };
  }

  async stat(key: string): Promise<BlobInfo | null> {
    if (!isBlobKey(key)) return null;
    try {
      const s = await stat(this.pathOf(key));
      return { key, size: s.size };
    } catch {
      return null;
    }
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  /**
   * Any write to the file (even one that puts its modification time back) moves its change time,
   * which no program can set; a put renames a new file over it (another inode).
   */
  async fingerprint(key: string): Promise<BlobFingerprint | null> {
    if (!isBlobKey(key)) return null;
    try {
      return fingerprintOf(await stat(this.pathOf(key)));
    } catch {
      return null;
    }
  }

  async delete(key: string): Promise<void> {
    if (!isBlobKey(key)) return;
    await rm(this.pathOf(key), { force: true });
  }

  /** The blobs in key order, a page at a time (local-walks.ts). */
  async list(options: BlobListOptions = {}): Promise<BlobPage> {
    return listBlobs(this.dir, options);
  }

  /**
   * Moves the blob aside (an atomic rename) before looking at its time: a put that finished before
   * the move shows in the time and the blob is put back; one that finishes after it writes a new
   * file under the name. The blob is missing only between the move and the putting back, in that
   * rare race.
   */
  async deleteIfUnchanged(key: string, cutoffMs: number): Promise<boolean> {
    if (!isBlobKey(key)) return false;
    await this.ensureDurableDir(this.tmpDir);
    const target = this.pathOf(key);
    const aside = join(this.tmpDir, `reap-${key}-${randomUUID()}`);
    try {
      await rename(target, aside);
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
    if ((await stat(aside)).mtimeMs <= cutoffMs) {
      await unlink(aside);
      return true;
    }
    await putBack(aside, target);
    return false;
  }

  async sweepTemporary(cutoffMs: number): Promise<number> {
    return sweepTemporary(this.tmpDir, cutoffMs);
  }

  async sweepAbandoned(): Promise<number> {
    return sweepAbandoned(this.tmpDir);
  }

  /**
   * Hashes the stored file through an open handle, then moves it aside by name; if the name had
   * meanwhile been given a new file (a put healed it), that one is whole and goes back.
   */
  async quarantine(key: string): Promise<boolean> {
    if (!isBlobKey(key)) return false;
    const target = this.pathOf(key);
    let handle;
    try {
      handle = await open(target, 'r');
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
    try {
      const checked = await handle.stat();
      if ((await sha256Of(handle.createReadStream({ autoClose: false, highWaterMark: READ_HIGH_WATER_MARK }))) === key)
        return false;
      await this.ensureDurableDir(this.quarantineDir);
      const aside = join(this.quarantineDir, `${key}.${Date.now()}`);
      try {
        await rename(target, aside);
      } catch (error) {
        if (isMissing(error)) return false; // deleted meanwhile
        throw error;
      }
      if ((await stat(aside)).ino !== checked.ino) {
        await putBack(aside, target);
        return false;
      }
      await this.syncs.sync(this.quarantineDir);
      return true;
    } finally {
      await handle.close();
    }
  }

  async ping(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: PRIVATE_DIR });
  }
}
