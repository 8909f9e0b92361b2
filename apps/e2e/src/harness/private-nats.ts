/**
 * A private nats-server for tests that stop and restart NATS: never the machine's shared server.
 * It listens on a fixed free port, so a restart comes back at the same URL the processes know.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stablePort } from './ports.js';

export const natsServerBinary = (): string | undefined =>
  ['/usr/sbin/nats-server', '/usr/bin/nats-server', 'nats-server'].find(
    (b) => spawnSync(b, ['--version']).status === 0,
  );

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
    srv.on('error', rej);
  });
}

export const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

export interface PrivateNats {
  url: string;
  /** SIGKILL, as a crash or a power cut would: no goodbye to the clients */
  kill(): Promise<void>;
  /**
   * start again on the same port; resolves once it accepts connections. `jetstream: false` starts
   * it without JetStream this once (the key-value store missing while the bus works).
   */
  start(options?: { jetstream?: boolean }): Promise<void>;
  /** kill it for good and remove its JetStream files */
  close(): Promise<void>;
}

export async function startPrivateNats(
  binary = natsServerBinary(),
  options: { jetstream?: boolean } = {},
): Promise<PrivateNats> {
  if (!binary) throw new Error('no nats-server binary');
  // restarted on the same port: one no client can be given meanwhile (harness/ports.ts)
  const port = await stablePort();
  // JetStream (the key-value store) keeps its files here, across restarts of this server
  const storeDir = mkdtempSync(join(tmpdir(), 'nats-private-'));
  let child: ChildProcess | null = null;
  const nats: PrivateNats = {
    url: `nats://127.0.0.1:${port}`,
    async start(once: { jetstream?: boolean } = {}) {
      const jetstream = (once.jetstream ?? options.jetstream) === false ? [] : ['-js', '-sd', storeDir];
      child = spawn(binary, ['-a', '127.0.0.1', '-p', String(port), ...jetstream], { stdio: 'ignore' });
      const deadline = Date.now() + 10_000;
      while (!(await listening(port))) {
        if (child.exitCode !== null || Date.now() > deadline)
          throw new Error(`nats-server did not start on port ${port}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async kill() {
      const c = child;
      child = null;
      if (!c || c.exitCode !== null) return;
      await new Promise<void>((res) => {
        c.once('exit', () => res());
        c.kill('SIGKILL');
      });
    },
    async close() {
      await nats.kill();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
  await nats.start();
  return nats;
}
