/**
 * A full disk (issue 17, defect 4). Two parts:
 *
 * - `isDiskFull(error)`: the errors that mean "no room to write" whatever store raised them (a
 *   blob's temporary file: ENOSPC or EDQUOT; SQLite: SQLITE_FULL; PostgreSQL: SQLSTATE 53100;
 *   MongoDB: OutOfDiskSpace), so the gateway and the services answer 507 Insufficient Storage with
 *   a reason instead of a 500. Every store involved writes atomically (a blob's temporary file is
 *   removed, an event append is one transaction), so nothing is left half-written, and the next
 *   write after space is freed simply succeeds.
 * - `DiskSpace`: the free space of the data directory (fs.statfs), against a threshold
 *   (`BURROW_MIN_FREE_DISK_MB`; by default the smaller of 512 MiB and 2% of the file system).
 *   Below it `/readyz` reports the disk as low and uploads are refused with 507 before a byte is
 *   stored, so that small writes (device logins, user creates, the events of commits under way)
 *   still find room in the event log.
 */
import { insufficientStorage } from '@burrow/contracts';
import { statfs } from 'node:fs/promises';

const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100', 'OutOfDiskSpace']);
const MONGO_OUT_OF_DISK = 14031;

/** An error (or its cause) that says the disk holding a store is full. */
export function isDiskFull(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 3) return false;
  const { code, codeName } = error as { code?: unknown; codeName?: unknown };
  if ((typeof code === 'string' && FULL_CODES.has(code)) || code === MONGO_OUT_OF_DISK || codeName === 'OutOfDiskSpace')
    return true;
  return isDiskFull((error as { cause?: unknown }).cause, depth + 1);
}

/** The 507 a write that found the disk full answers. */
export const diskFull = () =>
  insufficientStorage('the server has no disk space left: nothing was stored; retry once space is freed');

/** The 507 an upload refused up front answers (free space below the threshold). */
export const diskLow = () =>
  insufficientStorage('the server is low on disk space: uploads are refused until space is freed');

export const MiB = 1024 * 1024;
/** the default threshold: the smaller of these two */
export const DEFAULT_MIN_FREE_BYTES = 512 * MiB;
export const DEFAULT_MIN_FREE_FRACTION = 0.02;

export interface DiskReport {
  /** bytes an unprivileged writer may still use */
  freeBytes: number;
  totalBytes: number;
  /** the threshold for this file system */
  minFreeBytes: number;
  low: boolean;
}

export class DiskSpace {
  /**
   * @param dir the folder whose file system holds local state (null: none, e.g. MinIO and a
   *   database server: nothing to check here)
   * @param minFreeMb the threshold in MiB (0: never low; undefined: the default rule)
   */
  constructor(
    readonly dir: string | null,
    readonly minFreeMb?: number,
  ) {}

  /**
   * The data directory's free space; null when there is nothing local to check. Callers arriving
   * while a `statfs` is under way share it (concurrent uploads each made one of their own): its
   * answer is at most one `statfs` older than their request, and no read of it is cached longer.
   */
  report(): Promise<DiskReport | null> {
    if (this.dir === null || this.minFreeMb === 0) return Promise.resolve(null);
    if (!this.inFlight) {
      this.inFlight = this.measure(this.dir);
      const clear = () => (this.inFlight = null);
      this.inFlight.then(clear, clear);
    }
    return this.inFlight;
  }
  private inFlight: Promise<DiskReport> | null = null;

  private async measure(dir: string): Promise<DiskReport> {
    const s = await statfs(dir);
    const freeBytes = Number(s.bavail) * Number(s.bsize);
    const totalBytes = Number(s.blocks) * Number(s.bsize);
    const minFreeBytes =
      this.minFreeMb !== undefined
        ? this.minFreeMb * MiB
        : Math.min(DEFAULT_MIN_FREE_BYTES, Math.floor(totalBytes * DEFAULT_MIN_FREE_FRACTION));
    return { freeBytes, totalBytes, minFreeBytes, low: freeBytes < minFreeBytes };
  }

  /** `ok`, or what /readyz shows: how much is free against the threshold. */
  async describe(): Promise<string> {
    const r = await this.report();
    if (!r || !r.low) return 'ok';
    return `low disk space: ${mib(r.freeBytes)} MiB free in ${this.dir}, below ${mib(r.minFreeBytes)} MiB (BURROW_MIN_FREE_DISK_MB); uploads are refused`;
  }

  /** Throws the 507 of a low disk; resolves when there is room (or nothing to check). */
  async ensureRoom(): Promise<void> {
    if ((await this.report())?.low) throw diskLow();
  }
}

const mib = (bytes: number) => (bytes / MiB).toFixed(1);
