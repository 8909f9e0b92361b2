/**
 * The read models' WAL checkpoints on a worker thread (wal-checkpoints.ts): the commits no longer
 * checkpoint at SQLite's 1,000 pages, the worker does shortly after them, everything committed
 * stays readable, and the store's close is still the file's last (the log is removed).
 */
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SqliteDocumentStore } from './sqlite.js';
import { CHECKPOINT_DELAY_MS } from './wal-checkpoints.js';

const PAGE = 4096;
/** ~`batches` x 50 pages of documents, committed back to back (no turn of the event loop: no timer fires) */
async function commitPages(store: SqliteDocumentStore, batches: number, from = 0): Promise<number> {
  let version = from;
  for (let b = 0; b < batches; b++) {
    const writes = Array.from({ length: 50 }, (_, i) => ({
      kind: 'put' as const,
      collection: 'pages',
      doc: { _id: `${version}-${i}`, text: 'x'.repeat(3000) },
    }));
    const result = await store.commit('test', version, {}, writes);
    assert.ok(result.committed);
    version += 1;
  }
  return version;
}

async function withFile(body: (file: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'burrow-wal-'));
  try {
    await body(join(dir, 'read-models.sqlite'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const walPages = (file: string) => statSync(`${file}-wal`).size / PAGE;

describe('read models: WAL checkpoints on a worker thread', () => {
  it('a burst of commits leaves the log to the worker; its checkpoint copies all of it; nothing is lost', () =>
    withFile(async (file) => {
      const store = SqliteDocumentStore.open(file, { checkpoints: 'worker' });
      const checkpoints = store.walCheckpoints!;
      const versions = await commitPages(store, 40); // ~2,000 pages
      assert.equal(checkpoints.runs, 0, 'no checkpoint yet: the burst gave no timer a turn');
      assert.ok(walPages(file) > 1800, `the commits did not checkpoint at 1,000 pages (log: ${walPages(file)} pages)`);
      const outcome = await checkpoints.checkpoint();
      assert.ok(outcome.log > 1800, JSON.stringify(outcome));
      assert.equal(outcome.checkpointed, outcome.log, 'every frame copied (no reader held an older page)');
      await store.close();
      assert.equal(existsSync(`${file}-wal`), false, "the store's close was the last: the log is gone");

      const reopened = SqliteDocumentStore.open(file, { checkpoints: 'worker' });
      try {
        assert.equal(await reopened.collection('pages').count({}), versions * 50);
      } finally {
        await reopened.close();
      }
    }));

  it('a commit is followed by a checkpoint within the delay, and the log is used again from its start', () =>
    withFile(async (file) => {
      const store = SqliteDocumentStore.open(file, { checkpoints: 'worker' });
      const checkpoints = store.walCheckpoints!;
      try {
        let version = await commitPages(store, 4);
        const started = Date.now();
        while (checkpoints.runs === 0) {
          assert.ok(Date.now() - started < 10 * CHECKPOINT_DELAY_MS + 5000, 'no checkpoint followed the commits');
          await new Promise((resolve) => setImmediate(resolve));
        }
        assert.equal(checkpoints.last!.checkpointed, checkpoints.last!.log);
        const size = walPages(file);
        // after a complete checkpoint the next commits write the log from its start: it does not grow
        version = await commitPages(store, 2, version);
        assert.ok(walPages(file) <= size, `the log grew from ${size} to ${walPages(file)} pages`);
        assert.equal(await store.collection('pages').count({}), version * 50);
      } finally {
        await store.close();
      }
    }));

  it('without the option the connection checkpoints itself (SQLite default), and no worker is involved', () =>
    withFile(async (file) => {
      const store = SqliteDocumentStore.open(file);
      try {
        assert.equal(store.walCheckpoints, null);
        await commitPages(store, 40);
        assert.ok(walPages(file) < 1200, `the log was checkpointed at ~1,000 pages (log: ${walPages(file)} pages)`);
      } finally {
        await store.close();
      }
    }));
});
