/**
 * The data directory holds password hashes and personal data (the SQLite event store), the
 * signing key and stored files, so it is private to the user Burrow runs as: created 0700, and an
 * existing one tightened to 0700 at start. chmod after mkdir, because mkdir's mode is filtered by
 * the umask. The files inside are created owner-only by whoever writes them.
 */
import { chmodSync, mkdirSync } from 'node:fs';

export const DATA_DIR_MODE = 0o700;

/** Creates or tightens `dir`; returns a warning when its mode cannot be set (another owner). */
export function preparePrivateDataDir(dir: string): string | null {
  mkdirSync(dir, { recursive: true, mode: DATA_DIR_MODE });
  try {
    chmodSync(dir, DATA_DIR_MODE);
    return null;
  } catch (error) {
    return `cannot make the data directory ${dir} private (mode 0700): ${(error as Error).message}`;
  }
}
