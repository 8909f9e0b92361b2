/**
 * TLS without a proxy: with BURROW_TLS_CERT and BURROW_TLS_KEY (PEM files), the gateway serves
 * HTTPS on PORT. The files are watched; when either changes (a renewed certificate), the server's
 * secure context is replaced (`setSecureContext`): new connections get the new certificate, open
 * ones keep theirs, no restart. A pair that does not load (a key written before its certificate)
 * is logged and the previous one kept until the next change.
 *
 * TLS 1.3 keeps Node's suites; TLS 1.2 offers only ECDHE key exchange (forward secrecy) with AEAD
 * ciphers (AES-GCM, ChaCha20-Poly1305): Mozilla's "intermediate" list without its DHE suites, so
 * no static-RSA, CBC or SHA-1 suite (issue 33, item 12); older protocols are off.
 *
 * Every response over TLS carries `Strict-Transport-Security`; cookies are `Secure` because the
 * request is (`req.secure`). BURROW_HTTP_REDIRECT_PORT, when set, is a plain-HTTP port that only
 * redirects to https (301 for GET/HEAD, 308 otherwise so a method and body are kept), to a name
 * Burrow knows, never to whatever `Host` a request names.
 */
import { unmapIPv4, type Logger } from '@burrow/runtime';
import type { NextFunction, Request, Response } from 'express';
import { X509Certificate } from 'node:crypto';
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { isIPv6 } from 'node:net';
import { createSecureContext, DEFAULT_CIPHERS, type SecureVersion, type TLSSocket } from 'node:tls';

/** One year, the value browsers' preload lists ask for (no includeSubDomains: other hosts are not ours). */
export const HSTS = 'max-age=31536000';

export interface TlsFiles {
  cert: string;
  key: string;
}

/** TLS 1.2 suites: ECDHE (forward secrecy) and AEAD only, for ECDSA and RSA certificates. */
export const TLS12_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
];
/** Node's TLS 1.3 suites (all AEAD with forward secrecy), then the TLS 1.2 ones. */
export const CIPHERS = [
  ...DEFAULT_CIPHERS.split(':').filter((suite) => suite.startsWith('TLS_')),
  ...TLS12_CIPHERS,
].join(':');

export interface TlsOptions {
  cert: Buffer;
  key: Buffer;
  ciphers: string;
  minVersion: SecureVersion;
}

/** Reads the PEM pair and checks it makes a secure context (a key that fits the certificate), with Burrow's suites. */
export function loadTlsPair(files: TlsFiles): TlsOptions {
  const options: TlsOptions = {
    cert: readFileSync(files.cert),
    key: readFileSync(files.key),
    ciphers: CIPHERS,
    minVersion: 'TLSv1.2',
  };
  createSecureContext(options);
  return options;
}

/**
 * The host names and addresses a certificate is for (its subjectAltName DNS names and IP
 * addresses; its CN when it has none), in the certificate's order, as URLs write hosts.
 */
export function certificateHosts(cert: Buffer): string[] {
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    return [];
  }
  const hosts: string[] = [];
  for (const entry of (x509.subjectAltName ?? '').split(/,\s*/)) {
    const match = /^(DNS|IP Address):(.+)$/.exec(entry.trim());
    // Node quotes (as JSON) a name holding unusual characters
    const value = match ? (match[2].startsWith('"') ? (JSON.parse(match[2]) as string) : match[2]) : null;
    const host = value === null ? null : canonicalHost(value);
    if (host) hosts.push(host);
  }
  if (hosts.length === 0) {
    const cn = /(?:^|\n)CN=([^\n]+)/.exec(x509.subject)?.[1];
    const host = cn ? canonicalHost(cn) : null;
    if (host) hosts.push(host);
  }
  return hosts;
}

/** A host name or address as a URL writes it (lower case, IPv6 in brackets), a `*.` wildcard kept; null if it is neither. */
export function canonicalHost(value: string): string | null {
  const wildcard = value.startsWith('*.');
  const name = wildcard ? value.slice(2) : value;
  try {
    const host = new URL(`http://${isIPv6(name) ? `[${name}]` : name}/`).hostname;
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)$/.test(host)) return null;
    return wildcard ? `*.${host}` : host;
  } catch {
    return null;
  }
}

/** Whether `host` (canonical) is one of `known` (a `*.` wildcard covers one label). */
function isKnownHost(host: string, known: string[]): boolean {
  return known.some(
    (name) =>
      name === host ||
      (name.startsWith('*.') && host.endsWith(name.slice(1)) && !host.slice(0, -name.length + 1).includes('.')),
  );
}

/** Replaces the server's certificate whenever either file changes (then tells `onLoaded`); returns the stopper. */
export function reloadOnChange(
  server: HttpsServer,
  files: TlsFiles,
  log: Logger,
  intervalMs = 1000,
  onLoaded?: (options: TlsOptions) => void,
): () => void {
  const reload = () => {
    try {
      const options = loadTlsPair(files);
      server.setSecureContext(options);
      onLoaded?.(options);
      log.info({ cert: files.cert }, 'TLS certificate reloaded');
    } catch (error) {
      log.warn(
        { err: { message: (error as Error).message }, cert: files.cert, key: files.key },
        'TLS files changed but do not load: the previous certificate stays in use',
      );
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
 * https URL; else to the host the client asked for on the HTTPS port when that is a name Burrow
 * knows (`knownHosts()`: the certificate's names, and the local address the connection came to),
 * and to the first known name otherwise: a `Host` of the client's choosing never becomes a
 * redirect to another site.
 */
export function startRedirectServer(
  port: number,
  httpsPort: number,
  publicUrl: string | undefined,
  knownHosts: () => string[],
  log: Logger,
): Promise<HttpServer> {
  const publicOrigin = publicUrl && publicUrl.startsWith('https://') ? new URL(publicUrl).origin : null;
  const portPart = httpsPort === 443 ? '' : `:${httpsPort}`;
  const server = createServer((req, res) => {
    let origin = publicOrigin;
    if (!origin) {
      const local = canonicalHost(unmapIPv4(req.socket.localAddress ?? '127.0.0.1')) ?? '127.0.0.1';
      const known = [...knownHosts(), local];
      let asked: string | null = null;
      try {
        asked = req.headers.host ? canonicalHost(new URL(`http://${req.headers.host}/`).hostname) : null;
      } catch {
        // not a host: the first known name
      }
      const host =
        asked && !asked.startsWith('*.') && isKnownHost(asked, known)
          ? asked
          : known.find((name) => !name.startsWith('*.'))!;
      origin = `https://${host}${portPart}`;
    }
    const path = req.url?.startsWith('/') ? req.url : '/';
    const status = req.method === 'GET' || req.method === 'HEAD' ? 301 : 308;
    res.writeHead(status, { Location: origin + path, 'Content-Type': 'application/json' });
    res.end(
      req.method === 'HEAD'
        ? undefined
        : JSON.stringify({ reason: 'this port only redirects to https', location: origin + path }),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => {
      log.info(
        { port: (server.address() as { port: number }).port, to: httpsPort },
        'plain-HTTP redirect to https listening',
      );
      resolve(server);
    });
  });
}
