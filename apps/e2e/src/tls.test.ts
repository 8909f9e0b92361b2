/**
 * TLS without a proxy (issue 18, item 11): with BURROW_TLS_CERT and BURROW_TLS_KEY, standalone and
 * a gateway process serve HTTPS on PORT, cookies are Secure, Strict-Transport-Security is sent, a
 * renewed certificate is served without a restart, and BURROW_HTTP_REDIRECT_PORT only redirects.
 * TLS 1.2 offers only ECDHE AEAD suites, with an ECDSA certificate and after renewal with an RSA
 * one; the redirect port never sends a client to the host its request named unless Burrow knows
 * that name (issue 33, item 12). Certificates are made for the test with `openssl` (never committed).
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { X509Certificate } from 'node:crypto';
import { connect as tlsConnect, getCiphers, type TLSSocket } from 'node:tls';
import { startSystem } from '@burrow/standalone';
import { readConfig } from '@burrow/runtime';
import { startMultiProcess } from './harness/multi-process.js';
import { TEST_PARTNER, testEnv } from './harness/standalone.js';
import { b32 } from './harness/storage-client.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const HAS_OPENSSL = spawnSync('openssl', ['version']).status === 0;

/** A self-signed certificate for 127.0.0.1 (its PEM files in `dir`, named `<name>.crt` / `.key`), ECDSA P-256 or RSA 2048. */
function makeCert(dir: string, name: string, cn: string, type: 'ec' | 'rsa' = 'ec'): { cert: string; key: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  const keyArgs = type === 'ec' ? ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'] : ['-newkey', 'rsa:2048'];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      ...keyArgs,
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${cn}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

/** The suite a handshake with these client options agrees on (`name`, `version`), or null when the server refuses it. */
function handshake(
  url: string,
  options: { ciphers?: string; maxVersion?: 'TLSv1.2' | 'TLSv1.3' },
): Promise<{ name: string; version: string } | null> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: hostname, port: Number(port), rejectUnauthorized: false, ...options }, () => {
      const { name, version } = socket.getCipher();
      socket.destroy();
      resolve({ name, version });
    });
    socket.on('error', () => resolve(null));
  });
}

/** TLS 1.2 suites with forward secrecy (ECDHE) and an AEAD cipher: all the server may agree on. */
const GOOD_TLS12 = /^ECDHE-(ECDSA|RSA)-(AES128-GCM-SHA256|AES256-GCM-SHA384|CHACHA20-POLY1305)$/;

/** Every TLS 1.2 suite this Node knows, each offered alone: the ones the server accepts. */
async function acceptedTls12Suites(url: string): Promise<string[]> {
  const accepted: string[] = [];
  for (const suite of getCiphers()
    .filter((c) => !c.startsWith('tls_'))
    .map((c) => c.toUpperCase())) {
    const agreed = await handshake(url, { ciphers: suite, maxVersion: 'TLSv1.2' });
    if (agreed) accepted.push(agreed.name);
  }
  return accepted;
}

/** What the server offers: on TLS 1.2 only ECDHE AEAD suites (some of them), and TLS 1.3 as before. */
async function checkSuites(url: string, certType: 'ec' | 'rsa') {
  const accepted = await acceptedTls12Suites(url);
  assert.deepEqual(
    accepted.filter((suite) => !GOOD_TLS12.test(suite)),
    [],
    `TLS 1.2 suites without forward secrecy or AEAD are offered (${certType} certificate)`,
  );
  assert.ok(
    accepted.includes(certType === 'ec' ? 'ECDHE-ECDSA-AES128-GCM-SHA256' : 'ECDHE-RSA-AES128-GCM-SHA256'),
    `accepted: ${accepted.join(' ')}`,
  );
  for (const weak of certType === 'ec'
    ? ['ECDHE-ECDSA-AES128-SHA', 'ECDHE-ECDSA-AES256-SHA384']
    : ['AES128-GCM-SHA256', 'AES256-SHA', 'ECDHE-RSA-AES128-SHA', 'DHE-RSA-AES128-GCM-SHA256']) {
    assert.equal(await handshake(url, { ciphers: weak, maxVersion: 'TLSv1.2' }), null, `${weak} is refused`);
  }
  assert.equal((await handshake(url, {}))?.version, 'TLSv1.3', 'TLS 1.3 still works');
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** the certificate the server presented (its CN) */
  peer?: string;
}

function fetchTls(
  url: string,
  ca: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers, ca: readFileSync(ca), agent: false },
      (res) => {
        const socket = res.socket as TLSSocket;
        const peer = socket.getPeerCertificate().subject?.CN as string | undefined;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, peer }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

function fetchPlain(url: string, method = 'GET', headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });

const partnerAuth = {
  authorization: 'Basic ' + Buffer.from(`${TEST_PARTNER.username}:${TEST_PARTNER.password}`).toString('base64'),
};

