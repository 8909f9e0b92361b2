#!/usr/bin/env node
/**
 * Scale: what 1k, 100k (and 1M) files cost the standalone server's read models, before (in
 * memory, rebuilt at every start) and after (SQLite files resumed from their checkpoint), in one
 * run (issue 23, "Restarts resume" and "Flat growth"). For each size a data directory is seeded by
 * appending one `FileVersionCommitted` per file (its own stream, as a commit does) to the event
 * store, 1,000 files per folder, one device; then:
 *
 * - full rebuild rate: the storage catalog's projections replayed from position 0 by the
 *   projection runner into a new SQLite read model (and into memory: before), events/s;
 * - first page of a 1,000-file folder (`listFolder`, 100 entries, median of many) read from those
 *   read models: its cost at 100k (1M) against 1k, the growth ratio;
 * - restart: the standalone server (`apps/standalone/dist/main.js`, a child process) started on the
 *   data directory whose read models are built, time until /readyz answers 200, against the same
 *   server started on an empty data directory in this run (the fixed cost of booting Node and
 *   Nest); and the server's RSS once ready (from /proc). With `BURROW_READ_MODELS=memory` too (the
 *   before), up to 100k.
 *
 * Then users, through the running server's interface A: for each size a data directory whose
 * partner (made by a first start) is given that many users by appending one `UserCreated` each
 * (their own streams, as a create does), the server restarted on it (its read models build the new
 * users, then it serves), and `GET /users/<u>` (a user in the middle), the first page and a middle
 * page of `GET /users/?limit=1000` measured over HTTP with the partner's Basic credentials: req/s
 * at 100k (1M) users against 1k, the growth ratio.
 *
 * Each is printed as measured / target: restart with 1M events ready within 5 s, rebuild >= 100k
 * events/s, RSS < 512 MiB, growth <= 1.2x.
 *
 *   npm run bench:scale      (BENCH_SCALE_MAX, default 100000: 1000000 adds the 1M size, which
 *                             takes several minutes to seed; BENCH_SCALE_BEFORE=0 skips the
 *                             in-memory runs; BENCH_SCALE_USERS=0 skips the users; BENCH_SCALE_FILES=0
 *                             the files; BENCH_SERVER_NODE_ARGS for the server, e.g.
 *                             "--cpu-prof --cpu-prof-dir=/tmp/prof"; BENCH_SCALE_KEEP=1 keeps the
 *                             seeded data directories; BENCH_SCALE_USERS_DIR=<a kept directory of
 *                             BENCH_SCALE_USERS_N users> measures the users on it, no seeding: the
 *                             same file measured by two builds, one after the other)
 *
 * Pages at an offset are also given as the server's CPU per request (from /proc), against the first
 * page's, and the first one separately (it may pay a one-off scan of the sort path).
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const { SqliteEventStore } = await import(join(root, 'libs/event-store/dist/index.js'));
const { MemoryDocumentStore, SqliteDocumentStore } = await import(join(root, 'libs/documents/dist/index.js'));
const { ProjectionRunner, appendEvents } = await import(join(root, 'libs/eventsourcing/dist/index.js'));
const { fileIdOf } = await import(join(root, 'libs/contracts/dist/index.js'));
const { storageProjections } = await import(join(root, 'apps/storage-catalog/dist/storage-catalog.service.js'));
const { listFolder } = await import(join(root, 'apps/storage-catalog/dist/files/listing.js'));
const { measureConcurrently } = await import('./concurrent.mjs');

const MAX = Number(process.env.BENCH_SCALE_MAX ?? 100_000);
const SIZES = [1_000, 100_000, 1_000_000].filter((n) => n <= MAX);
const BEFORE = process.env.BENCH_SCALE_BEFORE !== '0';
const FILES = process.env.BENCH_SCALE_FILES !== '0';
const USERS = process.env.BENCH_SCALE_USERS !== '0';
const PARTNER = { username: 'bench-partner', password: 'bench-partner-password' };
const PER_FOLDER = 1_000;
const PAGE = 100;
const TARGET = { restartS: 5, rebuild: 100_000, rssMiB: 512, growth: 1.2 };
const DEVICE = { deviceId: 'd-bench', userId: 'u-bench', partnerId: 'p-bench' };

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function seed(dataDir, files) {
  const store = SqliteEventStore.open(join(dataDir, 'events.sqlite'), { synchronous: 'normal', pollIntervalMs: 60_000 });
  const at = Math.floor(Date.now() / 1000);
  await appendEvents(store, `device-${DEVICE.deviceId}`, [{ type: 'DeviceRegistered', data: { ...DEVICE, name: 'laptop', at, client_revision: 100, sysplatform: 'linux' } }], 'no_stream');
  const blob = randomBytes(32).toString('hex');
  for (let i = 0; i < files; i++) {
    const path = `folder${String(Math.floor(i / PER_FOLDER)).padStart(4, '0')}/f${String(i).padStart(7, '0')}.bin`;
    const fileId = fileIdOf(DEVICE.deviceId, path);
    const data = { fileId, ...DEVICE, path, version: 0, size: 4096, blob, crc32: 1, mtime: at, ctime: at, at };
    await appendEvents(store, `file-${fileId}`, [{ type: 'FileVersionCommitted', data }], 'no_stream');
  }
  return store;
}

/** The storage catalog's projections from position 0 into `docs`: events/s. */
async function rebuild(store, docs) {
  const head = await store.headPosition();
  const runner = new ProjectionRunner(store, docs, storageProjections());
  const started = performance.now();
  await runner.start();
  const seconds = (performance.now() - started) / 1000;
  await runner.stop();
  return { rate: head / seconds, seconds, events: head };
}

