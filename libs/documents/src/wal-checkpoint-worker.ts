/**
 * The thread the read models' WAL checkpoints run on (wal-checkpoints.ts): one connection of its
 * own per database file, opened at the file's first checkpoint, and `PRAGMA wal_checkpoint(PASSIVE)`
 * on it when asked: the pages the log holds are copied into the database file (and, at
 * `synchronous = NORMAL`, both files fsynced) here, not in a commit on the main thread.
 */
import { type SqliteDatabase, type SqliteDriverName, sqliteDriverNamed } from '@burrow/sqlite';
import { parentPort } from 'node:worker_threads';

export type CheckpointRequest =
  { id: number; op: 'checkpoint'; file: string; driver: SqliteDriverName } | { id: number; op: 'close'; file: string };

/** `log`: frames in the WAL; `checkpointed`: those now in the database file (SQLite's two counts) */
export type CheckpointReply = { id: number; log: number; checkpointed: number } | { id: number; error: string };

const connections = new Map<string, SqliteDatabase>();

function checkpoint(file: string, driver: SqliteDriverName): { log: number; checkpointed: number } {
  let db = connections.get(file);
  if (!db) {
    db = sqliteDriverNamed(driver).open(file, { busyTimeoutMs: 1000 });
    connections.set(file, db);
  }
  const row = db.prepare<{ log: number; checkpointed: number }>('PRAGMA wal_checkpoint(PASSIVE)').get();
  return { log: row?.log ?? 0, checkpointed: row?.checkpointed ?? 0 };
}

parentPort!.on('message', (m: CheckpointRequest) => {
  let reply: CheckpointReply;
  try {
    if (m.op === 'checkpoint') reply = { id: m.id, ...checkpoint(m.file, m.driver) };
    else {
      connections.get(m.file)?.close();
      connections.delete(m.file);
      reply = { id: m.id, log: 0, checkpointed: 0 };
    }
  } catch (error) {
    reply = { id: m.id, error: (error as Error).message };
  }
  parentPort!.postMessage(reply);
});