/** What both modes must show, given the HTTPS base URL, the redirect port and the files. */
async function checkTls(url: string, redirectPort: number, files: { cert: string; key: string; dir: string }) {
  // HTTPS on PORT, with HSTS
  const ping = await fetchTls(`${url}/ping`, files.cert, { headers: partnerAuth });
  assert.equal(ping.status, 200, ping.body);
  assert.match(String(ping.headers['strict-transport-security']), /max-age=\d+/);
  assert.equal(ping.peer, 'burrow-test-1');
  await checkSuites(url, 'ec');
  // a user's login cookie is Secure
  const username = `tls${Date.now().toString(36)}`;
  const created = await fetchTls(`${url}/users/`, files.cert, {
    method: 'POST',
    headers: { ...partnerAuth, 'content-type': 'application/json' },
    body: JSON.stringify({ username, name: 'TLS', email: `${username}@example.com`, password: 'user-password-1' }),
  });
  assert.equal(created.status, 201, created.body);
  const login = await fetchTls(`${url}/storage/${b32(username)}/login`, files.cert, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'password=user-password-1',
  });
  assert.equal(login.status, 200, login.body);
  const cookie = (login.headers['set-cookie'] as string[])[0];
  assert.match(cookie, /;\s*Secure/i);
  assert.match(cookie, /HttpOnly/i);
  // the plain port only redirects, to the same path on https
  const get = await fetchPlain(`http://127.0.0.1:${redirectPort}/storage/x/?a=1`);
  assert.equal(get.status, 301);
  assert.equal(get.headers.location, `${url}/storage/x/?a=1`);
  assert.equal((await fetchPlain(`http://127.0.0.1:${redirectPort}/users/`, 'POST')).status, 308);
  // a Host of the client's choosing is not where it is sent: only a name of the certificate's or the address it reached
  for (const host of ['evil.example', `evil.example:${redirectPort}`, '[::1]', 'bad host!']) {
    const other = await fetchPlain(`http://127.0.0.1:${redirectPort}/storage/x/?a=1`, 'GET', { Host: host });
    assert.equal(other.status, 301, host);
    assert.equal(other.headers.location, `${url}/storage/x/?a=1`, `Host: ${host}`);
  }
  // a renewed certificate (written beside, then moved into place, as certbot does) is served without a restart
  // (an RSA one: the TLS 1.2 suites stay ECDHE AEAD, no static RSA key exchange)
  const renewed = makeCert(files.dir, 'renewed', 'burrow-test-2', 'rsa');
  await rename(renewed.key, files.key);
  await rename(renewed.cert, files.cert);
  const deadline = Date.now() + 30_000;
  let peer: string | undefined;
  while (
    Date.now() < deadline &&
    (peer = (await fetchTls(`${url}/healthz`, files.cert).catch(() => ({ peer: undefined }))).peer) !== 'burrow-test-2'
  ) {
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(peer, 'burrow-test-2', 'the renewed certificate is served');
  assert.ok(new X509Certificate(readFileSync(files.cert)).subject.includes('burrow-test-2'));
  await checkSuites(url, 'rsa');
}

describe('TLS without a proxy: standalone', { skip: HAS_OPENSSL ? false : 'openssl not found' }, () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'burrow-tls-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('serves HTTPS on PORT with HSTS and Secure cookies, reloads a renewed certificate, redirects plain HTTP', async () => {
    const files = { ...makeCert(dir, 'server', 'burrow-test-1'), dir };
    const system = await startSystem(
      readConfig(
        testEnv(join(dir, 'data'), {
          BURROW_TLS_CERT: files.cert,
          BURROW_TLS_KEY: files.key,
          BURROW_HTTP_REDIRECT_PORT: '0',
        }),
      ),
    );
    try {
      assert.match(system.url, /^https:/);
      // the image's HEALTHCHECK speaks https when BURROW_TLS_CERT is set
      // (asynchronously: the server runs in this process and must answer meanwhile)
      await promisify(execFile)(process.execPath, [join(repoRoot, 'deploy', 'healthcheck.mjs')], {
        env: {
          PATH: process.env.PATH ?? '',
          BURROW_APP: 'standalone',
          PORT: String(system.port),
          BURROW_TLS_CERT: files.cert,
        },
      });
      await checkTls(system.url, system.redirectPort!, files);
    } finally {
      await system.close();
    }
  });

  it('refuses to start with only one of the pair, or an unreadable file, naming the variable', () => {
    assert.throws(
      () => readConfig(testEnv(dir, { BURROW_TLS_CERT: join(dir, 'missing.crt') })),
      /BURROW_TLS_CERT and BURROW_TLS_KEY must be set together/,
    );
    assert.throws(
      () =>
        readConfig(
          testEnv(dir, { BURROW_TLS_CERT: join(dir, 'missing.crt'), BURROW_TLS_KEY: join(dir, 'missing.key') }),
        ),
      /BURROW_TLS_CERT: cannot read/,
    );
    assert.throws(
      () => readConfig(testEnv(dir, { BURROW_HTTP_REDIRECT_PORT: '8081' })),
      /BURROW_HTTP_REDIRECT_PORT needs/,
    );
  });
});

const natsUrl = process.env.NATS_URL;
describe(
  'TLS without a proxy: a gateway process',
  { skip: !HAS_OPENSSL ? 'openssl not found' : natsUrl ? false : 'NATS_URL not set: multi-process suites skipped' },
  () => {
    it('a gateway started with the TLS variables serves HTTPS, Secure cookies, HSTS, reloads and redirects', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'burrow-tls-'));
      const target = await startMultiProcess(natsUrl!);
      try {
        const files = { ...makeCert(dir, 'server', 'burrow-test-1'), dir };
        const [port, redirectPort] = [await freePort(), await freePort()];
        target.startApp('gateway', {
          PORT: String(port),
          BURROW_TLS_CERT: files.cert,
          BURROW_TLS_KEY: files.key,
          BURROW_HTTP_REDIRECT_PORT: String(redirectPort),
        });
        const url = `https://127.0.0.1:${port}`;
        const deadline = Date.now() + 90_000;
        while ((await fetchTls(`${url}/readyz`, files.cert).catch(() => ({ status: 0 }))).status !== 200) {
          if (Date.now() > deadline) throw new Error('the TLS gateway did not become ready');
          await new Promise((r) => setTimeout(r, 200));
        }
        await checkTls(url, redirectPort, files);
      } finally {
        await target.close();
        await rm(dir, { recursive: true, force: true });
      }
    });
  },
);
