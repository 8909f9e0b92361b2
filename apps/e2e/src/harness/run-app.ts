/** Runs one app's compiled entry (`admin/dist/main.js`) as a child process and collects what it printed. */
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const appsDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export interface AppRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * What a child process of a test gets: PATH, the compile cache the test runner keeps for every
 * process of the run (Node 22+: modules compiled once per run, not once per process), and `env`.
 */
export const childEnv = (env: Record<string, string>): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  ...(process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}),
  ...env,
});

/** `script` is relative to apps/ (`admin/dist/main.js`); the child gets PATH and `env` only (childEnv). */
export function runApp(script: string, args: string[], env: Record<string, string>): Promise<AppRun> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [join(appsDir, script), ...args], {
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      res({ code, stdout, stderr });
    });
  });
}
