#!/usr/bin/env node
/**
 * Scale: what 1k, 100k (and 1M) files cost the standalone server's read models, before (in
 * memory, rebuilt at every start) and after (SQLite files resumed from their checkpoint), in one
 * run (issue 23, "Restarts resume" and "Flat growth"). For each size a data directory gets a
 * partner, a user and its device from a first start of the server (over HTTP), then one
 * `FileVersionCommitted` per file appended to the event store (its own stream, as a commit does),
 * 1,000 files per folder, all naming one stored 4 KiB blob; then:
 *
 * - full rebuild rate: the storage catalog's projections replayed from position 0 by the
 *   projection runner into a new SQLite read model (and into memory: before), events/s;
 * - first page of a 1,000-file folder (`listFolder`, 100 entries, median of many) read from those
 *   read models: its cost at 100k (1M) against 1k, the growth ratio;
 * - restart: the standalone server (`apps/standalone/dist/main.js`, a child process) started on the
 *   data directory whose read models are built, time until /readyz answers 200, against the same
 *   server started on an empty data directory in this run (the fixed cost of booting Node and
 *   Nest); and the server's RSS once ready (from /proc). With `BURROW_READ_MODELS=memory` too (the
 *   before), up to 100k;
 * - a download: one of the device's files fetched by its user over HTTP (Basic), one GET at a
 *   time: the server's CPU per GET (from /proc) at 100k (1M) against 1k, the growth ratio.
 *
 * Then the whole listing of one folder of 1k and of 100k files (their own data directories, every
 * file in one folder), paged with the cursor as clients page it: CPU µs per file, the growth ratio.
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
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

const root = new URL('..', import.meta.url).pathname;
const { SqliteEventStore } = await import(join(root, 'libs/event-store/dist/index.js'));
const { MemoryDocumentStore, SqliteDocumentStore } = await import(join(root, 'libs/documents/dist/index.js'));
const { ProjectionRunner, appendEvents } = await import(join(root, 'libs/eventsourcing/dist/index.js'));
const { b32encode, fileIdOf, LISTING_PAGE_MAX } = await import(join(root, 'libs/contracts/dist/index.js'));
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
/** the device of the whole-listing fixtures (no server reads them, so no user owns it) */
const LISTED = { deviceId: 'd-bench', userId: 'u-bench', partnerId: 'p-bench' };
/** the user whose device holds the seeded files (made over HTTP, so that it can log in and download) */
const USER = { username: 'bench-scale-user', password: 'bench-scale-user-password' };
/** the bytes every seeded file version names (one blob, really stored: downloads read it) */
const CONTENT = randomBytes(4096);
const BLOB = { key: createHash('sha256').update(CONTENT).digest('hex'), size: CONTENT.length, crc32: crc32(CONTENT) };
const DOWNLOADED = 'folder0000/f0000000.bin';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/**
 * `files` file versions on `device` (one `FileVersionCommitted` each, on its own stream, as a commit
 * does), `perFolder` to a folder, all naming BLOB, which is stored in the data directory's blob folder.
 * Registers the device first unless the server already did (`registered`).
 */
