/**
 * A SQLite event store in a fresh temp dir, for this library's integration tests (not a test file
 * itself): the real adapter, so optimistic concurrency is the one production relies on.
 */
import { SqliteEventStore } from '@burrow/event-store';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempStore {
  store: SqliteEventStore;
  /** the store's file (another connection to it stands for another process) */
  file: string;
  /** closes the store and removes its directory */
  dispose(): Promise<void>;
}

export async function openTempStore(): Promise<TempStore> {
  const dir = await mkdtemp(join(tmpdir(), 'burrow-es-'));
  const file = join(dir, 'events.sqlite');
  const store = SqliteEventStore.open(file, { pollIntervalMs: 20 });
  return {
    store,
    file,
    async dispose() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
