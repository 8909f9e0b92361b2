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
 * 3. Against a peer WebDAV server on the same files, `rclone serve webdav` (issue 38: >= 0.8x each),
 *    one request at a time over one kept-alive connection, as a client walking a tree does:
 *    BENCH_DAV_GETS GETs of 4 KiB files in a row, and BENCH_DAV_PROPFINDS PROPFINDs (Depth 1, allprop)
 *    of a folder of BENCH_DAV_ENTRIES entries; rounds interleaved (peer, Burrow, peer, ...), medians
 *    of BENCH_DAV_ROUNDS, with each server's CPU per request (/proc) beside the wall-clock ratio.
 *    BENCH_DAV_PARTS picks parts (`transfer,huge,peer`; default all).
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
const PARTS = new Set((process.env.BENCH_DAV_PARTS ?? 'transfer,huge,peer').split(','));
const GETS = env('BENCH_DAV_GETS', 500);
const PROPFINDS = env('BENCH_DAV_PROPFINDS', 20);
const ENTRIES = env('BENCH_DAV_ENTRIES', 2000);
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
let peer = null;
process.on('exit', () => {
  server?.kill('SIGKILL');
  peer?.kill('SIGKILL');
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
for (let round = 0; PARTS.has('transfer') && round < ROUNDS; round++) {
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
if (PARTS.has('transfer')) {
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
}

if (PARTS.has('peer')) await againstPeer();

// one huge PUT, streamed from a generator: the server's peak memory must not follow the file's size
if (PARTS.has('huge')) {
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
}
agent.destroy();
process.exit(0);

/** CPU seconds a process has used (user + system, /proc). */
function cpuSecondsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Part 3: small GETs in a row and PROPFINDs of a large folder, Burrow against `rclone serve webdav`
 * on the same files (the peer serves them from a folder, with Basic authentication as Burrow's).
 */
async function againstPeer() {
  const device = 'peer';
  const folder = join(top, 'peer', 'many');
  mkdirSync(folder, { recursive: true });
  const names = Array.from({ length: ENTRIES }, (_, i) => `${String(i).padStart(5, '0')}.bin`);
  const res = await call('MKCOL', `/dav/${USER.username}/${device}/`, { auth: USER });
  if (res.status !== 201) throw new Error(`MKCOL ${device}: ${res.status}`);
  await pool(names, async (name) => {
    const bytes = randomBytes(4096);
    writeFileSync(join(folder, name), bytes);
    const put = await call('PUT', `/storage/${b32}/${device}/many/${name}`, {
      auth: USER,
      body: bytes,
      headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': '4096' },
    });
    if (put.status !== 201) throw new Error(`PUT ${name}: ${put.status} ${put.text}`);
  });
  const peerPort = await freePort();
  peer = spawn(
    'rclone',
    [
      'serve',
      'webdav',
      join(top, 'peer'),
      '--addr',
      `127.0.0.1:${peerPort}`,
      '--user',
      USER.username,
      '--pass',
      USER.password,
    ],
    { env: { ...process.env, RCLONE_CONFIG: '/dev/null' }, stdio: ['ignore', 'ignore', 'ignore'] },
  );
  const one = new Agent({ keepAlive: true, maxSockets: 1 });
  const ask = (url, method, headers = {}) =>
    new Promise((resolve, reject) => {
      const req = request(url, { method, agent: one, headers: { Authorization: basic(USER), ...headers } }, (r) => {
        let bytes = 0;
        let text = '';
        r.on('data', (c) => {
          bytes += c.length;
          if (method === 'PROPFIND') text += c;
        });
        r.on('end', () => resolve({ status: r.statusCode, bytes, text }));
      });
      req.on('error', reject);
      req.end();
    });
  const peerBase = `http://127.0.0.1:${peerPort}/many/`;
  const ownBase = `${base}/dav/${USER.username}/${device}/many/`;
  for (;;) {
    if (peer.exitCode !== null) throw new Error('rclone serve webdav did not start');
    try {
      if ((await ask(peerBase, 'PROPFIND', { Depth: '0' })).status === 207) break;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  const servers = [
    { name: 'rclone serve webdav', base: peerBase, pid: peer.pid },
    { name: 'Burrow WebDAV', base: ownBase, pid: server.pid },
  ];
  const gets = names.slice(0, Math.min(GETS, names.length));
  const work = {
    [`${gets.length} GETs of 4 KiB in a row`]: async (s) => {
      for (const name of gets) {
        const r = await ask(s.base + name, 'GET');
        if (r.status !== 200 || r.bytes !== 4096)
          throw new Error(`${s.name} GET ${name}: ${r.status}, ${r.bytes} bytes`);
      }
      return gets.length;
    },
    [`${PROPFINDS} PROPFINDs of ${ENTRIES} entries`]: async (s) => {
      for (let i = 0; i < PROPFINDS; i++) {
        const r = await ask(s.base, 'PROPFIND', { Depth: '1' });
        const responses = r.text.match(/<(?:[A-Za-z]+:)?response[\s>]/g)?.length ?? 0;
        if (r.status !== 207 || responses !== ENTRIES + 1)
          throw new Error(`${s.name} PROPFIND: ${r.status}, ${responses} responses`);
      }
      return PROPFINDS;
    },
  };
  console.log(
    `bench:dav against a peer: ${ENTRIES} files of 4 KiB in one folder, one request at a time on one connection, median of ${ROUNDS} interleaved rounds`,
  );
  console.log(
    `  ${'workload'.padEnd(34)} ${'server'.padEnd(20)} ${'ms/request'.padStart(10)} ${'CPU ms/req'.padStart(10)}  ratio (>= 0.8)`,
  );
  for (const [label, run] of Object.entries(work)) {
    const times = new Map(servers.map((s) => [s.name, []]));
    const cpu = new Map(servers.map((s) => [s.name, []]));
    await run(servers[0]);
    await run(servers[1]);
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of round % 2 === 0 ? servers : [...servers].reverse()) {
        const before = cpuSecondsOf(s.pid);
        const started = performance.now();
        const count = await run(s);
        times.get(s.name).push((performance.now() - started) / count);
        cpu.get(s.name).push(((cpuSecondsOf(s.pid) - before) * 1000) / count);
      }
    }
    const peerMs = median(times.get(servers[0].name));
    for (const s of servers) {
      const ms = median(times.get(s.name));
      const ratio = peerMs / ms;
      console.log(
        `  ${label.padEnd(34)} ${s.name.padEnd(20)} ${ms.toFixed(3).padStart(10)} ${median(cpu.get(s.name)).toFixed(3).padStart(10)}  ${s === servers[0] ? '1.00 (baseline)' : `${ratio.toFixed(2)}: ${ratio >= 0.8 ? 'met' : 'not met'}`}`,
      );
    }
  }
  one.destroy();
  peer.kill('SIGKILL');
  peer = null;
}
