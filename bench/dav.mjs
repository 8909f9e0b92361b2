#!/usr/bin/env node
/**
 * WebDAV throughput, in one run, against the standalone server (spawned on a temporary data dir):
 * the same files (BENCH_DAV_SMALL files of BENCH_DAV_SMALL_KIB, BENCH_DAV_LARGE of
 * BENCH_DAV_LARGE_MIB) are
 * 1. uploaded with rclone over WebDAV (`--webdav-vendor owncloud`, BENCH_DAV_TRANSFERS at a time)
 *    and with the storage write API (`PUT /storage/<b32>/<device>/<path>`, the same concurrency);
 * 2. downloaded with rclone over WebDAV, and read straight from the blob store (LocalBlobStore.get
 *    in this process, the same concurrency): the floor any HTTP download stands on.
 * It prints MiB/s and the ratios WebDAV / write API and WebDAV / direct read (medians of
 * BENCH_DAV_ROUNDS), then streams one BENCH_DAV_HUGE_MIB file through a WebDAV PUT and prints the
 * server's peak resident memory before and after (flat memory: it does not grow with the file).
 *
 *   npm run bench:dav    (needs rclone: apt-get install -y rclone)
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = new URL('..', import.meta.url).pathname;
const { LocalBlobStore } = await import(join(root, 'libs/blobs/dist/index.js'));
const { b32encode } = await import(join(root, 'apps/gateway/dist/storage-access/b32.js'));

const env = (name, fallback) => Number(process.env[name] ?? fallback);
const SMALL = env('BENCH_DAV_SMALL', 200);
const SMALL_BYTES = env('BENCH_DAV_SMALL_KIB', 64) * 1024;
const LARGE = env('BENCH_DAV_LARGE', 4);
const LARGE_BYTES = env('BENCH_DAV_LARGE_MIB', 32) * 1024 * 1024;
const TRANSFERS = env('BENCH_DAV_TRANSFERS', 4);
const ROUNDS = env('BENCH_DAV_ROUNDS', 3);
const HUGE_BYTES = env('BENCH_DAV_HUGE_MIB', 1024) * 1024 * 1024;
const MiB = 1024 * 1024;
const PARTNER = { username: 'benchpartner', password: 'bench-partner-password' };
const USER = { username: 'davbench', password: 'dav-bench-password-1' };

try {
  execFileSync('rclone', ['version'], { stdio: 'ignore' });
} catch {
  console.error('bench:dav needs rclone (apt-get install -y rclone)');
  process.exit(2);
}

const top = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'burrow-bench-dav-'));
const dataDir = join(top, 'data');
let server = null;
process.on('exit', () => {
  server?.kill('SIGKILL');
  rmSync(top, { recursive: true, force: true });
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const agent = new Agent({ keepAlive: true, maxSockets: TRANSFERS });
const basic = ({ username, password }) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

function call(method, path, { body, headers = {}, auth } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${path}`,
      { method, agent, headers: { ...headers, ...(auth ? { Authorization: basic(auth) } : {}) } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    if (body && typeof body.pipe === 'function') body.pipe(req);
    else req.end(body);
  });
}

/** Peak and current resident memory of the server (KiB), from /proc. */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { peak: field('VmHWM'), now: field('VmRSS') };
}

