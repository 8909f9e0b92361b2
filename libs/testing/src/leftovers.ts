/**
 * What a service's test contexts leave open or on disk, so a test that failed half way does not
 * leak: each harness registers its temp dirs and open contexts here and cleans up in `after`.
 */
import { rm } from 'node:fs/promises';

/** A test context that can be closed, keeping its files (a restart opens them again). */
export interface ClosableContext {
  close(options?: { keepFiles?: boolean }): Promise<void>;
}

export class TestLeftovers<T extends ClosableContext> {
  private readonly open = new Set<T>();
  private readonly dirs = new Set<string>();

  /** a context's temp dir exists (removed by `removeDir` or `cleanUp`) */
  addDir(dir: string): void {
    this.dirs.add(dir);
  }

  opened(context: T): void {
    this.open.add(context);
  }

  closed(context: T): void {
    this.open.delete(context);
  }

  async removeDir(dir: string): Promise<void> {
    await rm(dir, { recursive: true, force: true });
    this.dirs.delete(dir);
  }

  /** Closes every context still open and removes every temp dir left (after a failed test). */
  async cleanUp(): Promise<void> {
    for (const context of [...this.open]) await context.close({ keepFiles: true });
    for (const dir of [...this.dirs]) await this.removeDir(dir);
  }
}