async function seed(dataDir, files, { device, registered = false, perFolder = PER_FOLDER }) {
  const blobFile = join(dataDir, 'blobs', BLOB.key.slice(0, 2), BLOB.key.slice(2, 4), BLOB.key);
  mkdirSync(join(blobFile, '..'), { recursive: true });
  writeFileSync(blobFile, CONTENT);
  const store = SqliteEventStore.open(join(dataDir, 'events.sqlite'), {
    synchronous: 'normal',
    pollIntervalMs: 60_000,
  });
  const at = Math.floor(Date.now() / 1000);
  if (!registered)
    await appendEvents(
      store,
      `device-${device.deviceId}`,
      [
        {
          type: 'DeviceRegistered',
          data: { ...device, name: 'laptop', at, client_revision: 100, sysplatform: 'linux' },
        },
      ],
      'no_stream',
    );
  for (let i = 0; i < files; i++) {
    const path = `folder${String(Math.floor(i / perFolder)).padStart(4, '0')}/f${String(i).padStart(7, '0')}.bin`;
    const fileId = fileIdOf(device.deviceId, path);
    const data = {
      fileId,
      ...device,
      path,
      version: 0,
      size: BLOB.size,
      blob: BLOB.key,
      crc32: BLOB.crc32,
      mtime: at,
      ctime: at,
      at,
    };
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
async function firstPage(docs, deviceId, rounds = 60) {
  const times = [];
  for (let r = 0; r < rounds; r++) {
    const started = performance.now();
    const page = await listFolder(docs, deviceId, 'folder0000/', { limit: PAGE });
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
      PATH: process.env.PATH,
      BURROW_DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      BURROW_SECRET: 'bench-secret-0123456789abcdef0123456789abcdef',
      BURROW_PARTNER_USERNAME: PARTNER.username,
      BURROW_PARTNER_PASSWORD: PARTNER.password,
      ...env,
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
      const status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) break;
      await sleep(50);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    port,
    pid: server.pid,
    seconds,
    cpu: cpuSeconds(server.pid),
    rss: rssMiB(server.pid),
    peak: peakRssMiB(server.pid),
    stop,
  };
}

/** Starts the standalone server on `dataDir` and stops it once ready: seconds to ready, CPU, RSS. */
async function startAndStop(dataDir, env = {}) {
  const { stop, port: _port, pid: _pid, ...figures } = await startServer(dataDir, env);
  await stop();
  return figures;
}

const fmt = (v, digits = 1) => (typeof v === 'number' ? v.toFixed(digits) : String(v));
const rows = [];
const row = (what, measured, target, ok) =>
  rows.push([what, measured, target, ok === undefined ? '' : ok ? 'met' : 'NOT met']);

/** The data of the first event of `type` on a stream named `prefix`... that `match`es. */
async function findEvent(store, prefix, type, match = () => true) {
  const head = await store.headPosition();
  let found = null;
  await new Promise((resolve, reject) => {
    const subscription = store.subscribeToAll(
      { fromPosition: 0, prefixes: [prefix] },
      {
        onEvent(event) {
          if (!found && event.type === type && match(event.data)) found = event;
        },
        onCheckpoint(position) {
          if (position >= head) void subscription.stop().then(resolve, reject);
        },
        onError: reject,
      },
    );
  });
  if (!found) throw new Error(`no ${type} on the ${prefix} streams`);
  return found;
}

/** The partner the first start made: its id, from its `PartnerCreated` event. */
async function partnerId(store) {
  const event = await findEvent(store, 'partner-', 'PartnerCreated', (data) => data.username === PARTNER.username);
  return event.data.partnerId ?? event.stream.slice('partner-'.length);
}

/** `users` users of the bench partner, one `UserCreated` each on its own stream; the middle one's name. */
async function seedUsers(dataDir, users) {
  const store = SqliteEventStore.open(join(dataDir, 'events.sqlite'), {
    synchronous: 'normal',
    pollIntervalMs: 60_000,
  });
  try {
    const owner = await partnerId(store);
    const at = Math.floor(Date.now() / 1000);
    for (let i = 0; i < users; i++) {
      const userId = randomUUID();
      const username = `bench-user-${String(i).padStart(7, '0')}`;
      const data = {
        userId,
        partnerId: owner,
        username,
        name: `Bench User ${i}`,
        email: `${username}@example.com`,
        plan_id: 1,
        group_id: null,
        bonus_bytes: 0,
        avatar_id: 0,
        share_id: String(100_000 + i),
        creation_time: at,
        passwordHash: '',
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

/** `method path` with a JSON body, as `auth`: throws unless 2xx. */
async function send(port, method, path, auth, body) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${(await res.text()).slice(0, 200)}`);
  await res.arrayBuffer();
}

const userAuthorization = `Basic ${Buffer.from(`${USER.username}:${USER.password}`).toString('base64')}`;
const home = `/storage/${b32encode(USER.username)}`;

/**
 * A user of the bench partner with a device named laptop, made over HTTP by a first start of the
 * server on `dataDir` (which makes the partner): the device's ids, from its `DeviceRegistered`.
 */
async function userWithDevice(dataDir) {
  const server = await startServer(dataDir);
  try {
    const plans = await getJson(server.port, '/plans');
    const plan = plans.reduce((a, b) => (b.storage_bytes > a.storage_bytes ? b : a));
    await send(server.port, 'POST', '/users/', authorization, {
      ...USER,
      name: 'Bench Scale User',
      email: 'bench-scale@example.com',
      plan_id: plan.plan_id,
    });
    await send(server.port, 'PUT', `${home}/laptop/`, userAuthorization, { sysplatform: 'linux', client_revision: 1 });
  } finally {
    await server.stop();
  }
  const store = SqliteEventStore.open(join(dataDir, 'events.sqlite'), {
    synchronous: 'normal',
    pollIntervalMs: 60_000,
  });
  try {
    const { data } = await findEvent(store, 'device-', 'DeviceRegistered', (d) => d.name === 'laptop');
    return { deviceId: data.deviceId, userId: data.userId, partnerId: data.partnerId };
  } finally {
    await store.close();
  }
}

/**
 * One seeded file (4 KiB) downloaded by its user over HTTP, one GET at a time on a kept-alive
 * connection: the server's CPU per GET, the median of 5 rounds of 200 (after a warm-up).
 */
async function downloadCpuMs(server) {
  const get = async () => {
    const res = await fetch(`http://127.0.0.1:${server.port}${home}/laptop/${DOWNLOADED}`, {
      headers: { authorization: userAuthorization },
    });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200 || !body.equals(CONTENT))
      throw new Error(`GET ${DOWNLOADED}: ${res.status}, ${body.length} bytes`);
  };
  for (let i = 0; i < 100; i++) await get();
  const rounds = [];
  for (let round = 0; round < 5; round++) rounds.push(await serverCpuMs(server.pid, get, 200));
  return median(rounds);
}

