/**
 * TLS without a proxy: with BURROW_TLS_CERT and BURROW_TLS_KEY (PEM files), the gateway serves
 * HTTPS on PORT. The files are watched; when either changes (a renewed certificate), the server's
 * secure context is replaced (`setSecureContext`): new connections get the new certificate, open
 * ones keep theirs, no restart. A pair that does not load (a key written before its certificate)
 * is logged and the previous one kept until the next change.
 *
 * Every response over TLS carries `Strict-Transport-Security`; cookies are `Secure` because the
 * request is (`req.secure`). BURROW_HTTP_REDIRECT_PORT, when set, is a plain-HTTP port that only
 * redirects to https (301 for GET/HEAD, 308 otherwise so a method and body are kept).
 */
import type { Logger } from '@burrow/runtime';
import type { NextFunction, Request, Response } from 'express';
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { createSecureContext, type TLSSocket } from 'node:tls';

/** One year, the value browsers' preload lists ask for (no includeSubDomains: other hosts are not ours). */
export const HSTS = 'max-age=31536000';

export interface TlsFiles {
  cert: string;
  key: string;
}

/** Reads the PEM pair and checks it makes a secure context (a key that fits the certificate). */
export function loadTlsPair(files: TlsFiles): { cert: Buffer; key: Buffer } {
  const pair = { cert: readFileSync(files.cert), key: readFileSync(files.key) };
  createSecureContext(pair);
  return pair;
}

/** Replaces the server's certificate whenever either file changes; returns the stopper. */
export function reloadOnChange(server: HttpsServer, files: TlsFiles, log: Logger, intervalMs = 1000): () => void {
  const reload = () => {
    try {
      server.setSecureContext(loadTlsPair(files));
      log.info({ cert: files.cert }, 'TLS certificate reloaded');
    } catch (error) {
      log.warn({ err: { message: (error as Error).message }, cert: files.cert, key: files.key }, 'TLS files changed but do not load: the previous certificate stays in use');
    }
  };
  const listener = (now: { mtimeMs: number }, before: { mtimeMs: number }) => {
    if (now.mtimeMs !== before.mtimeMs) reload();
  };
  for (const file of [files.cert, files.key]) watchFile(file, { interval: intervalMs, persistent: false }, listener);
  return () => {
    for (const file of [files.cert, files.key]) unwatchFile(file, listener);
  };
}

/** Express middleware: HSTS on every response that goes over TLS to this server. */
export function strictTransportSecurity(req: Request, res: Response, next: NextFunction): void {
  if ((req.socket as TLSSocket).encrypted) res.setHeader('Strict-Transport-Security', HSTS);
  next();
}

/**
 * The plain-HTTP port that only redirects to https: to BURROW_PUBLIC_URL's origin when it is an
 * https URL, else to the host the client asked for on the HTTPS port.
 */
export function startRedirectServer(port: number, httpsPort: number, publicUrl: string | undefined, log: Logger): Promise<HttpServer> {
  const publicOrigin = publicUrl && publicUrl.startsWith('https://') ? new URL(publicUrl).origin : null;
  const server = createServer((req, res) => {
    let origin = publicOrigin;
    if (!origin) {
      const host = (req.headers.host ?? '127.0.0.1').replace(/:\d+$/, '');
      const safeHost = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)$/.test(host) ? host : '127.0.0.1';
      origin = `https://${safeHost}${httpsPort === 443 ? '' : `:${httpsPort}`}`;
    }
    const path = req.url?.startsWith('/') ? req.url : '/';
    const status = req.method === 'GET' || req.method === 'HEAD' ? 301 : 308;
    res.writeHead(status, { Location: origin + path, 'Content-Type': 'application/json' });
    res.end(req.method === 'HEAD' ? undefined : JSON.stringify({ reason: 'this port only redirects to https', location: origin + path }));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => {
      log.info({ port: (server.address() as { port: number }).port, to: httpsPort }, 'plain-HTTP redirect to https listening');
      resolve(server);
    });
  });
}
