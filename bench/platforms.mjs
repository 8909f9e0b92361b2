#!/usr/bin/env node
/**
 * Nest's Express and Fastify platforms side by side (issue 23: "measure the Express and Fastify
 * platforms of Nest side by side and keep the faster one if it still streams request and response
 * bodies with backpressure"), each against a bare Node `http` server serving the same routes, all
 * in the same run, each server in its own process (bench/nest-platform-server.mjs):
 * - `GET /users/<u>`: one user's JSON behind a guard, BENCH_REQUESTS requests, BENCH_CONCURRENCY
 *   at a time: req/s, p50 and the server's CPU per request;
 * - `GET` of a 1 MiB file, one after another (the download target's workload): MiB/s and server
 *   CPU per request;
 * - `PUT` of 4 KiB bodies, 4 at a time (the ingest workload without the disk's fsync);
 * - streaming: a 256 MiB upload and a 256 MiB download each, with the server's peak RSS (a platform
 *   that buffered a body would hold it all).
 * Prints each platform / bare and Fastify / Express.
 *
 *   npm run bench:platforms
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, truncate } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureConcurrently } from './concurrent.mjs';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const DOWNLOADS = Number(process.env.BENCH_DOWNLOADS ?? 200);
const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 1000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);
/** the size of the bare server's answer to GET /users/user-1: every contender must answer the same */
let userJsonBytes;
const BIG = 256 * 1024 * 1024;
const CLOCK_TICK_US = 1e6 / 100; // /proc's utime and stime are in USER_HZ (100/s on Linux)

