/**
 * The thread a small put's file work runs on (see `SmallPuts` in small-puts.ts): a message is one
 * whole put, done with synchronous calls, so the main thread hands over one message and gets one
 * back instead of a dozen thread-pool jobs (open, write, fsync, close, rename, and the folder's
 * open, fsync, close), each of which costs the event loop a dispatch and a callback.
 *
 * The durability is the put's (local.ts): the temporary file is fsynced before it is renamed into
 * place, the folder holding the new name is fsynced after, and a folder the put had to make is
 * fsynced in its parent (each folder made, in its own parent). The reply comes after all of that.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
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
  for (let done = 0; done < chunk.length; ) done += writeSync(fd, chunk, done, chunk.length - done);
}

export function putDurably(req: SmallPutRequest): void {
  try {
    const fd = openSync(req.tmp, 'wx', req.fileMode);
    try {
      for (const chunk of req.chunks) writeAll(fd, chunk);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    const folder = dirname(req.target);
    let first: string | undefined;
    try {
      renameSync(req.tmp, req.target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      first = mkdirSync(folder, { recursive: true, mode: req.dirMode });
      renameSync(req.tmp, req.target);
    }
    syncFolder(folder);
    // the folders this put made are names in their parents
    if (first !== undefined) for (let child = folder; child.length >= first.length; child = dirname(child)) syncFolder(dirname(child));
  } catch (error) {
    rmSync(req.tmp, { force: true });
    throw error;
  }
}

parentPort?.on('message', (req: SmallPutRequest) => {
  let reply: SmallPutReply;
  try {
    putDurably(req);
    reply = { id: req.id };
  } catch (error) {
    const { message, code } = error as NodeJS.ErrnoException;
    reply = { id: req.id, error: { message: String(message), ...(code ? { code } : {}) } };
  }
  parentPort!.postMessage(reply);
});
