/**
 * Burrow standalone as a child process (`apps/standalone/dist/main.js`), for tests that must kill
 * it as a crash would (SIGKILL) and start it again on the same data directory.
 */
import { childEnv } from './run-app.js';
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './multi-process.js';
import { testEnv } from './standalone.js';

const appsDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export interface StandaloneProcess {
  url: string;
  child: ChildProcess;
  /** its stdout and stderr so far */
  output(): string;
  /** SIGKILL, resolved once it has exited */
  kill(): Promise<void>;
}

/**
 * Starts standalone on `dataDir` (a free port, the test partner) and waits until /readyz answers
 * 200. `wrapper` runs it under another command (`['prlimit', '--nofile=1024:1024']`).
 */
export async function startStandaloneProcess(
  dataDir: string,
  env: Record<string, string> = {},
  wrapper: string[] = [],
): Promise<StandaloneProcess> {
  const port = await freePort();
  const command = [...wrapper, process.execPath, join(appsDir, 'standalone', 'dist', 'main.js')];
  const child = spawn(command[0], command.slice(1), {
    env: childEnv(testEnv(dataDir, { PORT: String(port), LOG_LEVEL: 'info', ...env })),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-200_000)));
  child.stderr.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-200_000)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`standalone exited during start:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`standalone not ready after 90 s:\n${output}`);
    }
    if (
      (await fetch(`${url}/readyz`).then(
        (r) => r.status,
        () => 0,
      )) === 200
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    output: () => output,
    kill: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGKILL');
      }),
  };
}
