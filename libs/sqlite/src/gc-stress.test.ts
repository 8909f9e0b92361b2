/**
 * Statements dropped by the thousand and finalized by the garbage collector, idle and at exit,
 * must never abort the process: with better-sqlite3 12 built for Node 24.19 or later that is what
 * happened (`Assertion failed: (env) != nullptr`, SIGABRT; docs/decisions.md). The workload runs in
 * a child (`--expose-gc`) per driver this Node can use (testing/gc-stress-child.ts).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { usableSqliteDrivers } from './driver.js';

const child = new URL('./testing/gc-stress-child.js', import.meta.url).pathname;

function run(
  driver: string,
  dir: string,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--expose-gc', child, driver, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on('error', reject);
    proc.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe('SQLite statements finalized by the garbage collector (idle, and at exit)', () => {
  for (const driver of usableSqliteDrivers()) {
    it(`never abort the process: ${driver.name}`, { timeout: 60_000 }, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'burrow-gc-stress-'));
      try {
        const result = await run(driver.name, dir);
        assert.equal(result.signal, null, `the child died of ${result.signal}: ${result.stderr.slice(0, 2000)}`);
        assert.equal(result.code, 0, result.stderr.slice(0, 2000));
        assert.match(result.stdout, /^done 12000$/m);
        assert.doesNotMatch(result.stderr, /Assertion failed/);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});
