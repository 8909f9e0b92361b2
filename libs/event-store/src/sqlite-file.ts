/** The embedded event store's file: private to its owner, in WAL mode, opened while other processes open it too. */
import type { SqliteDatabase } from '@burrow/sqlite';
import { chmodSync, closeSync, openSync } from 'node:fs';

/**
 * The file holds password hashes and personal data: owner-only (0600), set explicitly since the
 * umask filters the mode a file is created with. SQLite gives the -wal and -shm files it creates
 * the main file's mode; ones left by an older version are tightened too.
 */
export function makePrivate(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      chmodSync(path, 0o600);
    } catch {
      // absent, or another user's (multi-process under several users): leave it
    }
  }
}

/**
 * Runs `step` again for up to 5 s while SQLite answers SQLITE_BUSY (or one of its extended codes)
 * at once. When processes open a new file together, some answers do not wait for the busy timeout:
 * switching the journal mode needs an exclusive lock, and a write that finds its snapshot stale
 * (another process created the tables meanwhile) gets SQLITE_BUSY_SNAPSHOT; both are SQLite's
 * deadlock avoidance, and both succeed when tried again.
 */
export function whileBusy<T>(step: () => T): T {
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      return step();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (!(typeof code === 'string' && code.startsWith('SQLITE_BUSY')) || Date.now() > deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}

/** Puts the file in WAL mode (persistent: a file already in it stays so), reading the mode first. */
export function useWal(db: SqliteDatabase): void {
  whileBusy(() => {
    if (db.pragma('journal_mode') !== 'wal') db.pragma('journal_mode = WAL');
  });
}
