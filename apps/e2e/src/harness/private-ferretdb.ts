/**
 * A private FerretDB (the MongoDB wire protocol on SQLite) for tests that stop and restart the
 * read-model database: never the run's shared server. Its binary is the one
 * `scripts/ensure-ferretdb.sh` builds (FERRETDB_BIN, else ~/go/bin/ferretdb-v1.24.0). It listens on
 * a fixed free port and keeps its files across restarts, so a restart comes back with the same data
 * at the same URL.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { stablePort } from './ports.js';
import { listening } from './private-nats.js';

export const ferretdbBinary = (): string | undefined =>
  [process.env.FERRETDB_BIN, join(homedir(), 'go', 'bin', 'ferretdb-v1.24.0')].find((b): b is string =>
    Boolean(b && existsSync(b)),
  );

export interface PrivateFerretDb {
  /** MONGODB_URL for the apps (database prefix `burrow`) */
  url: string;
  /** SIGKILL: the database is gone at once, as in a crash or a network cut */
  kill(): Promise<void>;
  /** start again on the same port and files; resolves once it accepts connections */
  start(): Promise<void>;
  /** kill it and remove its files */
  close(): Promise<void>;
}

export async function startPrivateFerretDb(binary = ferretdbBinary()): Promise<PrivateFerretDb> {
  if (!binary) throw new Error('no ferretdb binary (scripts/ensure-ferretdb.sh builds one)');
  // restarted on the same ports: ones no client can be given meanwhile (harness/ports.ts)
  const [port, debugPort] = [await stablePort(), await stablePort()];
  const dir = mkdtempSync(join(tmpdir(), 'ferretdb-private-'));
  let child: ChildProcess | null = null;
  const db: PrivateFerretDb = {
    url: `mongodb://127.0.0.1:${port}/burrow`,
    async start() {
      child = spawn(
        binary,
        [
          '--handler=sqlite',
          `--sqlite-url=file:${dir}/`,
          `--listen-addr=127.0.0.1:${port}`,
          `--debug-addr=127.0.0.1:${debugPort}`,
          `--state-dir=${dir}`,
          '--telemetry=disable',
          '--log-level=error',
        ],
        { stdio: 'ignore' },
      );
      const deadline = Date.now() + 20_000;
      for (;;) {
        // its debug handler answers before its listener is up (or has failed to bind): both
        const live = await fetch(`http://127.0.0.1:${debugPort}/debug/livez`).then(
          (r) => r.ok,
          () => false,
        );
        if (live && (await listening(port)) && child.exitCode === null) return;
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`ferretdb did not start on port ${port}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async kill() {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.kill('SIGKILL');
      });
    },
    close: async () => undefined,
  };
  db.close = async () => {
    await db.kill();
    rmSync(dir, { recursive: true, force: true });
  };
  await db.start();
  return db;
}
