#!/usr/bin/env node
/**
 * Proves the README's first command on the Node that runs this script: `npm start` (which builds,
 * then runs Burrow standalone) serves, answers a partner's `GET /ping` and `GET /plans`, and stops
 * cleanly on SIGTERM. A fresh data directory of its own, a free port. CI runs it on the machine's
 * Node, beside a short `npm test` pass, while the whole suite runs on the current Node LTS.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const port = await new Promise((resolve, reject) => {
  const server = createServer();
  server.listen(0, '127.0.0.1', () => {
    const { port: chosen } = server.address();
    server.close(() => resolve(chosen));
  });
  server.on('error', reject);
});
const dataDir = mkdtempSync(join(tmpdir(), 'burrow-start-'));
const partner = { username: 'start-check', password: 'start-check-password' };
const child = spawn('npm', ['start'], {
  cwd: root,
  detached: true, // npm and the node it starts are stopped together
  stdio: ['ignore', 'pipe', 'pipe'],
  env: {
    ...process.env,
    PORT: String(port),
    BURROW_DATA_DIR: dataDir,
    BURROW_PARTNER_USERNAME: partner.username,
    BURROW_PARTNER_PASSWORD: partner.password,
    LOG_LEVEL: 'warn',
  },
});
let output = '';
child.stdout.on('data', (chunk) => (output += chunk));
child.stderr.on('data', (chunk) => (output += chunk));
const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));

const fail = (message) => {
  console.error(`check-start: ${message}\n--- npm start said:\n${output}`);
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // gone
  }
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(1);
};

const base = `http://127.0.0.1:${port}`;
const auth = { authorization: 'Basic ' + Buffer.from(`${partner.username}:${partner.password}`).toString('base64') };
const started = Date.now();
// the build runs first (seconds when it is up to date, a minute or two from clean)
for (;;) {
  if (child.exitCode !== null) fail(`npm start exited (${child.exitCode}) before it served`);
  if (Date.now() - started > 300_000) fail('not ready after 300 s');
  const ready = await fetch(`${base}/readyz`).then(
    (r) => r.status,
    () => 0,
  );
  if (ready === 200) break;
  await new Promise((r) => setTimeout(r, 200));
}
const ping = await fetch(`${base}/ping`, { headers: auth });
const pong = await ping.json().catch(() => undefined);
if (ping.status !== 200 || pong !== 'pong') fail(`GET /ping answered ${ping.status} ${JSON.stringify(pong)}`);
const plans = await fetch(`${base}/plans`, { headers: auth });
const list = await plans.json().catch(() => undefined);
if (plans.status !== 200 || !Array.isArray(list) || list.length === 0)
  fail(`GET /plans answered ${plans.status} ${JSON.stringify(list)}`);
const refused = await fetch(`${base}/ping`);
if (refused.status !== 401) fail(`GET /ping without credentials answered ${refused.status}`);

process.kill(-child.pid, 'SIGTERM');
const timer = setTimeout(() => fail('did not stop within 30 s of SIGTERM'), 30_000);
const { code, signal } = await exited;
clearTimeout(timer);
// npm passes SIGTERM on; Burrow closes and exits 0 (npm may report the signal instead)
if (code !== 0 && signal !== 'SIGTERM' && code !== 143) fail(`stopped with code ${code}, signal ${signal}`);
rmSync(dataDir, { recursive: true, force: true });
console.log(
  `check-start: npm start on Node ${process.version} served /ping and /plans ${((Date.now() - started) / 1000).toFixed(1)} s after it was run, and stopped cleanly`,
);
