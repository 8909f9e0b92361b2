/**
 * A put resolves only once its blob would survive a power cut: the file's bytes are fsynced before
 * its name points at them (a streamed put: before the rename) or under the name it was created
 * with (a small put of new content: no temporary file, no rename), the folder holding the name is
 * fsynced after, and every folder the put made is fsynced in its parent, all before the put
 * resolves. Content found stored is read back before it is trusted: a torn file under a blob's
 * name (a crash mid-write) is replaced, a whole one refreshed and fsynced. Watched from outside
 * with strace (the system calls of a child process that makes one put, on a worker thread or
 * streamed through the thread pool); skipped where strace is not installed.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';

const strace = (() => {
  try {
    execFileSync('strace', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const top = mkdtempSync(join(tmpdir(), 'burrow-put-durability-'));
after(() => rmSync(top, { recursive: true, force: true }));

interface Call {
  name: string;
  args: string;
}

/** The completed calls of interest in strace's log, in the order they returned. */
function completedCalls(log: string): Call[] {
  const open = new Map<string, Call>();
  const calls: Call[] = [];
  for (const line of log.split('\n')) {
    const m = /^(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const [, pid, rest] = m;
    const resumed = /^<\.\.\. (\w+) resumed>(.*)$/.exec(rest);
    if (resumed) {
      const call = open.get(`${pid}:${resumed[1]}`);
      open.delete(`${pid}:${resumed[1]}`);
      if (call && / = 0$/.test(resumed[2].trim())) calls.push(call);
      continue;
    }
    const started = /^(\w+)\((.*?)(?: <unfinished \.\.\.>|\) += (-?\d+).*)$/.exec(rest);
    if (!started) continue;
    const call = { name: started[1], args: started[2] };
    if (rest.endsWith('<unfinished ...>')) open.set(`${pid}:${call.name}`, call);
    else if (started[3] !== undefined && Number(started[3]) >= 0) calls.push(call);
  }
  return calls;
}

/** `stored`: what the blob's name already holds before the put (`bytes` of it from the seed, or all of them). */
function tracedPut(
  smallPuts: boolean,
  bytes: number,
  stored?: 'torn' | 'whole',
): { calls: Call[]; dir: string; key: string } {
  const dir = mkdtempSync(join(top, 'store-'));
  const data = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) data[i] = (i * 7 + bytes) % 251;
  const key = createHash('sha256').update(data).digest('hex');
  const source = join(dir, 'source.bin');
  writeFileSync(source, data);
  if (stored) {
    mkdirSync(join(dir, key.slice(0, 2), key.slice(2, 4)), { recursive: true });
    writeFileSync(
      join(dir, key.slice(0, 2), key.slice(2, 4), key),
      stored === 'torn' ? data.subarray(0, bytes / 2) : data,
    );
  }
  const local = pathToFileURL(join(import.meta.dirname, 'local.js')).href;
  const code = `
    import { LocalBlobStore } from ${JSON.stringify(local)};
    import { Readable } from 'node:stream';
    import { writeSync } from 'node:fs';
    import { readFileSync } from 'node:fs';
    const store = new LocalBlobStore(${JSON.stringify(dir)}, { smallPuts: ${smallPuts} });
    await store.ping();
    const info = await store.put(Readable.from([readFileSync(${JSON.stringify(source)})]));
    writeSync(1, 'RESOLVED ' + info.key + '\\n');
  `;
  const log = join(dir, 'strace.log');
  // a file, not --eval: worker threads inherit the process's flags, and --input-type is refused there
  const script = join(top, `put-${smallPuts}-${bytes}-${stored ?? 'new'}.mjs`);
  writeFileSync(script, code);
  // without the runner's compile cache: Node writes its entries by rename, and those syscalls are not the store's
  const { NODE_COMPILE_CACHE: _cache, ...env } = process.env;
  const run = spawnSync(
    'strace',
    [
      '-f',
      '-y',
      '-qq',
      '-o',
      log,
      '-e',
      'trace=fsync,fdatasync,rename,renameat,renameat2,write',
      process.execPath,
      script,
    ],
    { encoding: 'utf8', env },
  );
  assert.equal(run.status, 0, run.stderr);
  assert.equal(/RESOLVED ([0-9a-f]{64})/.exec(run.stdout)?.[1], key, run.stdout);
  assert.ok(readFileSync(join(dir, key.slice(0, 2), key.slice(2, 4), key)).equals(data), 'the blob holds its bytes');
  return { calls: completedCalls(readFileSync(log, 'utf8')), dir, key };
}

/** The position of the first call after `after` that passes `test`; fails listing the calls when there is none. */
function finder(calls: Call[]) {
  return (what: string, test: (c: Call) => boolean, after = -1) => {
    const i = calls.findIndex((c, at) => at > after && test(c));
    assert.ok(
      i >= 0,
      `${what} not seen in ${JSON.stringify(
        calls.map((c) => `${c.name}(${c.args.slice(0, 120)})`),
        null,
        1,
      )}`,
    );
    return i;
  };
}
const isSync = (c: Call) => c.name === 'fsync' || c.name === 'fdatasync';

/**
 * The store's 256 first-level folders are made, and the root fsynced once, before the first put
 * writes a byte: the put's own syncs (from `fileSynced` on) never include the root, though the
 * put made a second-level folder (and in a new store its first-level folder was new too).
 */
function assertLayoutFirst(calls: Call[], dir: string, fileSynced: number): void {
  const rootSyncs = calls.map((c, i) => (isSync(c) && c.args.endsWith(`<${dir}>`) ? i : -1)).filter((i) => i >= 0);
  assert.ok(
    rootSyncs.length >= 1 && rootSyncs.every((i) => i < fileSynced),
    `the root synced at the start only: ${JSON.stringify(rootSyncs)}, the blob's bytes at ${fileSynced}`,
  );
  for (let i = 0; i < 256; i++)
    assert.ok(existsSync(join(dir, i.toString(16).padStart(2, '0'))), 'every first-level folder made');
}
const isRename = (c: Call) => c.name.startsWith('rename');