server = spawn(process.execPath, [join(root, 'apps/standalone/dist/main.js')], {
  env: {
    ...process.env,
    BURROW_DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    BURROW_PARTNER_USERNAME: PARTNER.username,
    BURROW_PARTNER_PASSWORD: PARTNER.password,
    BURROW_PREVIEW_CONCURRENCY: '0',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
for (;;) {
  if (server.exitCode !== null) throw new Error('the server did not start');
  try {
    if ((await call('GET', '/readyz')).status === 200) break;
  } catch {
    // not listening yet
  }
  await sleep(100);
}
const plans = JSON.parse((await call('GET', '/plans', { auth: PARTNER })).text);
const unlimited = plans.find((p) => p.storage_bytes >= 1e18) ?? plans[plans.length - 1];
const created = await call('POST', '/users/', {
  auth: PARTNER,
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ ...USER, name: 'Bench', email: 'davbench@example.com', plan_id: unlimited.plan_id }),
});
if (created.status !== 201) throw new Error(`user: ${created.status} ${created.text}`);

// the data set, on disk for rclone and in memory for the write API
const src = join(top, 'src');
const files = [];
for (let i = 0; i < SMALL; i++)
  files.push({ path: `small/${String(i).padStart(4, '0')}.bin`, bytes: randomBytes(SMALL_BYTES) });
for (let i = 0; i < LARGE; i++) files.push({ path: `large/${i}.bin`, bytes: randomBytes(LARGE_BYTES) });
for (const f of files) {
  mkdirSync(join(src, f.path, '..'), { recursive: true });
  writeFileSync(join(src, f.path), f.bytes);
}
const totalMiB = files.reduce((sum, f) => sum + f.bytes.length, 0) / MiB;

const obscured = execFileSync('rclone', ['obscure', USER.password], { encoding: 'utf8' }).trim();
const rcloneEnv = {
  ...process.env,
  RCLONE_CONFIG: '/dev/null',
  RCLONE_CONFIG_BURROW_TYPE: 'webdav',
  RCLONE_CONFIG_BURROW_URL: `${base}/dav/${USER.username}/`,
  RCLONE_CONFIG_BURROW_VENDOR: 'owncloud',
  RCLONE_CONFIG_BURROW_USER: USER.username,
  RCLONE_CONFIG_BURROW_PASS: obscured,
};
const rclone = (...args) =>
  run('rclone', [...args, '--transfers', String(TRANSFERS), '--checkers', String(TRANSFERS)], {
    env: rcloneEnv,
    maxBuffer: 1 << 24,
  });

async function timed(work) {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

async function pool(items, worker) {
  let next = 0;
  await Promise.all(
    Array.from({ length: TRANSFERS }, async () => {
      while (next < items.length) await worker(items[next++]);
    }),
  );
}

const b32 = b32encode(USER.username);
const results = { davUp: [], apiUp: [], davDown: [], direct: [] };
for (let round = 0; round < ROUNDS; round++) {
  const device = `round${round}`;
  for (const d of [`${device}-dav`, `${device}-api`]) {
    const res = await call('MKCOL', `/dav/${USER.username}/${d}/`, { auth: USER });
    if (res.status !== 201) throw new Error(`MKCOL ${d}: ${res.status}`);
  }
  results.davUp.push(await timed(() => rclone('copy', src, `burrow:${device}-dav`)));
  results.apiUp.push(
    await timed(() =>
      pool(files, async (f) => {
        const res = await call('PUT', `/storage/${b32}/${device}-api/${f.path}`, {
          auth: USER,
          body: f.bytes,
          headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': String(f.bytes.length) },
        });
        if (res.status !== 201) throw new Error(`PUT ${f.path}: ${res.status} ${res.text}`);
      }),
    ),
  );
  const back = join(top, `back${round}`);
  results.davDown.push(await timed(() => rclone('copy', `burrow:${device}-dav`, back)));
  rmSync(back, { recursive: true, force: true });
  const blobs = new LocalBlobStore(join(dataDir, 'blobs'));
  const keys = files.map((f) => ({
    key: execFileSync('sha256sum', [join(src, f.path)], { encoding: 'utf8' }).slice(0, 64),
    size: f.bytes.length,
  }));
  results.direct.push(
    await timed(() =>
      pool(keys, async ({ key }) => {
        const stream = await blobs.get(key);
        for await (const _chunk of stream) void _chunk;
      }),
    ),
  );
}

const rate = (seconds) => totalMiB / seconds;
const fmt = (n) => n.toFixed(1).padStart(7);
console.log(
  `bench:dav  ${files.length} files, ${totalMiB.toFixed(0)} MiB (${SMALL} x ${SMALL_BYTES / 1024} KiB + ${LARGE} x ${LARGE_BYTES / MiB} MiB), ${TRANSFERS} at a time, median of ${ROUNDS}`,
);
console.log(`  upload   rclone WebDAV        ${fmt(rate(median(results.davUp)))} MiB/s`);
console.log(
  `  upload   storage write API    ${fmt(rate(median(results.apiUp)))} MiB/s   WebDAV / write API  ${(median(results.apiUp) / median(results.davUp)).toFixed(2)}`,
);
console.log(`  download rclone WebDAV        ${fmt(rate(median(results.davDown)))} MiB/s`);
console.log(
  `  download direct blob read     ${fmt(rate(median(results.direct)))} MiB/s   WebDAV / direct     ${(median(results.direct) / median(results.davDown)).toFixed(2)}`,
);

// one huge PUT, streamed from a generator: the server's peak memory must not follow the file's size
await call('MKCOL', `/dav/${USER.username}/huge/`, { auth: USER });
const before = memoryOf(server.pid);
const chunk = randomBytes(MiB);
let sent = 0;
const { Readable } = await import('node:stream');
const body = new Readable({
  read() {
    if (sent >= HUGE_BYTES) this.push(null);
    else {
      sent += chunk.length;
      this.push(chunk);
    }
  },
});
const hugeSeconds = await timed(async () => {
  const res = await call('PUT', `/dav/${USER.username}/huge/huge.bin`, {
    auth: USER,
    body,
    headers: { 'Content-Length': String(HUGE_BYTES) },
  });
  if (res.status !== 201) throw new Error(`huge PUT: ${res.status} ${res.text}`);
});
const after = memoryOf(server.pid);
console.log(
  `  one ${HUGE_BYTES / MiB} MiB WebDAV PUT: ${fmt(HUGE_BYTES / MiB / hugeSeconds)} MiB/s; server peak RSS ${(before.peak / 1024).toFixed(0)} MiB before, ${(after.peak / 1024).toFixed(0)} MiB after`,
);
agent.destroy();
process.exit(0);
