#!/usr/bin/env node
/**
 * Ingest and listing, in one run, against the standalone server (`apps/standalone/dist/main.js`,
 * spawned as a child process on a temporary BURROW_DATA_DIR and a free PORT):
 *
 * 1. Uploads: a partner's user (interface A `POST /users/`) registers a device
 *    (`PUT /storage/<b32>/<device>/`) and uploads files (`PUT <file url>`): many small files, then a
 *    few large ones, each workload also written straight to a LocalBlobStore (`put`, in this
 *    process) and PUT to a bare Node `http` server that writes each body to a file and fsyncs it
 *    (bench/bare-put-server.mjs, its own process), with the same bytes and the same concurrency.
 *    Prints files/s, MiB/s, CPU ms per MiB
 *    (the server's, read from /proc, counted until it is idle again so the work the uploads set off
 *    in the background, previews, is included; the bench's own HTTP client is not counted) and the
 *    ratios gateway / direct and gateway / bare server, each as measured / target (issue 23: small
 *    files >= 0.5x direct, large files >= 0.8x). Rounds alternate the contenders; medians are kept.
 *    Large files are also put directly with the digests a gateway upload computes (SHA-1, MD5 and
 *    CRC-32 besides the SHA-256 name, issue 40), which the plain direct put does not: that row shows
 *    what share of the gap to the direct put is the checksums' hashing.
 * 0. Hashing: what an upload's bytes go through in the gateway's one pass (transfers/ingest.ts), per MiB
 *    of CPU, in this process: before issue 40 (the blob store's sha256 and the CRC-32) and after it
 *    (the same plus SHA-1 and MD5, the checksums WebDAV serves), in alternating rounds over the
 *    same 64 KiB chunks (the size Node's HTTP server hands a request's body in). The difference is
 *    what the checksums cost per MiB uploaded.
 * 2. Listings: a 1,000-file and a 100,000-file folder, listed with `GET <folder url>/` (the gateway
 *    streams the folder a catalog page at a time, the same page size for both): time to the first
 *    byte (one page), to the whole response, and the server's CPU per response, side by side.
 *    Uploading 100,000 files through the gateway would take an hour on this machine, so both
 *    folders are seeded instead: the server is stopped, a `FileVersionCommitted` per file (what a
 *    commit appends to the file's stream) is appended to its event store, and the server is started
 *    again and rebuilds its read models from the events (that start is timed too).
 *
 * 1b. Latency (issue 37): BENCH_SEQUENTIAL small PUTs one after another over one keep-alive
 *    connection, through the storage interface, through WebDAV and to the bare server: median and
 *    90th percentile ms per PUT, and each / the bare server's.
 *
 * Small files are uploaded at each of BENCH_CONCURRENCIES (default 1, 4 and 32 at a time); every
 * upload table also gives the server's CPU per upload (server CPU ms / uploads), and its main
 * thread's alone (/proc/<pid>/task/<pid>/stat): where cores are spare that bounds one process,
 * which the wall-clock ratios on a machine the bench itself fills cannot show.
 *
 *   npm run bench:ingest     (BENCH_FILES small files, default 1000; BENCH_SMALL_KIB, default 4;
 *                             BENCH_LARGE large files, default 6 (0: none); BENCH_LARGE_MIB, default 16;
 *                             BENCH_CONCURRENCIES, default 1,4,32 (small files); BENCH_CONCURRENCY, default 4
 *                             (large files: at most 2 of it); BENCH_SEQUENTIAL, default 200 (0: no latency part); BENCH_ROUNDS, default 3;
 *                             BENCH_LIST_FILES, default 100000 (0: no listing part); BENCH_HASH_MIB, default 256
                             (0: no hashing part); BENCH_ONLY_HASHING=1: the hashing part alone; BENCH_DIR; BENCH_SERVER_NODE_ARGS,
 *                             e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the server)
 */
