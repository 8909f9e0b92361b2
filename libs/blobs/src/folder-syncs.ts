/** Group commit of folder fsyncs for the local blob store (local.ts). */
import { open } from 'node:fs/promises';

/** Flushes a file's bytes, or a folder's entries (a rename into it), to disk. */
async function sync(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Group commit of folder syncs, per folder. `sync(folder)` resolves after an fsync of the folder
 * that started after the call: the one running when it is called may have started before the
 * caller's rename, so the caller waits for the next, which every caller arriving meanwhile shares.
 */
export class FolderSyncs {
  private readonly folders = new Map<string, { running: Promise<void>; next: Promise<void> | null }>();
  /** fsyncs started (for tests: concurrent callers share them) */
  started = 0;

  constructor(private readonly fsync: (path: string) => Promise<void> = sync) {}

  sync(path: string): Promise<void> {
    const folder = this.folders.get(path);
    if (!folder) return this.start(path);
    // after the running one, whatever its outcome; shared by everyone who arrives until it starts
    folder.next ??= folder.running.then(
      () => this.start(path),
      () => this.start(path),
    );
    return folder.next;
  }

  private start(path: string): Promise<void> {
    this.started += 1;
    const running = this.fsync(path);
    const folder = this.folders.get(path);
    if (folder) {
      folder.running = running;
      folder.next = null;
    } else {
      this.folders.set(path, { running, next: null });
    }
    const settled = () => {
      const now = this.folders.get(path);
      if (now && now.running === running && now.next === null) this.folders.delete(path);
    };
    running.then(settled, settled);
    return running;
  }
}