/** The first page of folder0000/ (1,000 files): median ms over `rounds`. */
async function firstPage(docs, rounds = 60) {
  const times = [];
  for (let r = 0; r < rounds; r++) {
    const started = performance.now();
    const page = await listFolder(docs, DEVICE.deviceId, 'folder0000/', { limit: PAGE });
    times.push(performance.now() - started);
    if (page.files.length !== PAGE) throw new Error(`the first page holds ${page.files.length} files, not ${PAGE}`);
  }
  return median(times.slice(5));
}

/** CPU seconds (user + system) the process has used: steadier than wall time on a shared machine */
const cpuSeconds = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
/** the process's peak RSS so far (VmHWM): what a rebuild before ready held at most */
const peakRssMiB = (pid) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

/** Starts the standalone server on `dataDir`: its port, seconds until /readyz is 200, its CPU and RSS then, and `stop`. */
async function startServer(dataDir, env = {}) {
  const port = await freePort();
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const started = performance.now();
  const server = spawn(process.execPath, [...nodeArgs, join(root, 'apps/standalone/dist/main.js')], {
    env: {
      PATH: process.env.PATH, BURROW_DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', BURROW_SECRET: 'bench-secret-0123456789abcdef0123456789abcdef',
      BURROW_PARTNER_USERNAME: PARTNER.username, BURROW_PARTNER_PASSWORD: PARTNER.password, ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = async () => {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  };
  try {
    for (;;) {
      if (server.exitCode !== null) throw new Error('the server did not start');
      const status = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status, () => 0);
      if (status === 200) break;
      await sleep(50);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const seconds = (performance.now() - started) / 1000;
  return { port, pid: server.pid, seconds, cpu: cpuSeconds(server.pid), rss: rssMiB(server.pid), peak: peakRssMiB(server.pid), stop };
}

/** Starts the standalone server on `dataDir` and stops it once ready: seconds to ready, CPU, RSS. */
async function startAndStop(dataDir, env = {}) {
  const { stop, port: _port, pid: _pid, ...figures } = await startServer(dataDir, env);
  await stop();
  return figures;
}

const fmt = (v, digits = 1) => (typeof v === 'number' ? v.toFixed(digits) : String(v));
const rows = [];
const row = (what, measured, target, ok) => rows.push([what, measured, target, ok === undefined ? '' : ok ? 'met' : 'NOT met']);

console.log(`bench:scale ${new Date().toISOString()}, sizes ${SIZES.join(', ')} files (${PER_FOLDER} per folder), page ${PAGE}`);
const emptyDir = mkdtempSync(join(tmpdir(), 'burrow-scale-empty-'));
await startAndStop(emptyDir); // first start makes the partner and its events
// the quicker of two starts: on a shared machine one start can wait seconds for a core
const quicker = (a, b) => (a.seconds <= b.seconds ? a : b);
const boot = quicker(await startAndStop(emptyDir), await startAndStop(emptyDir));
rmSync(emptyDir, { recursive: true, force: true });
console.log(`boot on an empty data directory: ${fmt(boot.seconds, 2)} s to ready (${fmt(boot.cpu, 2)} CPU s), RSS ${fmt(boot.rss, 0)} MiB (the quicker of two: the fixed cost every start pays)`);

const pages = {};
for (const n of FILES ? SIZES : []) {
  const dataDir = mkdtempSync(join(tmpdir(), `burrow-scale-${n}-`));
  try {
    const seedStarted = performance.now();
    const store = await seed(dataDir, n);
    console.log(`\n${n} files: seeded ${await store.headPosition()} events in ${fmt((performance.now() - seedStarted) / 1000)} s`);

    let memory = null;
    if (BEFORE && n <= 100_000) {
      const docs = new MemoryDocumentStore();
      memory = await rebuild(store, docs);
      memory.page = await firstPage(docs);
      console.log(`  before (in memory): rebuild ${fmt(memory.rate, 0)} events/s (${fmt(memory.seconds)} s), first page ${fmt(memory.page, 2)} ms`);
    }
    const file = join(dataDir, 'read-models', 'storage-catalog.sqlite');
    const docs = SqliteDocumentStore.open(file);
    const sqlite = await rebuild(store, docs);
    sqlite.page = await firstPage(docs);
    await docs.close();
    await store.close();
    console.log(`  after (SQLite):     rebuild ${fmt(sqlite.rate, 0)} events/s (${fmt(sqlite.seconds)} s), first page ${fmt(sqlite.page, 2)} ms`);
    pages[n] = { memory: memory?.page, sqlite: sqlite.page };
    row(`rebuild, ${n} events (SQLite)`, `${fmt(sqlite.rate, 0)} events/s`, `>= ${TARGET.rebuild}`, n >= 100_000 ? sqlite.rate >= TARGET.rebuild : undefined);
    if (memory) row(`rebuild, ${n} events (memory, before)`, `${fmt(memory.rate, 0)} events/s`, `>= ${TARGET.rebuild}`);

    // the first start builds what accounts and billing make of the events; the second resumes
    const first = await startAndStop(dataDir);
    console.log(`  first start (builds accounts' and billing's read models from empty): ${fmt(first.seconds, 1)} s to ready, ${fmt(first.cpu, 1)} CPU s, RSS ${fmt(first.rss, 0)} MiB (peak ${fmt(first.peak, 0)})`);
    const resumed = quicker(await startAndStop(dataDir), await startAndStop(dataDir));
    console.log(`  restart (SQLite, resumes; the quicker of two): ${fmt(resumed.seconds, 2)} s to ready, ${fmt(resumed.cpu, 2)} CPU s (boot alone ${fmt(boot.seconds, 2)} s, ${fmt(boot.cpu, 2)} CPU s), RSS ${fmt(resumed.rss, 0)} MiB`);
    row(`restart to ready, ${n} events (SQLite)`, `${fmt(resumed.seconds, 2)} s; CPU ${fmt(resumed.cpu, 2)} s = boot + ${fmt(resumed.cpu - boot.cpu, 2)}`, `<= ${TARGET.restartS} s`, resumed.seconds <= TARGET.restartS);
    row(`RSS after start, ${n} files (SQLite)`, `${fmt(resumed.rss, 0)} MiB`, `< ${TARGET.rssMiB} MiB`, resumed.rss < TARGET.rssMiB);
    if (BEFORE && n <= 100_000) {
      const before = await startAndStop(dataDir, { BURROW_READ_MODELS: 'memory' });
      console.log(`  restart (memory, replays everything): ${fmt(before.seconds, 2)} s to ready, ${fmt(before.cpu, 2)} CPU s, RSS ${fmt(before.rss, 0)} MiB`);
      row(`restart to ready, ${n} events (memory, before)`, `${fmt(before.seconds, 2)} s; CPU ${fmt(before.cpu, 2)} s = boot + ${fmt(before.cpu - boot.cpu, 2)}`, `<= ${TARGET.restartS} s`);
      row(`RSS after start, ${n} files (memory, before)`, `${fmt(before.rss, 0)} MiB`, `< ${TARGET.rssMiB} MiB`);
    }
    // what `admin rebuild-read-models` leads to: every read model rebuilt from the event store by the server
    rmSync(join(dataDir, 'read-models'), { recursive: true, force: true });
    const rebuilt = await startAndStop(dataDir);
    console.log(`  start after rebuild-read-models (every read model built from empty): ${fmt(rebuilt.seconds, 1)} s to ready, ${fmt(rebuilt.cpu, 1)} CPU s, RSS ${fmt(rebuilt.rss, 0)} MiB (peak ${fmt(rebuilt.peak, 0)})`);
    row(`RSS after a full rebuild in the server, ${n} files (SQLite)`, `${fmt(rebuilt.rss, 0)} MiB, peak ${fmt(rebuilt.peak, 0)} (${fmt(rebuilt.seconds, 1)} s to ready)`, `< ${TARGET.rssMiB} MiB`, rebuilt.peak < TARGET.rssMiB);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

for (const n of FILES ? SIZES.filter((s) => s > 1_000) : []) {
  const sqliteGrowth = pages[n].sqlite / pages[1_000].sqlite;
  row(`first page of a 1,000-file folder, device of ${n} / of 1k files (SQLite)`, `${fmt(sqliteGrowth, 2)}x (${fmt(pages[n].sqlite, 2)} / ${fmt(pages[1_000].sqlite, 2)} ms)`, `<= ${TARGET.growth}x`, sqliteGrowth <= TARGET.growth);
  if (pages[n].memory !== undefined && pages[1_000].memory !== undefined) {
    const g = pages[n].memory / pages[1_000].memory;
    row(`first page of a 1,000-file folder, device of ${n} / of 1k files (memory, before)`, `${fmt(g, 2)}x (${fmt(pages[n].memory, 2)} / ${fmt(pages[1_000].memory, 2)} ms)`, `<= ${TARGET.growth}x`);
  }
}

/** The partner the first start made: its id, from its `PartnerCreated` event. */
async function partnerId(store) {
  const head = await store.headPosition();
  let found = null;
  await new Promise((resolve, reject) => {
    const subscription = store.subscribeToAll({ fromPosition: 0, prefixes: ['partner-'] }, {
      onEvent(event) {
        if (event.type === 'PartnerCreated' && event.data.username === PARTNER.username) found = event.data.partnerId ?? event.stream.slice('partner-'.length);
      },
      onCheckpoint(position) {
        if (position >= head) void subscription.stop().then(resolve, reject);
      },
      onError: reject,
    });
  });
  if (!found) throw new Error('no PartnerCreated for the bench partner');
  return found;
}

/** `users` users of the bench partner, one `UserCreated` each on its own stream; the middle one's name. */
async function seedUsers(dataDir, users) {
  const store = SqliteEventStore.open(join(dataDir, 'events.sqlite'), { synchronous: 'normal', pollIntervalMs: 60_000 });
  try {
    const owner = await partnerId(store);
    const at = Math.floor(Date.now() / 1000);
    for (let i = 0; i < users; i++) {
      const userId = randomUUID();
      const username = `bench-user-${String(i).padStart(7, '0')}`;
      const data = {
        userId, partnerId: owner, username, name: `Bench User ${i}`, email: `${username}@example.com`, plan_id: 1, group_id: null,
        bonus_bytes: 0, avatar_id: 0, share_id: String(100_000 + i), creation_time: at, passwordHash: '',
      };
      await appendEvents(store, `user-${userId}`, [{ type: 'UserCreated', data }], 'no_stream');
    }
  } finally {
    await store.close();
  }
  return `bench-user-${String(Math.floor(users / 2)).padStart(7, '0')}`;
}

const authorization = `Basic ${Buffer.from(`${PARTNER.username}:${PARTNER.password}`).toString('base64')}`;
async function getJson(port, path) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

/** `make()` run `count` times one after the other: the server's CPU ms per call. */
async function serverCpuMs(pid, make, count) {
  const before = cpuSeconds(pid);
  for (let i = 0; i < count; i++) await make();
  return ((cpuSeconds(pid) - before) * 1000) / count;
}

const usersRps = {};
const keptUsers = process.env.BENCH_SCALE_USERS_DIR;
for (const n of USERS ? (keptUsers ? [Number(process.env.BENCH_SCALE_USERS_N ?? 100_000)] : SIZES) : []) {
  const dataDir = keptUsers ?? mkdtempSync(join(tmpdir(), `burrow-scale-users-${n}-`));
  try {
    let middle = `bench-user-${String(Math.floor(n / 2)).padStart(7, '0')}`;
    if (!keptUsers) {
      await startAndStop(dataDir); // the partner and the plans
      const seedStarted = performance.now();
      middle = await seedUsers(dataDir, n);
      console.log(`\n${n} users: seeded in ${fmt((performance.now() - seedStarted) / 1000)} s`);
      const built = await startAndStop(dataDir); // the read models build the new users
      console.log(`  first start after seeding (builds the users' read models): ${fmt(built.seconds, 1)} s to ready, ${fmt(built.cpu, 1)} CPU s, RSS ${fmt(built.rss, 0)} MiB (peak ${fmt(built.peak, 0)})`);
      row(`RSS after the first start after seeding ${n} users (catch-up)`, `${fmt(built.rss, 0)} MiB, peak ${fmt(built.peak, 0)} (${fmt(built.seconds, 1)} s to ready)`, `< ${TARGET.rssMiB} MiB`, built.peak < TARGET.rssMiB);
      // what `admin rebuild-read-models` leads to: every read model rebuilt from the event store by the server
      rmSync(join(dataDir, 'read-models'), { recursive: true, force: true });
      const rebuilt = await startAndStop(dataDir);
      console.log(`  start after rebuild-read-models (every read model built from empty): ${fmt(rebuilt.seconds, 1)} s to ready, ${fmt(rebuilt.cpu, 1)} CPU s, RSS ${fmt(rebuilt.rss, 0)} MiB (peak ${fmt(rebuilt.peak, 0)})`);
      row(`RSS after a full rebuild in the server, ${n} users (SQLite)`, `${fmt(rebuilt.rss, 0)} MiB, peak ${fmt(rebuilt.peak, 0)} (${fmt(rebuilt.seconds, 1)} s to ready)`, `< ${TARGET.rssMiB} MiB`, rebuilt.peak < TARGET.rssMiB);
    } else console.log(`\n${n} users, kept in ${dataDir}`);
    const server = await startServer(dataDir);
    try {
      if (process.env.BENCH_SCALE_KEEP) console.log(`  kept: ${dataDir}`);
      const user = await getJson(server.port, `/users/${middle}`);
      if (user.username !== middle) throw new Error(`GET /users/${middle} answered ${user.username}`);
      const first = await getJson(server.port, '/users/?limit=1000');
      if (first.length !== Math.min(1000, n)) throw new Error(`the first page holds ${first.length} users`);
      const offset = Math.max(0, Math.floor(n / 2) - 500);
      const offsetPath = `/users/?limit=1000&offset=${offset}`;
      const firstOffset = performance.now();
      const atOffset = await getJson(server.port, offsetPath);
      const firstOffsetMs = performance.now() - firstOffset;
      if (atOffset.length !== Math.min(1000, n - offset) || (n > 1000 && atOffset[0].username !== `bench-user-${String(offset).padStart(7, '0')}`)) {
        throw new Error(`the page at offset ${offset} starts with ${atOffset[0]?.username} and holds ${atOffset.length} users`);
      }
      const options = { concurrency: 8, warmup: 100 };
      const one = await measureConcurrently(() => getJson(server.port, `/users/${middle}`), { ...options, count: 2000 });
      const firstPage = await measureConcurrently(() => getJson(server.port, '/users/?limit=1000'), { ...options, count: 200, warmup: 20 });
      // a page at an offset costs what it skips (SQLite's OFFSET, like MongoDB's skip, steps over every
      // row before it): measured one at a time, few, and reported without a target
      const middlePage = await measureConcurrently(() => getJson(server.port, `/users/?limit=1000&offset=${offset}`), { concurrency: 1, count: 10, warmup: 2 });
      usersRps[n] = { one: one.rps, firstPage: firstPage.rps, middlePage: middlePage.rps };
      console.log(`  GET /users/<u> ${fmt(one.rps, 0)} req/s; GET /users/?limit=1000 first page ${fmt(firstPage.rps, 0)} req/s, at offset ${offset} ${fmt(middlePage.rps, 1)} req/s (one at a time); RSS ${fmt(rssMiB(server.pid), 0)} MiB`);
      // server CPU per request, the two pages interleaved in rounds (steadier than req/s on a shared machine)
      const cpu = { first: [], offset: [] };
      for (let round = 0; round < 5; round++) {
        cpu.first.push(await serverCpuMs(server.pid, () => getJson(server.port, '/users/?limit=1000'), 10));
        cpu.offset.push(await serverCpuMs(server.pid, () => getJson(server.port, offsetPath), 4));
      }
      const med = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
      console.log(`  server CPU per request (median of 5 rounds): first page ${fmt(med(cpu.first), 1)} ms, at offset ${offset} ${fmt(med(cpu.offset), 1)} ms = ${fmt(med(cpu.offset) / med(cpu.first), 2)}x; the first request at that offset ${fmt(firstOffsetMs, 0)} ms (wall)`);
    } catch (error) {
      console.log(`  the server is ${existsSync(`/proc/${server.pid}`) ? 'still running' : 'gone'}`);
      throw error;
    } finally {
      await server.stop();
    }
  } finally {
    if (!process.env.BENCH_SCALE_KEEP && !keptUsers) rmSync(dataDir, { recursive: true, force: true });
  }
}
for (const n of USERS && !keptUsers ? SIZES.filter((s) => s > 1_000) : []) {
  for (const [key, what, target] of [['one', 'GET /users/<u>', true], ['firstPage', 'GET /users/?limit=1000, first page', true], ['middlePage', 'GET /users/?limit=1000, the middle page (offset)', false]]) {
    const growth = usersRps[1_000][key] / usersRps[n][key];
    row(`${what}, ${n} / 1k users (cost per request)`, `${fmt(growth, 2)}x (${fmt(usersRps[n][key], 1)} / ${fmt(usersRps[1_000][key], 1)} req/s)`, target ? `<= ${TARGET.growth}x` : '(grows with the offset)', target ? growth <= TARGET.growth : undefined);
  }
}

console.log('\nmeasured / target');
const width = Math.max(...rows.map((r) => r[0].length));
for (const [what, measured, target, ok] of rows) console.log(`${what.padEnd(width)}  ${measured.padEnd(44)} ${target.padEnd(12)} ${ok}`);
console.log(`\nload average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')} (2 cores; a loaded machine is slower: read the ratios)`);