describe('a put is durable before it resolves', { skip: strace ? false : 'strace is not installed' }, () => {
  for (const [how, smallPuts, bytes] of [
    ['a small put streamed through the thread pool', false, 4096],
    ['a put too large for a worker, streamed', true, 1024 * 1024],
  ] as const) {
    it(`${how}: the file fsynced, then renamed into a folder it made, then that folder and the folders made fsynced, then resolved`, () => {
      const { calls, dir, key } = tracedPut(smallPuts, bytes);
      const index = finder(calls);
      const folder = join(dir, key.slice(0, 2), key.slice(2, 4));
      const fileSynced = index(
        "the temporary file's fsync",
        (c) => isSync(c) && c.args.includes(`${join(dir, 'tmp')}/put.`),
      );
      const renamed = index('the rename into place', (c) => isRename(c) && c.args.includes(`${folder}/${key}`));
      const folderSynced = index("the folder's fsync", (c) => isSync(c) && c.args.endsWith(`<${folder}>`));
      const parentSynced = index(
        "the new folder's parent's fsync",
        (c) => isSync(c) && c.args.endsWith(`<${join(dir, key.slice(0, 2))}>`),
        fileSynced,
      );
      const resolved = index('the put resolving', (c) => c.name === 'write' && c.args.includes('RESOLVED'));
      assert.ok(fileSynced < renamed, 'the bytes are on disk before the name points at them');
      assert.ok(renamed < folderSynced, 'the folder is synced after the rename');
      assertLayoutFirst(calls, dir, fileSynced);
      for (const [what, i] of [
        ['file', fileSynced],
        ['folder', folderSynced],
        ['parent', parentSynced],
      ] as const) {
        assert.ok(i < resolved, `the ${what} sync is done before the put resolves`);
      }
    });
  }

  it('a small put of new content on a worker thread: written and fsynced under its name (no temporary file, no rename), then its folder and the folders made fsynced, then resolved', () => {
    const { calls, dir, key } = tracedPut(true, 4096);
    const index = finder(calls);
    const folder = join(dir, key.slice(0, 2), key.slice(2, 4));
    const fileSynced = index(
      "the blob's fsync under its name",
      (c) => isSync(c) && c.args.endsWith(`<${folder}/${key}>`),
    );
    const folderSynced = index("the folder's fsync", (c) => isSync(c) && c.args.endsWith(`<${folder}>`), fileSynced);
    const parentSynced = index(
      "the new folder's parent's fsync",
      (c) => isSync(c) && c.args.endsWith(`<${join(dir, key.slice(0, 2))}>`),
      fileSynced,
    );
    const resolved = index('the put resolving', (c) => c.name === 'write' && c.args.includes('RESOLVED'));
    assert.deepEqual(
      calls.filter((c) => isRename(c) && c.args.includes(dir)),
      [],
      'no rename',
    );
    assert.deepEqual(
      calls.filter((c) => isSync(c) && c.args.includes(`${join(dir, 'tmp')}/`)),
      [],
      'no temporary file synced',
    );
    assertLayoutFirst(calls, dir, fileSynced);
    assert.equal(
      calls.slice(fileSynced).filter(isSync).length,
      3,
      "after the layout: the blob, its folder, the folder's parent (the folder was new)",
    );
    for (const [what, i] of [
      ['folder', folderSynced],
      ['parent', parentSynced],
    ] as const) {
      assert.ok(i < resolved, `the ${what} sync is done before the put resolves`);
    }
    assert.equal(
      calls.filter(isSync).filter((c) => c.args.endsWith(`<${folder}/${key}>`) || c.args.endsWith(`<${folder}>`))
        .length,
      2,
      'one fsync of the blob, one of its folder',
    );
  });

  it('a small put finding a torn file under its name (a crash mid-write) does not trust it: a whole copy is renamed over it, fsynced before, its folder after', () => {
    const { calls, dir, key } = tracedPut(true, 4096, 'torn');
    const index = finder(calls);
    const folder = join(dir, key.slice(0, 2), key.slice(2, 4));
    const fileSynced = index(
      "the temporary file's fsync",
      (c) => isSync(c) && c.args.includes(`${join(dir, 'tmp')}/put.`),
    );
    const renamed = index(
      'the rename over the torn file',
      (c) => isRename(c) && c.args.includes(`${folder}/${key}`),
      fileSynced,
    );
    const folderSynced = index("the folder's fsync", (c) => isSync(c) && c.args.endsWith(`<${folder}>`), renamed);
    assert.ok(folderSynced < index('the put resolving', (c) => c.name === 'write' && c.args.includes('RESOLVED')));
  });

  it('a small put finding its content whole under its name: no rewrite; the file and its folder fsynced before it resolves', () => {
    const { calls, dir, key } = tracedPut(true, 4096, 'whole');
    const index = finder(calls);
    const folder = join(dir, key.slice(0, 2), key.slice(2, 4));
    const fileSynced = index("the stored copy's fsync", (c) => isSync(c) && c.args.endsWith(`<${folder}/${key}>`));
    const folderSynced = index("the folder's fsync", (c) => isSync(c) && c.args.endsWith(`<${folder}>`), fileSynced);
    assert.deepEqual(
      calls.filter((c) => isRename(c) && c.args.includes(dir)),
      [],
      'no rename',
    );
    assert.ok(folderSynced < index('the put resolving', (c) => c.name === 'write' && c.args.includes('RESOLVED')));
  });
});
