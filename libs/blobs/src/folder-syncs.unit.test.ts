import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FolderSyncs } from './folder-syncs.js';

/** An fsync that finishes when the test says; records what started, in order. */
function controlledFsync() {
  const started: { path: string; finish: (error?: Error) => void }[] = [];
  const fsync = (path: string) =>
    new Promise<void>((resolve, reject) =>
      started.push({ path, finish: (error) => (error ? reject(error) : resolve()) }),
    );
  return { started, fsync };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('FolderSyncs (group commit of folder fsyncs)', () => {
  it('a caller arriving while a sync runs waits for the next one, started after it; callers arriving meanwhile share that one', async () => {
    const { started, fsync } = controlledFsync();
    const syncs = new FolderSyncs(fsync);
    let firstDone = false;
    const first = syncs.sync('/a').then(() => (firstDone = true));
    await tick();
    assert.equal(started.length, 1);
    // these renames happened after the running sync started: it does not cover them
    let laterDone = 0;
    const later = [syncs.sync('/a'), syncs.sync('/a'), syncs.sync('/a')].map((p) => p.then(() => (laterDone += 1)));
    await tick();
    assert.equal(started.length, 1, 'no second fsync while the first runs');
    started[0].finish();
    await first;
    assert.equal(firstDone, true);
    await tick();
    assert.equal(laterDone, 0, 'not resolved by the sync that started before them');
    assert.equal(started.length, 2, 'one more fsync for the three of them');
    started[1].finish();
    await Promise.all(later);
    assert.equal(laterDone, 3);
    assert.equal(syncs.started, 2);
  });

  it('folders are synced independently, and a caller after every sync ended starts a new one', async () => {
    const { started, fsync } = controlledFsync();
    const syncs = new FolderSyncs(fsync);
    const a = syncs.sync('/a');
    const b = syncs.sync('/b');
    await tick();
    assert.deepEqual(
      started.map((s) => s.path),
      ['/a', '/b'],
    );
    started[0].finish();
    started[1].finish();
    await Promise.all([a, b]);
    const again = syncs.sync('/a');
    await tick();
    assert.equal(started.length, 3);
    started[2].finish();
    await again;
  });

  it('a failed fsync fails every caller it was for; the next caller gets a new attempt', async () => {
    const { started, fsync } = controlledFsync();
    const syncs = new FolderSyncs(fsync);
    const first = syncs.sync('/a');
    const waiting = syncs.sync('/a');
    await tick();
    started[0].finish(new Error('EIO'));
    await assert.rejects(first, /EIO/);
    await tick();
    started[1].finish(new Error('EIO again'));
    await assert.rejects(waiting, /EIO again/);
    const retry = syncs.sync('/a');
    await tick();
    started[2].finish();
    await retry;
  });
});
