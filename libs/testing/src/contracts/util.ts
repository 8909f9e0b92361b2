/** Small helpers shared by the contract suites. */
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A short random id, safe in stream names, collection names and object contents. */
export const uniqueId = (prefix = 't') => `${prefix}${randomBytes(6).toString('hex')}`;

/** Polls `predicate` until it holds; fails with `what` and the last observed state otherwise. */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  what: string,
  options: { timeoutMs?: number; intervalMs?: number; state?: () => unknown } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    if (await predicate()) return;
    if (Date.now() > deadline) {
      const state = options.state ? ` (state: ${JSON.stringify(options.state())})` : '';
      throw new Error(`timed out waiting for ${what}${state}`);
    }
    await sleep(options.intervalMs ?? 10);
  }
}

/** Collects the rejection of `promise`; fails when it fulfils. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, but the promise fulfilled');
}

/**
 * A TCP port that accepts connections and never answers: the failure mode where clients without
 * their own timeout hang forever. `close()` frees it.
 */
export async function silentPort(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
