/**
 * A service awaiting `ProjectionRunner.start()` while its read-model store is down has nothing
 * else keeping its process alive: the runner's waits between tries must, or the process ends
 * with its start unfinished (an unref'd timer let it, and a test awaiting start failed with
 * "Promise resolution is still pending but the event loop has already resolved").
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';

const child = `
  import { MemoryDocumentStore } from '@burrow/documents';
  import { SqliteEventStore } from '@burrow/event-store';
  import { mkdtempSync, rmSync } from 'node:fs';
  import { tmpdir } from 'node:os';
  import { join } from 'node:path';
  import { ProjectionRunner } from '@burrow/eventsourcing';
  const inner = new MemoryDocumentStore();
  let down = true;
  // the store comes back by a timer that keeps nothing alive: only the runner's wait can
  setTimeout(() => { down = false; }, 400).unref();
  const store = new Proxy(inner, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args) => {
        if (down && (property === 'readCheckpoint' || property === 'commit')) return Promise.reject(new Error('connect ECONNREFUSED (simulated outage)'));
        return value.apply(target, args);
      };
    },
  });
  const projection = { name: 'noop', prefixes: ['x-'], async init() {}, async apply() {} };
  const dir = mkdtempSync(join(tmpdir(), 'runner-alive-'));
  const events = SqliteEventStore.open(join(dir, 'events.sqlite'));
  const runner = new ProjectionRunner(events, store, [projection], { retryMinMs: 100, retryMaxMs: 200 });
  await runner.start();
  process.stdout.write('started\\n');
  await runner.stop();
  await events.close();
  rmSync(dir, { recursive: true, force: true });
`;

describe('ProjectionRunner: waiting for a store that is down', () => {
  it('keeps the process alive until start() finishes', async () => {
    const proc = spawn(process.execPath, ['--input-type=module', '-e', child], {
      cwd: new URL('.', import.meta.url).pathname,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
    assert.equal(out, 'started\n', `the process ended before start() finished (exit ${code}): ${err.slice(-500)}`);
    assert.equal(code, 0);
  });
});
