/**
 * A put resolves only once its blob would survive a power cut: the file's bytes are fsynced before
 * its name points at them, the folder holding the new name is fsynced after the rename, and every
 * folder the put made is fsynced in its parent, all before the put resolves. Watched from outside
 * with strace (the system calls of a child process that makes one put, on a worker thread or
 * streamed through the thread pool); skipped where strace is not installed.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

function tracedPut(smallPuts: boolean, bytes: number): { calls: Call[]; dir: string; key: string } {
  const dir = mkdtempSync(join(top, 'store-'));
  const local = pathToFileURL(join(import.meta.dirname, 'local.js')).href;
  const code = `
    import { LocalBlobStore } from ${JSON.stringify(local)};
    import { Readable } from 'node:stream';
    import { writeSync } from 'node:fs';
    import { randomBytes } from 'node:crypto';
    const store = new LocalBlobStore(${JSON.stringify(dir)}, { smallPuts: ${smallPuts} });
    await store.ping();
    const info = await store.put(Readable.from([randomBytes(${bytes})]));
    writeSync(1, 'RESOLVED ' + info.key + '\\n');
  `;
  const log = join(dir, 'strace.log');
  // a file, not --eval: worker threads inherit the process's flags, and --input-type is refused there
  const script = join(top, `put-${smallPuts}-${bytes}.mjs`);
  writeFileSync(script, code);
  const run = spawnSync('strace', ['-f', '-y', '-qq', '-o', log, '-e', 'trace=fsync,fdatasync,rename,renameat,renameat2,write', process.execPath, script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const key = /RESOLVED ([0-9a-f]{64})/.exec(run.stdout)?.[1];
  assert.ok(key, run.stdout);
  return { calls: completedCalls(readFileSync(log, 'utf8')), dir, key };
}

describe('a put is durable before it resolves', { skip: strace ? false : 'strace is not installed' }, () => {
  for (const [how, smallPuts, bytes] of [
    ['a small put on a worker thread', true, 4096],
    ['a small put streamed through the thread pool', false, 4096],
    ['a put too large for a worker, streamed', true, 1024 * 1024],
  ] as const) {
    it(`${how}: the file fsynced, then renamed into a folder it made, then that folder and the folders made fsynced, then resolved`, () => {
      const { calls, dir, key } = tracedPut(smallPuts, bytes);
      const index = (what: string, test: (c: Call) => boolean, after = -1) => {
        const i = calls.findIndex((c, at) => at > after && test(c));
        assert.ok(i >= 0, `${what} not seen in ${JSON.stringify(calls.map((c) => `${c.name}(${c.args.slice(0, 120)})`), null, 1)}`);
        return i;
      };
      const folder = join(dir, key.slice(0, 2), key.slice(2, 4));
      const isSync = (c: Call) => c.name === 'fsync' || c.name === 'fdatasync';
      const fileSynced = index('the temporary file\'s fsync', (c) => isSync(c) && c.args.includes(`${join(dir, 'tmp')}/put.`));
      const renamed = index('the rename into place', (c) => c.name.startsWith('rename') && c.args.includes(`${folder}/${key}`));
      const folderSynced = index('the folder\'s fsync', (c) => isSync(c) && c.args.endsWith(`<${folder}>`));
      // (the root was synced before, for the temporary folder: this one is after the file was written)
      const parentSynced = index('the new folder\'s parent\'s fsync', (c) => isSync(c) && c.args.endsWith(`<${join(dir, key.slice(0, 2))}>`), fileSynced);
      const rootSynced = index('the store root\'s fsync (a folder made in it)', (c) => isSync(c) && c.args.endsWith(`<${dir}>`), fileSynced);
      const resolved = index('the put resolving', (c) => c.name === 'write' && c.args.includes('RESOLVED'));
      assert.ok(fileSynced < renamed, 'the bytes are on disk before the name points at them');
      assert.ok(renamed < folderSynced, 'the folder is synced after the rename');
      for (const [what, i] of [['file', fileSynced], ['folder', folderSynced], ['parent', parentSynced], ['root', rootSynced]] as const) {
        assert.ok(i < resolved, `the ${what} sync is done before the put resolves`);
      }
    });
  }
});
