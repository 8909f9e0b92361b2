/**
 * The thread a small put's file work runs on (see `SmallPuts` in small-puts.ts): a message is one
 * whole put, done with synchronous calls, so the main thread hands over one message and gets one
 * back instead of a dozen thread-pool jobs (open, write, fsync, close, rename, and the folder's
 * open, fsync, close), each of which costs the event loop a dispatch and a callback.
 *
 * The durability is the put's (local.ts): new content is written under its name and fsynced, and
 * the folder holding the name is fsynced after (issue 37: no temporary file and rename when the
 * content is new); content found stored is verified before it is trusted; a folder the put had to
 * make is fsynced in its parent (each folder made, in its own parent). The reply comes after all
 * of that.
 */
import {
  closeSync,
  fstatSync,
  fsyncSync,
  futimesSync,
  linkSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { parentPort } from 'node:worker_threads';

export interface SmallPutRequest {
  id: number;
  /** the temporary file to write (its name carries the main thread's process and token) */
  tmp: string;
  target: string;
  chunks: Uint8Array[];
  fileMode: number;
  dirMode: number;
}

export interface SmallPutReply {
  id: number;
  /** how it went (absent: it failed) */
  outcome?: SmallPutOutcome;
  /** set when the put failed (nothing is left of it: the temporary file is removed) */
  error?: { message: string; code?: string };
}

function syncFolder(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function writeAll(fd: number, chunk: Uint8Array): void {
  for (let done = 0; done < chunk.length;) done += writeSync(fd, chunk, done, chunk.length - done);
}

/** How a put went: new content written under its name, content found stored and whole, or a damaged copy replaced. */
export type SmallPutOutcome = 'new' | 'verified' | 'healed';

/** Opens `target` for a new file (`wx`: only if the name is free), making its folder if missing; null when the name is taken. */
function createNew(target: string, req: SmallPutRequest, made: { first?: string }): number | null {
  for (let attempt = 0; ; attempt++) {
    try {
      return openSync(target, 'wx', req.fileMode);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return null;
      if (code !== 'ENOENT' || attempt > 0) throw error;
      made.first = mkdirSync(dirname(target), { recursive: true, mode: req.dirMode }) ?? made.first;
    }
  }
}

/** Whether the stored file holds exactly `data`, read through `fd`. */
function holds(fd: number, data: Uint8Array[]): boolean {
  const size = data.reduce((n, c) => n + c.length, 0);
  if (fstatSync(fd).size !== size) return false;
  const stored = Buffer.allocUnsafe(size);
  for (let done = 0; done < size;) {
    const n = readSync(fd, stored, done, size - done, done);
    if (n === 0) return false;
    done += n;
  }
  return stored.equals(Buffer.concat(data));
}

/**
 * New content (the name is free) is written under its final name: fsynced, then its folder
 * fsynced; no temporary file, no rename. Content already under the name is read back and
 * compared before it is trusted (a crash while it was written leaves a torn file under the final
 * name, never acknowledged): whole, its time is refreshed (the reaper reads it) and it and its
 * folder are fsynced (another put may have written it a moment ago, not yet durably); not whole,
 * or still being written by a concurrent put, it is replaced the old way (a temporary file,
 * fsynced, renamed over it). Either way a folder the put made is fsynced in its parent.
 */
export function putDurably(req: SmallPutRequest): SmallPutOutcome {
  const folder = dirname(req.target);
  const made: { first?: string } = {};
  let outcome: SmallPutOutcome;
  const fd = createNew(req.target, req, made);
  if (fd !== null) {
    let failed: Error | undefined;
    try {
      for (const chunk of req.chunks) writeAll(fd, chunk);
      fsyncSync(fd);
    } catch (error) {
      failed = error as Error;
    }
    const { ino } = fstatSync(fd);
    closeSync(fd);
    if (failed !== undefined) {
      // a part written (the disk full): not left under the name
      removeOwn(req, ino);
      throw failed;
    }
    outcome = 'new';
  } else {
    outcome = verifyStored(req) ? 'verified' : 'healed';
    if (outcome === 'healed') replace(req, made);
  }
  syncFolder(folder);
  // the folders this put made are names in their parents
  if (made.first !== undefined)
    for (let child = folder; child.length >= made.first.length; child = dirname(child)) syncFolder(dirname(child));
  return outcome;
}

/**
 * Takes the put's own file (inode `ino`) off the name: moved aside first, so that a file another
 * put renamed over it meanwhile (a whole copy) is put back rather than removed.
 */
function removeOwn(req: SmallPutRequest, ino: number): void {
  try {
    renameSync(req.target, req.tmp);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (statSync(req.tmp).ino !== ino) {
    try {
      linkSync(req.tmp, req.target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  rmSync(req.tmp, { force: true });
}

/** The stored copy holds the put's bytes: its time refreshed and fsynced. False when it does not (or is gone). */
function verifyStored(req: SmallPutRequest): boolean {
  let fd: number;
  try {
    fd = openSync(req.target, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false; // reaped meanwhile: written again
    throw error;
  }
  try {
    if (!holds(fd, req.chunks)) return false;
    const now = new Date();
    futimesSync(fd, now, now);
    fsyncSync(fd);
    return true;
  } finally {
    closeSync(fd);
  }
}

/** The old way: a temporary file, fsynced, renamed over the name (atomic; readers of the old file go on). */
function replace(req: SmallPutRequest, made: { first?: string }): void {
  try {
    const fd = openSync(req.tmp, 'wx', req.fileMode);
    try {
      for (const chunk of req.chunks) writeAll(fd, chunk);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      renameSync(req.tmp, req.target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      made.first = mkdirSync(dirname(req.target), { recursive: true, mode: req.dirMode }) ?? made.first;
      renameSync(req.tmp, req.target);
    }
  } catch (error) {
    rmSync(req.tmp, { force: true });
    throw error;
  }
}

parentPort?.on('message', (req: SmallPutRequest) => {
  let reply: SmallPutReply;
  try {
    reply = { id: req.id, outcome: putDurably(req) };
  } catch (error) {
    const { message, code } = error as NodeJS.ErrnoException;
    reply = { id: req.id, error: { message: String(message), ...(code ? { code } : {}) } };
  }
  parentPort!.postMessage(reply);
});