import { spawn, execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';

const root = new URL('..', import.meta.url).pathname;
const { LocalBlobStore } = await import(join(root, 'libs/blobs/dist/index.js'));
const { SqliteEventStore } = await import(join(root, 'libs/event-store/dist/index.js'));
const { sqliteDriver } = await import(join(root, 'libs/sqlite/dist/index.js'));
const { appendEvents } = await import(join(root, 'libs/eventsourcing/dist/index.js'));
const { fileIdOf, LISTING_PAGE_DEFAULT } = await import(join(root, 'libs/contracts/dist/index.js'));
const { b32encode } = await import(join(root, 'apps/gateway/dist/storage-access/b32.js'));

const env = (name, fallback) => Number(process.env[name] ?? fallback);
const FILES = env('BENCH_FILES', 1000);
const SMALL = env('BENCH_SMALL_KIB', 4) * 1024;
const LARGE_FILES = env('BENCH_LARGE', 6);
const LARGE = env('BENCH_LARGE_MIB', 16) * 1024 * 1024;
const CONCURRENCY = env('BENCH_CONCURRENCY', 4);
const CONCURRENCIES = (process.env.BENCH_CONCURRENCIES ?? '1,4,32')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const SEQUENTIAL = env('BENCH_SEQUENTIAL', 200);
const ROUNDS = env('BENCH_ROUNDS', 3);
const LIST_FILES = env('BENCH_LIST_FILES', 100_000);
const LIST_ROUNDS = 5;
const HASH_MIB = env('BENCH_HASH_MIB', 256);
const MiB = 1024 * 1024;

const top = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'burrow-bench-ingest-'));
const dataDir = join(top, 'data');
let server = null;
process.on('exit', () => {
  server?.kill('SIGKILL');
  rmSync(top, { recursive: true, force: true });
});

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU ms a process has used (user + system), from /proc; with `mainThread`, its main thread's alone. */
function cpuMsOf(pid, mainThread = false) {
  const stat = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

/** Waits until the process has used (almost) no CPU for `quietMs`, 30 s at most; its CPU ms then. */
async function cpuWhenIdle(pid, quietMs = 1000) {
  let last = cpuMsOf(pid);
  for (let waited = 0; waited < 30_000; waited += quietMs) {
    await sleep(quietMs);
    const now = cpuMsOf(pid);
    // idle but for the event store's polling, a few ticks a second
    if (now - last <= (3 * 1000) / CLK_TCK) return now;
    last = now;
  }
  return last;
}

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

// ---- the server ------------------------------------------------------------------------------
const PARTNER = { username: 'bench-partner', password: 'bench-partner-password' };
const USER = { username: 'bench.user', password: 'bench-user-password' };
const DEVICE = 'bench-laptop';
let port = 0;
const newAgent = (sockets = Math.max(CONCURRENCY, ...CONCURRENCIES, 2)) =>
  new Agent({ keepAlive: true, maxSockets: sockets });
let agent = newAgent();
/**
 * Fresh connections for each contender's round: a connection left idle during the other
 * contenders' rounds may be closed by its server (Node's 5 s keep-alive timeout) just as the next
 * request is written on it, which fails that request with EPIPE.
 */
function freshConnections(sockets) {
  agent.destroy();
  agent = newAgent(sockets);
}

async function startServer() {
  port ||= await freePort();
  const started = performance.now();
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  server = spawn(process.execPath, [...nodeArgs, join(root, 'apps/standalone/dist/main.js')], {
    env: {
      ...process.env,
      BURROW_DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      BURROW_PARTNER_USERNAME: PARTNER.username,
      BURROW_PARTNER_PASSWORD: PARTNER.password,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  server.once('exit', (code) => code && code !== 0 && code !== null && console.error(`server exited with ${code}`));
  for (;;) {
    if (server.exitCode !== null) throw new Error('the server did not start');
    try {
      if ((await call('GET', '/readyz')).status === 200) return performance.now() - started;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
}

async function stopServer() {
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  await exited;
  server = null;
}

const basic = ({ username, password }) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

/**
 * One HTTP request; resolves with the status, the body (unless `discard`), and the times to the
 * first body byte and to the end, in ms.
 */
function call(method, path, { auth, body, headers = {}, discard = false, to = port } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      {
        host: '127.0.0.1',
        port: to,
        method,
        path,
        agent,
        headers: { ...headers, ...(auth ? { authorization: basic(auth) } : {}) },
      },
      (res) => {
        const chunks = [];
        let firstByte = null;
        let bytes = 0;
        res.on('data', (chunk) => {
          firstByte ??= performance.now() - started;
          bytes += chunk.length;
          if (!discard) chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            body: Buffer.concat(chunks),
            bytes,
            firstByte,
            total: performance.now() - started,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function expect(status, promise, what) {
  const res = await promise;
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.body.toString().slice(0, 300)}`);
  return res;
}

const storagePath = (path) =>
  `/storage/${b32encode(USER.username)}/${DEVICE}/${path.split('/').map(encodeURIComponent).join('/')}`;

// ---- uploads ---------------------------------------------------------------------------------
/** Runs `work(i)` for i < n, `concurrency` at a time. */
async function pool(n, concurrency, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

async function viaGateway(contents, folder, concurrency) {
  freshConnections();
  const before = cpuMsOf(server.pid);
  const beforeMain = cpuMsOf(server.pid, true);
  const started = performance.now();
  await pool(contents.length, concurrency, (i) =>
    expect(
      201,
      call('PUT', storagePath(`${folder}/f${String(i).padStart(6, '0')}.bin`), {
        auth: USER,
        body: contents[i],
        headers: { 'content-type': 'application/octet-stream' },
      }),
      'upload',
    ),
  );
  const ms = performance.now() - started;
  const cpuMs = (await cpuWhenIdle(server.pid)) - before;
  return { ms, cpuMs, mainMs: cpuMsOf(server.pid, true) - beforeMain };
}

// ---- the bare server baseline -----------------------------------------------------------------
let bare = null;
async function startBare() {
  const folder = join(top, 'bare');
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder);
  bare = spawn(process.execPath, [join(root, 'bench/bare-put-server.mjs'), folder], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = await once(bare.stdout, 'data');
  bare.port = Number(line.toString().trim());
}
process.on('exit', () => bare?.kill('SIGKILL'));

async function viaBare(contents, concurrency) {
  freshConnections();
  const before = cpuMsOf(bare.pid);
  const beforeMain = cpuMsOf(bare.pid, true);
  const started = performance.now();
  await pool(contents.length, concurrency, (i) =>
    expect(201, call('PUT', `/f${i}`, { body: contents[i], to: bare.port }), 'bare upload'),
  );
  const ms = performance.now() - started;
  const cpuMs = (await cpuWhenIdle(bare.pid)) - before;
  return { ms, cpuMs, mainMs: cpuMsOf(bare.pid, true) - beforeMain };
}

/** `checksums`: the digests a gateway upload computes (SHA-1, MD5, CRC-32 besides the SHA-256 name). */
async function direct(contents, concurrency, round, checksums = false) {
  const store = new LocalBlobStore(join(top, `direct-${round}-${contents.length}${checksums ? '-sums' : ''}`));
  const cpu = process.cpuUsage();
  const beforeMain = cpuMsOf(process.pid, true);
  const started = performance.now();
  await pool(contents.length, concurrency, (i) => store.put(Readable.from([contents[i]]), { checksums }));
  const ms = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  return { ms, cpuMs: (user + system) / 1000, mainMs: cpuMsOf(process.pid, true) - beforeMain };
}

async function uploadWorkload(label, count, size, concurrency, target) {
  if (count === 0) return; // BENCH_LARGE=0: the small files alone (e.g. to profile them)
  // large files: also the direct put doing the gateway's hashing, so the ratio's share that is the
  // checksums WebDAV serves (work the plain direct put does not do) shows
  const sums = size >= MiB;
  const results = { gateway: [], direct: [], bare: [], ...(sums ? { directSums: [] } : {}) };
  for (let round = 0; round < ROUNDS; round++) {
    // fresh random bytes every round and every contender: nothing is stored already
    const make = () => Array.from({ length: count }, () => randomBytes(size));
    results.direct.push(await direct(make(), concurrency, round));
    if (sums) results.directSums.push(await direct(make(), concurrency, round, true));
    results.bare.push(await viaBare(make(), concurrency));
    results.gateway.push(await viaGateway(make(), `upload-${label.replace(/\W+/g, '-')}-${round}`, concurrency));
  }
  const mib = (count * size) / MiB;
  const summary = Object.fromEntries(
    Object.entries(results).map(([name, runs]) => {
      const ms = median(runs.map((r) => r.ms));
      const cpuMs = median(runs.map((r) => r.cpuMs));
      const mainMs = median(runs.map((r) => r.mainMs));
      return [
        name,
        {
          filesPerS: count / (ms / 1000),
          mibPerS: mib / (ms / 1000),
          cpuPerMiB: cpuMs / mib,
          cpuPerFile: cpuMs / count,
          mainPerFile: mainMs / count,
          mainPerMiB: mainMs / mib,
        },
      ];
    }),
  );
  const g = summary.gateway;
  const d = summary.direct;
  console.log(
    `\n${label}: ${count} files of ${size >= MiB ? `${size / MiB} MiB` : `${size / 1024} KiB`} (${mib.toFixed(1)} MiB), ${concurrency} at a time, median of ${ROUNDS} rounds`,
  );
  console.log(
    'path                          files/s     MiB/s   CPU ms/MiB   CPU ms/upload   main thread ms/MiB   main thread ms/upload',
  );
  const row = (name, r) =>
    console.log(
      `${name} ${r.filesPerS.toFixed(1).padStart(9)} ${r.mibPerS.toFixed(1).padStart(9)} ${r.cpuPerMiB.toFixed(0).padStart(12)} ${r.cpuPerFile.toFixed(2).padStart(15)} ${r.mainPerMiB.toFixed(2).padStart(20)} ${r.mainPerFile.toFixed(2).padStart(23)}`,
    );
  row('gateway PUT (HTTP, commit) ', g);
  row('LocalBlobStore.put direct  ', d);
  const ds = summary.directSums;
  if (ds) row('put direct, gateway digests', ds);
  const b = summary.bare;
  row('bare Node server + fsync   ', b);
  console.log(
    `gateway / direct            ${(g.filesPerS / d.filesPerS).toFixed(2).padStart(9)} ${(g.mibPerS / d.mibPerS).toFixed(2).padStart(9)} ${(g.cpuPerMiB / d.cpuPerMiB).toFixed(2).padStart(12)}`,
  );
  if (ds)
    console.log(
      `gateway / direct, same digests ${(g.filesPerS / ds.filesPerS).toFixed(2).padStart(6)} ${(g.mibPerS / ds.mibPerS).toFixed(2).padStart(9)} ${(g.cpuPerMiB / ds.cpuPerMiB).toFixed(2).padStart(12)}`,
    );
  console.log(
    `gateway / bare server       ${(g.filesPerS / b.filesPerS).toFixed(2).padStart(9)} ${(g.mibPerS / b.mibPerS).toFixed(2).padStart(9)} ${(g.cpuPerMiB / b.cpuPerMiB).toFixed(2).padStart(12)}`,
  );
  const ratio = g.filesPerS / d.filesPerS;
  const bareRatio = g.filesPerS / b.filesPerS;
  console.log(
    `target: gateway / direct ${ratio.toFixed(2)} / ${target.toFixed(2)} -> ${ratio >= target ? 'met' : 'NOT met'}; gateway / bare ${bareRatio.toFixed(2)} / ${target.toFixed(2)} -> ${bareRatio >= target ? 'met' : 'NOT met'} (load ${loadavg()[0].toFixed(1)})`,
  );
  // Where cores are spare, a process is bound by its main thread: this is the ceiling that the
  // wall-clock ratios above cannot show on a machine whose cores the bench itself fills.
  const ceiling = (r) => `${(mib / ((r.mainPerMiB * mib) / 1000)).toFixed(0)} MiB/s`;
  console.log(
    `main thread per MiB (bounds one process where a core is spare): gateway ${g.mainPerMiB.toFixed(2)} ms (at most ${ceiling(g)}), direct ${d.mainPerMiB.toFixed(2)} ms (${ceiling(d)}), bare ${b.mainPerMiB.toFixed(2)} ms (${ceiling(b)}); gateway / direct ceilings ${(d.mainPerMiB / g.mainPerMiB).toFixed(2)}`,
  );
}

// ---- latency of sequential small PUTs over one connection ---------------------------------------
const davPath = (path) => `/dav/${encodeURIComponent(USER.username)}/${DEVICE}/${path}`;

/**
 * `count` PUTs one after another over one connection to the server `pid`: ms per PUT (sorted),
 * and its CPU ms per PUT, all threads (once it is idle again) and the main thread's alone.
 */
async function sequential(count, pid, put) {
  freshConnections(1);
  const times = [];
  const before = cpuMsOf(pid);
  const beforeMain = cpuMsOf(pid, true);
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await put(i, randomBytes(SMALL));
    times.push(performance.now() - started);
  }
  const mainMs = cpuMsOf(pid, true) - beforeMain;
  const cpuMs = (await cpuWhenIdle(pid)) - before;
  return Object.assign(
    times.sort((a, b) => a - b),
    { cpuPerPut: cpuMs / count, mainPerPut: mainMs / count },
  );
}

async function latency() {
  const at = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
  const runs = {
    'storage interface PUT': await sequential(SEQUENTIAL, server.pid, (i, body) =>
      expect(
        201,
        call('PUT', storagePath(`seq/f${String(i).padStart(6, '0')}.bin`), {
          auth: USER,
          body,
          headers: { 'content-type': 'application/octet-stream' },
        }),
        'sequential upload',
      ),
    ),
    'WebDAV PUT           ': await sequential(SEQUENTIAL, server.pid, (i, body) =>
      expect(201, call('PUT', davPath(`dav-seq-${i}.bin`), { auth: USER, body }), 'sequential WebDAV upload'),
    ),
    'bare Node server     ': await sequential(SEQUENTIAL, bare.pid, (i, body) =>
      expect(201, call('PUT', `/seq${i}`, { body, to: bare.port }), 'sequential bare upload'),
    ),
  };
  const bareMedian = at(runs['bare Node server     '], 0.5);
  console.log(
    `\nLatency: ${SEQUENTIAL} PUTs of ${SMALL / 1024} KiB one after another over one connection (load ${loadavg()[0].toFixed(1)})`,
  );
  console.log('path                    median ms   p90 ms   median / bare   CPU ms/PUT   main thread ms/PUT');
  for (const [name, t] of Object.entries(runs)) {
    console.log(
      `${name} ${at(t, 0.5).toFixed(2).padStart(11)} ${at(t, 0.9).toFixed(2).padStart(8)} ${(at(t, 0.5) / bareMedian).toFixed(2).padStart(15)} ${t.cpuPerPut.toFixed(2).padStart(12)} ${t.mainPerPut.toFixed(2).padStart(20)}`,
    );
  }
  console.log('target (issue 37): median <= 2x the bare server');
}

// ---- seeding the listed folders --------------------------------------------------------------
/** Appends a `FileVersionCommitted` per file (one stream each) to the stopped server's event store. */
async function seedFolder(store, device, folder, count, blob) {
  const at = Math.floor(Date.now() / 1000);
  for (let i = 0; i < count; i++) {
    const path = `${folder}/f${String(i).padStart(6, '0')}.bin`;
    const fileId = fileIdOf(device.deviceId, path);
    const data = {
      fileId,
      deviceId: device.deviceId,
      userId: device.userId,
      partnerId: device.partnerId,
      path,
      version: 0,
      size: blob.size,
      blob: blob.key,
      crc32: blob.crc32,
      mtime: at,
      ctime: at,
      at,
    };
    await appendEvents(store, `file-${fileId}`, [{ type: 'FileVersionCommitted', data }], 'no_stream');
  }
}

async function listing(folder) {
  const runs = [];
  for (let i = 0; i < LIST_ROUNDS; i++) {
    const before = cpuMsOf(server.pid);
    const res = await expect(
      200,
      call('GET', `${storagePath(folder)}/`, { auth: USER, discard: true }),
      `listing ${folder}`,
    );
    runs.push({ firstByte: res.firstByte, total: res.total, bytes: res.bytes, cpuMs: cpuMsOf(server.pid) - before });
  }
  return {
    firstByte: median(runs.map((r) => r.firstByte)),
    total: median(runs.map((r) => r.total)),
    bytes: runs[0].bytes,
    cpuMs: median(runs.map((r) => r.cpuMs)),
  };
}

// ---- hashing ---------------------------------------------------------------------------------
/** CPU ms per MiB of one pass over `chunks`: sha256 and CRC-32 (before), plus SHA-1 and MD5 (after). */
function hashPass(chunks, withChecksums) {
  const cpu = process.cpuUsage();
  const sha256 = createHash('sha256');
  const sha1 = withChecksums ? createHash('sha1') : null;
  const md5 = withChecksums ? createHash('md5') : null;
  let crc = 0;
  for (const chunk of chunks) {
    sha256.update(chunk);
    crc = crc32(chunk, crc);
    sha1?.update(chunk);
    md5?.update(chunk);
  }
  sha256.digest();
  sha1?.digest();
  md5?.digest();
  const { user, system } = process.cpuUsage(cpu);
  return (user + system) / 1000 / ((chunks.length * 64 * 1024) / MiB);
}

function hashing() {
  const chunks = Array.from({ length: (HASH_MIB * MiB) / (64 * 1024) }, () => randomBytes(64 * 1024));
  hashPass(chunks.slice(0, 64), true); // warm up
  const before = [];
  const after = [];
  for (let round = 0; round < 5; round++) {
    before.push(hashPass(chunks, false));
    after.push(hashPass(chunks, true));
  }
  const b = median(before);
  const a = median(after);
  console.log(
    `\nHashing an upload's bytes in one pass (${HASH_MIB} MiB in 64 KiB chunks, this process, median of 5 alternating rounds)`,
  );
  console.log('pass                                   CPU ms/MiB');
  console.log(`before: sha256 + CRC-32                ${b.toFixed(2).padStart(10)}`);
  console.log(`after:  sha256 + CRC-32 + SHA-1 + MD5  ${a.toFixed(2).padStart(10)}`);
  console.log(
    `the checksums cost ${(a - b).toFixed(2)} CPU ms per MiB (x${(a / b).toFixed(2)} the hashing before), load ${loadavg()[0].toFixed(1)}`,
  );
}

// ---- the run ---------------------------------------------------------------------------------
console.log(
  `Ingest and listing through the standalone server, ${new Date().toISOString()}, node ${process.version}, load ${loadavg()[0].toFixed(1)} (2 cores)`,
);
if (HASH_MIB > 0) hashing();
if (process.env.BENCH_ONLY_HASHING === '1') process.exit(0);
const firstStart = await startServer();
console.log(`server started in ${(firstStart / 1000).toFixed(1)} s (empty data dir)`);
await expect(
  201,
  call('POST', '/users/', {
    auth: PARTNER,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Bench User',
      email: 'bench.user@example.com',
      username: USER.username,
      password: USER.password,
    }),
  }),
  'creating the user',
);
const registration = await call('PUT', storagePath(''), {
  auth: USER,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ sysplatform: 'linux', client_revision: 1 }),
});
if (registration.status !== 200 && registration.status !== 201)
  throw new Error(`registering the device: ${registration.status} ${registration.body}`);

await startBare();
for (const concurrency of CONCURRENCIES)
  await uploadWorkload(`Small files x${concurrency}`, FILES, SMALL, concurrency, 0.5);
if (SEQUENTIAL > 0) await latency();
await uploadWorkload('Large files', LARGE_FILES, LARGE, Math.min(CONCURRENCY, 2), 0.9);
bare.kill();
if (LIST_FILES === 0) {
  await stopServer();
  process.exit(0);
}

await stopServer();
const store = SqliteEventStore.open(join(dataDir, 'events.sqlite'), { synchronous: 'normal' });
const device = registeredDevice();
const content = Buffer.from('a listed file\n');
const blob = {
  ...(await new LocalBlobStore(join(dataDir, 'blobs')).put(Readable.from([content]))),
  crc32: crc32(content) >>> 0,
};
const seedStarted = performance.now();
await seedFolder(store, device, 'list-1k', 1000, blob);
await seedFolder(store, device, `list-${LIST_FILES / 1000}k`, LIST_FILES, blob);
const events = await store.headPosition();
await store.close();
console.log(
  `\nseeded ${1000 + LIST_FILES} files in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s (FileVersionCommitted appended to the stopped server's event store)`,
);
const restart = await startServer();
console.log(`server started again in ${(restart / 1000).toFixed(1)} s (read models rebuilt from ${events} events)`);

const bigName = `list-${LIST_FILES / 1000}k`;
const small = await listing('list-1k');
const big = await listing(bigName);
console.log(
  `\nListing GET <folder url>/ (streamed ${LISTING_PAGE_DEFAULT} entries per catalog page), median of ${LIST_ROUNDS}`,
);
console.log('folder          files   first byte ms   whole ms   MiB   server CPU ms   ms per 1k files');
for (const [name, files, r] of [
  ['list-1k', 1000, small],
  [bigName, LIST_FILES, big],
]) {
  console.log(
    `${name.padEnd(12)} ${String(files).padStart(8)} ${r.firstByte.toFixed(1).padStart(15)} ${r.total.toFixed(0).padStart(10)} ${(r.bytes / MiB).toFixed(1).padStart(5)} ${r.cpuMs.toFixed(0).padStart(15)} ${((r.total / files) * 1000).toFixed(1).padStart(17)}`,
  );
}
console.log(
  `${bigName} / list-1k: first byte x${(big.firstByte / small.firstByte).toFixed(2)} (same page size: should stay near 1), whole x${(big.total / small.total).toFixed(1)} for x${LIST_FILES / 1000} the files`,
);
await stopServer();
console.log(
  `\nload average at the end: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} (2 cores; a loaded machine is slower: read the ratios and CPU figures)`,
);
process.exit(0);

/** The one device the run registered (its ids), read from the stopped server's event store. */
function registeredDevice() {
  const db = sqliteDriver().open(join(dataDir, 'events.sqlite'));
  try {
    const rows = db.prepare("SELECT data FROM events WHERE type = 'DeviceRegistered'").all();
    if (rows.length !== 1) throw new Error(`expected one registered device, found ${rows.length}`);
    return JSON.parse(rows[0].data);
  } finally {
    db.close();
  }
}