function call(port, path, { method = 'GET', body, agent, sink } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        agent,
        headers: {
          authorization: 'Basic dTpw',
          ...(body !== undefined
            ? { 'content-type': 'application/octet-stream', 'content-length': body.length ?? body.size }
            : {}),
        },
      },
      (res) => {
        let size = 0;
        res.on('data', (c) => (size += c.length));
        res.on('end', () =>
          res.statusCode < 400 ? resolve(size) : reject(new Error(`${method} ${path}: ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    if (body === undefined) req.end();
    else if (Buffer.isBuffer(body)) req.end(body);
    else body.stream(req); // a generated large body
    void sink;
  });
}

async function serverStats(pid) {
  const stat = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return {
    cpuUs: (Number(stat[11]) + Number(stat[12])) * CLOCK_TICK_US,
    hwmMiB: Number(/VmHWM:\s+(\d+)/.exec(status)[1]) / 1024,
  };
}

async function start(platform, folder) {
  const child = spawn(
    process.execPath,
    [new URL('./nest-platform-server.mjs', import.meta.url).pathname, platform, folder],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve(Number(String(d).trim())));
    child.once('exit', (code) => reject(new Error(`${platform} server exited (${code})`)));
  });
  return { child, port };
}

/** `count` calls, `concurrency` at a time, after a warm-up; req/s, p50 ms and server CPU µs per call. */
async function measure(pid, count, concurrency, make) {
  for (let i = 0; i < Math.min(WARMUP, count); i++) await make(i); // outside the CPU window
  const before = await serverStats(pid);
  const { rps, p50 } = await measureConcurrently(make, { count, concurrency, warmup: 0 });
  const after = await serverStats(pid);
  return { rps, p50, cpuUs: (after.cpuUs - before.cpuUs) / count };
}

/** A body of `size` zero bytes written in 1 MiB chunks as the socket drains. */
const generated = (size) => ({
  size,
  stream(req) {
    const chunk = Buffer.alloc(1024 * 1024);
    let left = size;
    const write = () => {
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        left -= n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  },
});

async function run(platform, folder) {
  const { child, port } = await start(platform, folder);
  try {
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    // like for like: every contender answers the same bytes and refuses a request without credentials
    const size = await call(port, '/users/user-1', { agent });
    userJsonBytes ??= size;
    if (size !== userJsonBytes || size < 100)
      throw new Error(`${platform}: GET /users/<u> answered ${size} bytes, the bare server ${userJsonBytes}`);
    const anonymous = await new Promise((resolve) =>
      request({ host: '127.0.0.1', port, path: '/users/user-1' }, (res) => resolve(res.resume().statusCode)).end(),
    );
    if (anonymous !== 401) throw new Error(`${platform}: GET /users/<u> without credentials answered ${anonymous}`);
    const users = await measure(child.pid, REQUESTS, CONCURRENCY, (i) =>
      call(port, `/users/user-${i % 100}`, { agent }),
    );
    const downloads = await measure(child.pid, DOWNLOADS, 1, () => call(port, '/blobs/one-mib', { agent }));
    const small = Buffer.alloc(4096, 7);
    const uploads = await measure(child.pid, UPLOADS, 4, (i) =>
      call(port, `/blobs/up-${i % 64}`, { method: 'PUT', body: small, agent }),
    );
    const bigUp = await call(port, '/blobs/big-up', { method: 'PUT', body: generated(BIG), agent }).then(
      () => true,
      () => false,
    );
    const bigDown = await call(port, '/blobs/big', { agent });
    const { hwmMiB } = await serverStats(child.pid);
    agent.destroy();
    return { users, downloads, uploads, streamed: bigUp && bigDown === BIG, hwmMiB };
  } finally {
    child.kill();
  }
}

const folder = await mkdtemp(join(tmpdir(), 'burrow-bench-platforms-'));
try {
  await writeFile(join(folder, 'one-mib'), Buffer.alloc(1024 * 1024, 1));
  await writeFile(join(folder, 'big'), '');
  await truncate(join(folder, 'big'), BIG);
  console.log(
    `bench:platforms: ${REQUESTS} GET /users/<u> (${CONCURRENCY} at a time), ${DOWNLOADS} x 1 MiB GET one after another, ${UPLOADS} x 4 KiB PUT (4 at a time), 256 MiB each way; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const results = {};
  for (const platform of ['bare', 'express', 'fastify', 'bare']) {
    // the bare server runs first and last: its two runs show how much the machine drifted meanwhile
    const r = await run(platform, folder);
    results[platform] = results[platform] && platform === 'bare' ? bestOf(results[platform], r) : r;
    const label = platform.padEnd(8);
    console.log(
      `${label} users ${r.users.rps.toFixed(0)} req/s p50 ${r.users.p50.toFixed(2)} ms ${r.users.cpuUs.toFixed(0)} µs CPU | 1 MiB GET ${r.downloads.rps.toFixed(0)}/s ${r.downloads.cpuUs.toFixed(0)} µs CPU | 4 KiB PUT ${r.uploads.rps.toFixed(0)}/s ${r.uploads.cpuUs.toFixed(0)} µs CPU | 256 MiB each way ${r.streamed ? 'streamed' : 'FAILED'}, peak RSS ${r.hwmMiB.toFixed(0)} MiB`,
    );
  }
  const ratio = (a, b, key) => (a[key].rps / b[key].rps).toFixed(2);
  const cpu = (a, b, key) => (a[key].cpuUs / b[key].cpuUs).toFixed(2);
  console.log('\nthroughput ratio (CPU per request ratio)   express/bare   fastify/bare   fastify/express');
  for (const [key, label] of [
    ['users', 'GET /users/<u>'],
    ['downloads', '1 MiB GET'],
    ['uploads', '4 KiB PUT'],
  ]) {
    const { bare, express, fastify } = results;
    console.log(
      `${label.padEnd(42)} ${ratio(express, bare, key)} (${cpu(express, bare, key)})    ${ratio(fastify, bare, key)} (${cpu(fastify, bare, key)})    ${ratio(fastify, express, key)} (${cpu(fastify, express, key)})`,
    );
  }
} finally {
  await rm(folder, { recursive: true, force: true });
}

function bestOf(a, b) {
  const better = (x, y) => (x.rps >= y.rps ? x : y);
  return {
    ...a,
    users: better(a.users, b.users),
    downloads: better(a.downloads, b.downloads),
    uploads: better(a.uploads, b.uploads),
  };
}