console.log(
  `bench:scale ${new Date().toISOString()}, sizes ${SIZES.join(', ')} files (${PER_FOLDER} per folder), page ${PAGE}`,
);
const emptyDir = mkdtempSync(join(tmpdir(), 'burrow-scale-empty-'));
await startAndStop(emptyDir); // first start makes the partner and its events
// the quicker of two starts: on a shared machine one start can wait seconds for a core
const quicker = (a, b) => (a.seconds <= b.seconds ? a : b);
const boot = quicker(await startAndStop(emptyDir), await startAndStop(emptyDir));
rmSync(emptyDir, { recursive: true, force: true });
console.log(
  `boot on an empty data directory: ${fmt(boot.seconds, 2)} s to ready (${fmt(boot.cpu, 2)} CPU s), RSS ${fmt(boot.rss, 0)} MiB (the quicker of two: the fixed cost every start pays)`,
);

const pages = {};
/** server CPU ms per GET of one file, by the number of files its device holds */
const downloads = {};
for (const n of FILES ? SIZES : []) {
  const dataDir = mkdtempSync(join(tmpdir(), `burrow-scale-${n}-`));
  try {
    // the partner, a user and its device, made by the server; then the device's files, appended
    const device = await userWithDevice(dataDir);
    rmSync(join(dataDir, 'read-models'), { recursive: true, force: true }); // every read model is built below
    const seedStarted = performance.now();
    const store = await seed(dataDir, n, { device, registered: true });
    console.log(
      `\n${n} files: seeded ${await store.headPosition()} events in ${fmt((performance.now() - seedStarted) / 1000)} s`,
    );

    let memory = null;
    if (BEFORE && n <= 100_000) {
      const docs = new MemoryDocumentStore();
      memory = await rebuild(store, docs);
      memory.page = await firstPage(docs, device.deviceId);
      console.log(
        `  before (in memory): rebuild ${fmt(memory.rate, 0)} events/s (${fmt(memory.seconds)} s), first page ${fmt(memory.page, 2)} ms`,
      );
    }
    const file = join(dataDir, 'read-models', 'storage-catalog.sqlite');
    const docs = SqliteDocumentStore.open(file);
    const sqlite = await rebuild(store, docs);
    sqlite.page = await firstPage(docs, device.deviceId);
    await docs.close();
    await store.close();
    console.log(
      `  after (SQLite):     rebuild ${fmt(sqlite.rate, 0)} events/s (${fmt(sqlite.seconds)} s), first page ${fmt(sqlite.page, 2)} ms`,
    );
    pages[n] = { memory: memory?.page, sqlite: sqlite.page };
    row(
      `rebuild, ${n} events (SQLite)`,
      `${fmt(sqlite.rate, 0)} events/s`,
      `>= ${TARGET.rebuild}`,
      n >= 100_000 ? sqlite.rate >= TARGET.rebuild : undefined,
    );
    if (memory) row(`rebuild, ${n} events (memory, before)`, `${fmt(memory.rate, 0)} events/s`, `>= ${TARGET.rebuild}`);

    // the first start builds what accounts and billing make of the events; the second resumes
    const first = await startAndStop(dataDir);
    console.log(
      `  first start (builds accounts' and billing's read models from empty): ${fmt(first.seconds, 1)} s to ready, ${fmt(first.cpu, 1)} CPU s, RSS ${fmt(first.rss, 0)} MiB (peak ${fmt(first.peak, 0)})`,
    );
    const resumed = quicker(await startAndStop(dataDir), await startAndStop(dataDir));
    console.log(
      `  restart (SQLite, resumes; the quicker of two): ${fmt(resumed.seconds, 2)} s to ready, ${fmt(resumed.cpu, 2)} CPU s (boot alone ${fmt(boot.seconds, 2)} s, ${fmt(boot.cpu, 2)} CPU s), RSS ${fmt(resumed.rss, 0)} MiB`,
    );
    row(
      `restart to ready, ${n} events (SQLite)`,
      `${fmt(resumed.seconds, 2)} s; CPU ${fmt(resumed.cpu, 2)} s = boot + ${fmt(resumed.cpu - boot.cpu, 2)}`,
      `<= ${TARGET.restartS} s`,
      resumed.seconds <= TARGET.restartS,
    );
    row(
      `RSS after start, ${n} files (SQLite)`,
      `${fmt(resumed.rss, 0)} MiB`,
      `< ${TARGET.rssMiB} MiB`,
      resumed.rss < TARGET.rssMiB,
    );
    const server = await startServer(dataDir);
    try {
      downloads[n] = await downloadCpuMs(server);
    } finally {
      await server.stop();
    }
    console.log(
      `  a 4 KiB file of that device downloaded by its user: ${fmt(downloads[n], 2)} ms of server CPU per GET (median of 5 rounds of 200)`,
    );
    if (BEFORE && n <= 100_000) {
      const before = await startAndStop(dataDir, { BURROW_READ_MODELS: 'memory' });
      console.log(
        `  restart (memory, replays everything): ${fmt(before.seconds, 2)} s to ready, ${fmt(before.cpu, 2)} CPU s, RSS ${fmt(before.rss, 0)} MiB`,
      );
      row(
        `restart to ready, ${n} events (memory, before)`,
        `${fmt(before.seconds, 2)} s; CPU ${fmt(before.cpu, 2)} s = boot + ${fmt(before.cpu - boot.cpu, 2)}`,
        `<= ${TARGET.restartS} s`,
      );
      row(`RSS after start, ${n} files (memory, before)`, `${fmt(before.rss, 0)} MiB`, `< ${TARGET.rssMiB} MiB`);
    }
    // what `admin rebuild-read-models` leads to: every read model rebuilt from the event store by the server
    rmSync(join(dataDir, 'read-models'), { recursive: true, force: true });
    const rebuilt = await startAndStop(dataDir);
    console.log(
      `  start after rebuild-read-models (every read model built from empty): ${fmt(rebuilt.seconds, 1)} s to ready, ${fmt(rebuilt.cpu, 1)} CPU s, RSS ${fmt(rebuilt.rss, 0)} MiB (peak ${fmt(rebuilt.peak, 0)})`,
    );
    row(
      `RSS after a full rebuild in the server, ${n} files (SQLite)`,
      `${fmt(rebuilt.rss, 0)} MiB, peak ${fmt(rebuilt.peak, 0)} (${fmt(rebuilt.seconds, 1)} s to ready)`,
      `< ${TARGET.rssMiB} MiB`,
      rebuilt.peak < TARGET.rssMiB,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

for (const n of FILES ? SIZES.filter((s) => s > 1_000) : []) {
  const sqliteGrowth = pages[n].sqlite / pages[1_000].sqlite;
  row(
    `first page of a 1,000-file folder, device of ${n} / of 1k files (SQLite)`,
    `${fmt(sqliteGrowth, 2)}x (${fmt(pages[n].sqlite, 2)} / ${fmt(pages[1_000].sqlite, 2)} ms)`,
    `<= ${TARGET.growth}x`,
    sqliteGrowth <= TARGET.growth,
  );
  if (pages[n].memory !== undefined && pages[1_000].memory !== undefined) {
    const g = pages[n].memory / pages[1_000].memory;
    row(
      `first page of a 1,000-file folder, device of ${n} / of 1k files (memory, before)`,
      `${fmt(g, 2)}x (${fmt(pages[n].memory, 2)} / ${fmt(pages[1_000].memory, 2)} ms)`,
      `<= ${TARGET.growth}x`,
    );
  }
  const d = downloads[n] / downloads[1_000];
  row(
    `download of a file, device of ${n} / of 1k files (server CPU per GET)`,
    `${fmt(d, 2)}x (${fmt(downloads[n], 2)} / ${fmt(downloads[1_000], 2)} ms)`,
    `<= ${TARGET.growth}x`,
    d <= TARGET.growth,
  );
}

/**
 * The whole listing of one folder holding `n` files (its own data directory; the storage catalog
 * rebuilt in this process), paged as clients page it (LISTING_PAGE_MAX entries, the cursor of each
 * page asking for the next): this process's CPU µs per file listed (steadier than wall time on a
 * shared machine), each sample walking the folder as often as it takes to list 100k files, so that
 * both sizes pay the same garbage collection per file; the median of 5 samples after a warm-up one.
 */
async function wholeListing(n) {
  const dataDir = mkdtempSync(join(tmpdir(), `burrow-scale-wide-${n}-`));
  try {
    const store = await seed(dataDir, n, { device: LISTED, perFolder: n });
    const docs = SqliteDocumentStore.open(join(dataDir, 'read-models', 'storage-catalog.sqlite'));
    try {
      await rebuild(store, docs);
      await store.close();
      const walk = async () => {
        let listed = 0;
        let cursor;
        do {
          const page = await listFolder(docs, LISTED.deviceId, 'folder0000/', { limit: LISTING_PAGE_MAX, cursor });
          listed += page.files.length;
          cursor = page.next ?? undefined;
        } while (cursor);
        if (listed !== n) throw new Error(`the whole listing holds ${listed} files, not ${n}`);
      };
      const samples = [];
      for (let sample = 0; sample < 6; sample++) {
        const before = process.cpuUsage();
        const walks = Math.max(1, Math.round(100_000 / n));
        for (let w = 0; w < walks; w++) await walk();
        const used = process.cpuUsage(before);
        if (sample > 0) samples.push((used.user + used.system) / (walks * n));
      }
      return median(samples);
    } finally {
      await docs.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const WIDE = FILES ? [1_000, 100_000].filter((n) => n <= MAX) : [];
const perFile = {};
for (const n of WIDE) {
  perFile[n] = await wholeListing(n);
  console.log(
    `\nthe whole listing of one folder of ${n} files, ${LISTING_PAGE_MAX} to a page: ${fmt(perFile[n], 2)} CPU µs per file`,
  );
}
if (perFile[100_000] !== undefined) {
  const g = perFile[100_000] / perFile[1_000];
  row(
    'whole listing of a folder, per file, 100k / 1k files (SQLite)',
    `${fmt(g, 2)}x (${fmt(perFile[100_000], 2)} / ${fmt(perFile[1_000], 2)} CPU µs)`,
    `<= ${TARGET.growth}x`,
    g <= TARGET.growth,
  );
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
      console.log(
        `  first start after seeding (builds the users' read models): ${fmt(built.seconds, 1)} s to ready, ${fmt(built.cpu, 1)} CPU s, RSS ${fmt(built.rss, 0)} MiB (peak ${fmt(built.peak, 0)})`,
      );
      row(
        `RSS after the first start after seeding ${n} users (catch-up)`,
        `${fmt(built.rss, 0)} MiB, peak ${fmt(built.peak, 0)} (${fmt(built.seconds, 1)} s to ready)`,
        `< ${TARGET.rssMiB} MiB`,
        built.peak < TARGET.rssMiB,
      );
      // what `admin rebuild-read-models` leads to: every read model rebuilt from the event store by the server
      rmSync(join(dataDir, 'read-models'), { recursive: true, force: true });
      const rebuilt = await startAndStop(dataDir);
      console.log(
        `  start after rebuild-read-models (every read model built from empty): ${fmt(rebuilt.seconds, 1)} s to ready, ${fmt(rebuilt.cpu, 1)} CPU s, RSS ${fmt(rebuilt.rss, 0)} MiB (peak ${fmt(rebuilt.peak, 0)})`,
      );
      row(
        `RSS after a full rebuild in the server, ${n} users (SQLite)`,
        `${fmt(rebuilt.rss, 0)} MiB, peak ${fmt(rebuilt.peak, 0)} (${fmt(rebuilt.seconds, 1)} s to ready)`,
        `< ${TARGET.rssMiB} MiB`,
        rebuilt.peak < TARGET.rssMiB,
      );
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
      if (
        atOffset.length !== Math.min(1000, n - offset) ||
        (n > 1000 && atOffset[0].username !== `bench-user-${String(offset).padStart(7, '0')}`)
      ) {
        throw new Error(
          `the page at offset ${offset} starts with ${atOffset[0]?.username} and holds ${atOffset.length} users`,
        );
      }
      const options = { concurrency: 8, warmup: 100 };
      const one = await measureConcurrently(() => getJson(server.port, `/users/${middle}`), {
        ...options,
        count: 2000,
      });
      const firstPage = await measureConcurrently(() => getJson(server.port, '/users/?limit=1000'), {
        ...options,
        count: 200,
        warmup: 20,
      });
      // a page at an offset costs what it skips (SQLite's OFFSET, like MongoDB's skip, steps over every
      // row before it): measured one at a time, few, and reported without a target
      const middlePage = await measureConcurrently(() => getJson(server.port, `/users/?limit=1000&offset=${offset}`), {
        concurrency: 1,
        count: 10,
        warmup: 2,
      });
      usersRps[n] = { one: one.rps, firstPage: firstPage.rps, middlePage: middlePage.rps };
      console.log(
        `  GET /users/<u> ${fmt(one.rps, 0)} req/s; GET /users/?limit=1000 first page ${fmt(firstPage.rps, 0)} req/s, at offset ${offset} ${fmt(middlePage.rps, 1)} req/s (one at a time); RSS ${fmt(rssMiB(server.pid), 0)} MiB`,
      );
      // server CPU per request, the two pages interleaved in rounds (steadier than req/s on a shared machine)
      const cpu = { first: [], offset: [] };
      for (let round = 0; round < 5; round++) {
        cpu.first.push(await serverCpuMs(server.pid, () => getJson(server.port, '/users/?limit=1000'), 10));
        cpu.offset.push(await serverCpuMs(server.pid, () => getJson(server.port, offsetPath), 4));
      }
      const med = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
      console.log(
        `  server CPU per request (median of 5 rounds): first page ${fmt(med(cpu.first), 1)} ms, at offset ${offset} ${fmt(med(cpu.offset), 1)} ms = ${fmt(med(cpu.offset) / med(cpu.first), 2)}x; the first request at that offset ${fmt(firstOffsetMs, 0)} ms (wall)`,
      );
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
  for (const [key, what, target] of [
    ['one', 'GET /users/<u>', true],
    ['firstPage', 'GET /users/?limit=1000, first page', true],
    ['middlePage', 'GET /users/?limit=1000, the middle page (offset)', false],
  ]) {
    const growth = usersRps[1_000][key] / usersRps[n][key];
    row(
      `${what}, ${n} / 1k users (cost per request)`,
      `${fmt(growth, 2)}x (${fmt(usersRps[n][key], 1)} / ${fmt(usersRps[1_000][key], 1)} req/s)`,
      target ? `<= ${TARGET.growth}x` : '(grows with the offset)',
      target ? growth <= TARGET.growth : undefined,
    );
  }
}

console.log('\nmeasured / target');
const width = Math.max(...rows.map((r) => r[0].length));
for (const [what, measured, target, ok] of rows)
  console.log(`${what.padEnd(width)}  ${measured.padEnd(44)} ${target.padEnd(12)} ${ok}`);
console.log(
  `\nload average at the end: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} (2 cores; a loaded machine is slower: read the ratios)`,
);
