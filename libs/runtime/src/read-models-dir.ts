/**
 * The standalone read models: one SQLite file per service under `<dataDir>/read-models/`, and the
 * lock that tells whether a running Burrow uses them.
 *
 * Every process that opens them holds a SHARED lock on `read-models/in-use.lock` (an SQLite file
 * in rollback-journal mode, a read transaction left open) for as long as it runs; several
 * processes can. `admin rebuild-read-models` needs an EXCLUSIVE lock on it, which SQLite refuses
 * at once while any such process runs. The locks are the operating system's (fcntl), so a process
 * that dies, however it dies, holds none.
 */
import { SqliteDocumentStore } from '@burrow/documents';
import { type SqliteDatabase, sqliteDriver } from '@burrow/sqlite';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export const readModelsDir = (dataDir: string) => join(dataDir, 'read-models');
export const readModelsFile = (dataDir: string, service: string) => join(readModelsDir(dataDir), `${service}.sqlite`);
const lockFile = (dataDir: string) => join(readModelsDir(dataDir), 'in-use.lock');

export class ReadModelsInUseError extends Error {
  constructor(readonly dir: string) {
    super(`the read models in ${dir} are in use by a running Burrow (standalone server or service): stop it first`);
    this.name = 'ReadModelsInUseError';
  }
}

function openLock(dataDir: string, timeoutMs: number): SqliteDatabase {
  mkdirSync(readModelsDir(dataDir), { recursive: true, mode: 0o700 });
  closeSync(openSync(lockFile(dataDir), 'a', 0o600));
  const db = sqliteDriver().open(lockFile(dataDir), { busyTimeoutMs: timeoutMs });
  try {
    db.exec('CREATE TABLE IF NOT EXISTS lock (x)');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

const isBusy = (error: unknown) => /^SQLITE_(BUSY|LOCKED)/.test(String((error as { code?: unknown }).code));

/** Marks the read models in use until `release()` (or the process ends). Waits out a rebuild command for a moment. */
export function holdReadModels(dataDir: string): { release(): void } {
  let db: SqliteDatabase | null = null;
  try {
    db = openLock(dataDir, 10_000);
    db.exec('BEGIN');
    db.prepare('SELECT count(*) FROM lock').get();
  } catch (error) {
    db?.close();
    if (isBusy(error))
      throw new Error(
        `the read models in ${readModelsDir(dataDir)} are being dropped (admin rebuild-read-models); start again when it is done`,
        { cause: error },
      );
    throw error;
  }
  const held = db;
  return { release: () => held.open && held.close() };
}

/**
 * Opens a service's read models, replacing a file SQLite cannot read (damaged, or not a database):
 * they are rebuilt from the event store. `onReplaced` hears why.
 */
export function openReadModels(
  dataDir: string,
  service: string,
  onReplaced: (reason: string) => void,
): SqliteDocumentStore {
  const file = readModelsFile(dataDir, service);
  // checkpoints on a worker thread, not in a commit on the main thread (wal-checkpoints.ts)
  const options = { checkpoints: 'worker' } as const;
  try {
    return SqliteDocumentStore.open(file, options);
  } catch (error) {
    const code = String((error as { code?: unknown }).code);
    if (!/^SQLITE_(NOTADB|CORRUPT)/.test(code)) throw error;
    onReplaced(`${code}: ${(error as Error).message}`);
    removeDatabaseFile(file);
    return SqliteDocumentStore.open(file, options);
  }
}

function removeDatabaseFile(file: string): string[] {
  const removed: string[] = [];
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    if (!existsSync(path)) continue;
    rmSync(path, { force: true });
    removed.push(path);
  }
  return removed;
}

/**
 * Deletes every read-model file of the data directory (the server must be stopped: refused with
 * ReadModelsInUseError otherwise), so that the next start rebuilds them from the event store.
 */
export function dropReadModels(dataDir: string): { dir: string; removed: string[] } {
  const dir = readModelsDir(dataDir);
  if (!existsSync(dir)) return { dir, removed: [] };
  const db = openLock(dataDir, 0);
  try {
    try {
      db.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      if (isBusy(error)) throw new ReadModelsInUseError(dir);
      throw error;
    }
    const removed: string[] = [];
    for (const name of readdirSync(dir).sort()) {
      if (name.endsWith('.sqlite')) removed.push(...removeDatabaseFile(join(dir, name)));
    }
    db.exec('COMMIT');
    return { dir, removed };
  } finally {
    db.close();
  }
}
