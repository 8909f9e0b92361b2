/**
 * WebDAV from outside: any method with Basic auth over supertest, a raw request whose path is sent
 * exactly as written (no client normalises `..` away), and the external tools (litmus, rclone)
 * found on PATH or reported absent with how to install them.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import { promisify } from 'node:util';
import supertest from 'supertest';

const run = promisify(execFile);

export type DavMethod =
  | 'OPTIONS'
  | 'GET'
  | 'HEAD'
  | 'PUT'
  | 'DELETE'
  | 'PROPFIND'
  | 'PROPPATCH'
  | 'MKCOL'
  | 'COPY'
  | 'MOVE'
  | 'LOCK'
  | 'UNLOCK';

export function davClient(url: string, username: string, password: string) {
  const agent = supertest(url);
  return {
    request: (method: DavMethod, path: string) => {
      const methods = agent as unknown as Record<string, (p: string) => supertest.Test>;
      return methods[method.toLowerCase()](path).auth(username, password);
    },
    raw: agent,
  };
}

/** A request whose path goes on the wire as written; the status and body. */
export function rawRequest(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    // an answer is due at once (a refusal before the body, a 400 for the path): never wait for Node's request timeout
    req.setTimeout(30_000, () => req.destroy(new Error(`no answer to ${method} ${path} within 30 s`)));
    req.end();
  });
}

/** Whether a tool runs (`<tool> <versionArg>`), once per process. */
const found = new Map<string, Promise<boolean>>();
export function hasTool(tool: string, versionArg = '--version'): Promise<boolean> {
  if (!found.has(tool))
    found.set(
      tool,
      run(tool, [versionArg]).then(
        () => true,
        (error: NodeJS.ErrnoException) => error.code !== 'ENOENT',
      ),
    );
  return found.get(tool)!;
}
