/**
 * A TCP proxy between the apps and one server (the PostgreSQL event store, MinIO), for tests of a
 * dependency outage that must not touch the run's shared server: `cut()` drops every connection
 * and refuses new ones, as a server that went away (or a network cut that resets) does;
 * `restore()` accepts again on the same port. It listens on a port outside the ephemeral range
 * (harness/ports.ts), so nobody takes it while it is cut.
 */
import { createServer, type Server, type Socket, connect } from 'node:net';
import { stablePort } from './ports.js';

export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's */
  via(url: string): string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const port = await stablePort();
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = connect(target.port, target.host);
        sockets.add(client);
        sockets.add(upstream);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', drop).on('close', drop);
        upstream.on('error', drop).on('close', drop);
        client.pipe(upstream);
        upstream.pipe(client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        server = s;
        resolve();
      });
    });
  const cut = async () => {
    const s = server;
    server = null;
    const closed = s ? new Promise<void>((resolve) => s.close(() => resolve())) : Promise.resolve();
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    await closed;
  };
  await listen();
  return {
    port,
    via: (url) => {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut,
    restore: async () => {
      if (!server) await listen();
    },
    close: cut,
  };
}
