import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const processModule = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), 'process.js')).href;

/** Runs a service process whose start() is `startBody`; resolves with its exit code and output. */
async function runProbe(startBody: string): Promise<{ code: number | null; output: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'burrow-probe-'));
  const script = `import { runServiceProcess } from '${processModule}';\nawait runServiceProcess('probe', async (infra) => { ${startBody} });`;
  try {
    return await new Promise((res) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        env: {
          PATH: process.env.PATH ?? '',
          NATS_URL: 'nats://127.0.0.1:1',
          BURROW_DATA_DIR: dir,
          BURROW_SECRET: 'x'.repeat(40),
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (c) => (output += c));
      child.stderr.on('data', (c) => (output += c));
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        res({ code, output });
      });
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('a service process never exits silently', () => {
  it('when it runs out of work it logs that and exits non-zero', async () => {
    // what storage-catalog did when its NATS connection gave up: nothing kept it alive
    const { code, output } = await runProbe('return { close: async () => {} };');
    assert.equal(code, 1, output);
    assert.match(output, /"level":60.*nothing left to do/);
  });

  it('when a bus connection closes for good it logs that and exits non-zero', async () => {
    const { code, output } = await runProbe(
      `setInterval(() => {}, 1000); setTimeout(() => infra.onBusLost('burrow-probe', new Error('Authorization Violation')), 20); return { close: async () => {} };`,
    );
    assert.equal(code, 1, output);
    assert.match(output, /"level":60.*"connection":"burrow-probe".*Authorization Violation.*closed for good/);
  });
});
