/**
 * Backs a local folder up into one device of a user, through the gateway's storage write API
 * (the path every backup client takes): the local tree is walked lazily (`fs.opendir`, one
 * folder at a time), each folder's listing is read once, and a file whose size and mtime match
 * the stored one is left alone, so a re-run uploads only what changed. A few uploads run at once.
 *
 * Symlinks and special files are skipped and counted; an unreadable file or folder, or a name the
 * storage refuses (400), is reported and the import goes on. Credentials refused (401), access
 * refused (403) or a full quota (507) stop it: every later upload would be refused the same way.
 */
import { opendir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Progress } from './progress.js';
import { type RemoteFile, type StorageClient, StorageError } from './storage-client.js';

/** Statuses after which no further upload can succeed. */
const FATAL_STATUSES = new Set([401, 403, 507]);
/** The summary lists at most this many failed and skipped paths (the counts are exact). */
const MAX_LISTED = 1000;

export interface ImportSummary {
  device: string;
  files: { uploaded: number; unchanged: number; skipped: number; failed: number };
  bytes_uploaded: number;
  seconds: number;
  mb_per_second: number;
  /** what could not be uploaded, and why */
  failures: { path: string; reason: string }[];
  /** symlinks and special files, not followed */
  skipped: { path: string; reason: string }[];
  /** present when the import stopped early */
  aborted?: string;
}

interface Job {
  /** the path within the device, one segment a name */
  path: string[];
  local: string;
  remote: RemoteFile | undefined;
}

/** Stops the import: the gateway will refuse every upload. */
class Abort extends Error {}

export async function importFolder(
  root: string,
  client: StorageClient,
  progress: Progress,
  concurrency = 4,
): Promise<ImportSummary> {
  const started = process.hrtime.bigint();
  const summary: ImportSummary = {
    device: client.device,
    files: { uploaded: 0, unchanged: 0, skipped: 0, failed: 0 },
    bytes_uploaded: 0,
    seconds: 0,
    mb_per_second: 0,
    failures: [],
    skipped: [],
  };
  const fail = (path: string[], reason: string) => {
    summary.files.failed += 1;
    if (summary.failures.length < MAX_LISTED) summary.failures.push({ path: path.join('/'), reason });
    progress.log(`failed: ${path.join('/')}: ${reason}`);
  };
  const skip = (path: string[], reason: string) => {
    summary.files.skipped += 1;
    if (summary.skipped.length < MAX_LISTED) summary.skipped.push({ path: path.join('/'), reason });
  };
  let aborted: string | undefined;

  /** Every file to look at, a folder at a time; subfolders after the folder's own files. */
  async function* walk(local: string, folder: string[]): AsyncGenerator<Job> {
    let remote: Map<string, RemoteFile>;
    let dir;
    try {
      dir = await opendir(local);
    } catch (error) {
      fail(folder, `cannot read the folder: ${(error as Error).message}`);
      return;
    }
    const subfolders: string[] = [];
    try {
      try {
        remote = await client.listFolder(folder);
      } catch (error) {
        if (!(error instanceof StorageError) || FATAL_STATUSES.has(error.status)) throw error;
        fail(folder, `cannot list the stored folder: ${error.message}`);
        return;
      }
      for await (const entry of dir) {
        if (aborted) return;
        const path = [...folder, entry.name];
        if (entry.isSymbolicLink()) skip(path, 'symlink');
        else if (entry.isDirectory()) subfolders.push(entry.name);
        else if (entry.isFile()) yield { path, local: join(local, entry.name), remote: remote.get(entry.name) };
        else skip(path, 'not a regular file');
      }
    } finally {
      // closes the handle when the loop was left early; already closed after a full iteration
      await dir.close().catch(() => undefined);
    }
    for (const name of subfolders) yield* walk(join(local, name), [...folder, name]);
  }

  async function handle(job: Job): Promise<void> {
    let info;
    try {
      info = await stat(job.local);
    } catch (error) {
      return fail(job.path, `cannot read: ${(error as Error).message}`);
    }
    const mtime = Math.floor(info.mtimeMs / 1000);
    progress.found(info.size);
    if (job.remote && job.remote.size === info.size && job.remote.mtime === mtime) {
      summary.files.unchanged += 1;
      progress.done(info.size, false);
      return;
    }
    let sent = 0;
    try {
      await client.putFile(job.path, {
        file: job.local,
        size: info.size,
        mtime,
        ctime: Math.floor(info.ctimeMs / 1000),
        onBytes: (n) => {
          sent += n;
          progress.sent(n);
        },
      });
      summary.files.uploaded += 1;
      summary.bytes_uploaded += info.size;
      progress.done(info.size - sent, true);
    } catch (error) {
      progress.done(info.size - sent, false);
      if (error instanceof StorageError && FATAL_STATUSES.has(error.status)) throw new Abort(error.message);
      if (error instanceof StorageError && error.status === 400)
        return fail(job.path, `refused by the storage: ${error.message}`);
      return fail(job.path, error instanceof StorageError ? error.message : `cannot read: ${(error as Error).message}`);
    }
  }

  const jobs = walk(root, []);
  // an async generator queues concurrent next() calls: the workers share one walk
  const worker = async () => {
    while (!aborted) {
      try {
        const next = await jobs.next();
        if (next.done) return;
        await handle(next.value);
      } catch (error) {
        // refused credentials or quota, from an upload or a listing: every later request would be too
        if (!(error instanceof Abort || error instanceof StorageError)) throw error;
        aborted ??= error.message;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    await jobs.return(undefined).catch(() => undefined);
    progress.stop();
  }
  if (aborted) summary.aborted = aborted;
  summary.seconds = Number(process.hrtime.bigint() - started) / 1e9;
  summary.mb_per_second =
    summary.seconds > 0 ? Math.round((summary.bytes_uploaded / 1e6 / summary.seconds) * 100) / 100 : 0;
  summary.seconds = Math.round(summary.seconds * 1000) / 1000;
  return summary;
}
