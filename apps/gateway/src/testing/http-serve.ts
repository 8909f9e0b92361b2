/** A throwaway HTTP server for tests of what the gateway writes to a real response. */
import { createServer, get, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Serves `handle` on a local port while `test` runs, with a `fetch` that GETs the body whole; the
 * server is closed afterwards.
 */
export async function withServer<T>(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  test: (fetch: () => Promise<Buffer>) => Promise<T>,
): Promise<T> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const fetch = () =>
    new Promise<Buffer>((resolve, reject) =>
      get(url, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks)));
      }).on('error', reject),
    );
  try {
    return await test(fetch);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}
