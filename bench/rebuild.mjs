#!/usr/bin/env node
/**
 * Read-model rebuild benchmark, two parts (BENCH_PARTS, default "storage,accounts"):
 *
 * - storage: the storage catalog's projections (files, folders, versions, previews, devices,
 *   usage...) rebuilt from BENCH_EVENTS seeded events (`FileVersionCommitted`, 5 versions per file,
 *   files in nested folders of 10 devices) into each document store this run has: in memory
 *   always, SQLite (what standalone uses), MongoDB/FerretDB when MONGODB_URL is set; as what bounds
 *   MongoDB, the same server's rate for a bare bulk write of as many documents as the rebuild wrote.
 * - accounts: the accounts service's projections (users, feed, usage, webhooks, ...) from a partner
 *   (`PartnerCreated`, the plan catalogue) and BENCH_USERS users, one `UserCreated` each on its own
 *   stream (as bench:scale's users part seeds them), into memory and SQLite: a full rebuild (empty
 *   read models, what a new read model or `admin rebuild-read-models` does) and a catch-up (read
 *   models built over the partner, then the users appended: what bench:scale's first start after
 *   seeding does).
 *
 * Each rebuild prints events/s and the CPU seconds it used against the target of issues 23 and 38
 * (>= 100,000 events/s into SQLite; into MongoDB the rate is reported, beside the server's bare
 * bulk-write rate, against issue 23's 20,000). After each SQLite rebuild of this code, where its
 * CPU went, by layer, in the same run (BENCH_LAYERS=0 leaves it out): reading the events alone
 * (the runner's subscription with the same prefixes, JSON parse included), SQLite writing the very
 * documents the rebuild wrote (read back from its file, `JSON.stringify`ed and inserted into an
 * empty file of the same schema, 12,500 per transaction, as a rebuild commits them): with every
 * index, with the secondary indexes created after the inserts, and with none; what is left is the
 * projections, the unit of work, the runner and their garbage. With BENCH_BASELINE=<another checkout, built>
 * the same rebuilds run with that checkout's code too, interleaved (this, baseline, this,
 * baseline: BENCH_ROUNDS rounds), and the SQLite read models each built are compared document by
 * document (they must be identical).
 *
 *   npm run bench:rebuild   (BENCH_EVENTS, default 100000; BENCH_USERS, default 100000;
 *                            MONGODB_URL to include MongoDB in both parts; BENCH_PROFILE=<dir>
 *                            writes a CPU profile of each rebuild alone there, for the inspector;
 *                            BENCH_RUNNER_OPTIONS='{"maxBatchEvents":2000}' passes options to the runner;
 *                            BENCH_STORES=sqlite leaves out the rebuilds into memory)
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Session } from 'node:inspector/promises';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';

const here = new URL('..', import.meta.url).pathname;
const { SqliteEventStore } = await import(join(here, 'libs/event-store/dist/index.js'));
const { sqliteDriverChoice } = await import(join(here, 'libs/sqlite/dist/index.js'));
const { appendEvents } = await import(join(here, 'libs/eventsourcing/dist/index.js'));

const PARTS = (process.env.BENCH_PARTS ?? 'storage,accounts').split(',');
const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const USERS = Number(process.env.BENCH_USERS ?? 100_000);
/** which stores the rebuilds write into (BENCH_STORES, default "memory,sqlite") */
const STORES = (process.env.BENCH_STORES ?? 'memory,sqlite').split(',');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (process.env.BENCH_BASELINE ? 2 : 1));
const VERSIONS = 5;
const DEVICES = 10;
/** issue 23 target 5; a rebuild into MongoDB has its own (docs/decisions.md, "Rebuild speed") */
const TARGET = 100_000;
const MONGODB_TARGET = 20_000;
const LAYERS = process.env.BENCH_LAYERS !== '0';
/** the documents a layer measurement re-inserts per transaction (a catch-up batch's bound, batch-limits.ts) */
const LAYER_TX_DOCUMENTS = 12_500;

/** The code under test: this checkout, and the baseline's when BENCH_BASELINE names one. */
async function codeOf(label, root) {
  const documents = await import(join(root, 'libs/documents/dist/index.js'));
  return {
    label,
    ...documents,
    ProjectionRunner: (await import(join(root, 'libs/eventsourcing/dist/index.js'))).ProjectionRunner,
    storageProjections: (await import(join(root, 'apps/storage-catalog/dist/storage-catalog.service.js')))
      .storageProjections,
    accountsProjections: (await import(join(root, 'apps/accounts/dist/accounts.service.js'))).accountsProjections,
  };
}
const codes = [await codeOf('this', here)];
if (process.env.BENCH_BASELINE) codes.push(await codeOf('baseline', resolve(process.env.BENCH_BASELINE)));

const dir = await mkdtemp(join(tmpdir(), 'burrow-bench-rebuild-'));
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

const PROFILE = process.env.BENCH_PROFILE;
let profiles = 0;

/**
 * Runs `projections` from where `docs`' checkpoint is to the store's head: events/s (of `events`),
 * seconds, CPU seconds. With BENCH_PROFILE, the rebuild alone is profiled (`name` names the file).
 */
async function run(code, store, docs, projections, events, name = 'rebuild') {
  const runner = new code.ProjectionRunner(
    store,
    docs,
    projections,
    JSON.parse(process.env.BENCH_RUNNER_OPTIONS ?? '{}'),
  );
  const session = PROFILE ? new Session() : null;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const started = performance.now();
  const cpuStarted = cpu();
  await runner.start();
  const seconds = (performance.now() - started) / 1000;
  const cpuSeconds = cpu() - cpuStarted;
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    mkdirSync(PROFILE, { recursive: true });
    writeFileSync(
      join(
        PROFILE,
        `${String(++profiles).padStart(2, '0')}-${name.replace(/[^a-z0-9]+/gi, '-')}-${code.label}.cpuprofile`,
      ),
      JSON.stringify(profile),
    );
  }
  await runner.stop();
  return { rate: events / seconds, seconds, cpuSeconds, events };
}

/** Every document of an SQLite read-model file (tables `c:<collection>`), as one digest and a count. */
function digestOf(file) {
  const db = sqliteDriverChoice().driver.open(file);
  try {
    const hash = createHash('sha256');
    let documents = 0;
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 2) = 'c:' ORDER BY name")
      .all();
    for (const { name } of tables) {
      for (const row of db.prepare(`SELECT id, doc FROM "${name}" ORDER BY id`).iterate()) {
        hash.update(`${name}\n${row.id}\n${row.doc}\n`);
        documents++;
      }
    }
    return { digest: hash.digest('hex').slice(0, 16), documents };
  } finally {
    db.close();
  }
}

const rows = [];
const fmt = (v, d = 0) => v.toFixed(d);
function report(part, store, code, r, extra = '') {
  rows.push([part, store, code.label, r, extra]);
  console.log(
    `  ${part} ${store} (${code.label}): ${fmt(r.rate)} events/s, ${fmt(r.seconds, 1)} s, ${fmt((r.cpuSeconds / r.events) * 1e6, 1)} CPU us/event ${extra}`,
  );
}

// ---- layers ---------------------------------------------------------------------------------

/** CPU µs per event of reading `events` events with `prefixes` through the store's subscription (what the runner reads), nothing applied. */
async function readLayer(store, prefixes, events) {
  const head = await store.headPosition();
  const cpuStarted = cpu();
  let seen = 0;
  await new Promise((resolve, reject) => {
    const sub = store.subscribeToAll(
      { fromPosition: 0, prefixes },
      {
        onEvent: () => {
          seen++;
        },
        onCheckpoint: (position) => {
          if (position >= head) void sub.stop().then(resolve, reject);
        },
        onError: reject,
      },
    );
  });
  return { usPerEvent: ((cpu() - cpuStarted) / events) * 1e6, seen };
}

/**
 * CPU µs per event of SQLite writing the documents of the read-model file `file` (every table
 * `c:*`) into an empty file of the same schema, as the store's `put` does (`JSON.stringify`, one
 * upsert per document, `LAYER_TX_DOCUMENTS` per transaction), with `indexes`: 'all' (as a rebuild
 * maintains them), 'after' (secondary indexes created once every document is in), 'none' (the
 * table and its primary key only).
 */
function sqliteLayer(file, events, indexes) {
  const { driver } = sqliteDriverChoice();
  const source = driver.open(file);
  const target = `${file}.layer-${indexes}.sqlite`;
  const db = driver.open(target);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('cache_size = -32768');
    const schema = source
      .prepare(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND substr(tbl_name, 1, 2) = 'c:' ORDER BY type = 'index'",
      )
      .all();
    const tables = schema.filter((s) => s.type === 'table');
    const secondary = schema.filter((s) => s.type === 'index');
    for (const t of tables) db.exec(t.sql);
    if (indexes === 'all') for (const i of secondary) db.exec(i.sql);
    // the documents, parsed (as the unit of work holds them), in the order of the source's rows
    const documents = [];
    for (const t of tables) {
      const upsert = db.prepare(
        `INSERT INTO "${t.name}" (id, doc, loose) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, loose = excluded.loose`,
      );
      for (const row of source.prepare(`SELECT doc, loose FROM "${t.name}"`).iterate())
        documents.push({ upsert, doc: JSON.parse(row.doc), loose: row.loose });
    }
    const cpuStarted = cpu();
    for (let i = 0; i < documents.length; i += LAYER_TX_DOCUMENTS) {
      db.transaction(() => {
        for (let j = i; j < Math.min(documents.length, i + LAYER_TX_DOCUMENTS); j++) {
          const d = documents[j];
          d.upsert.run(d.doc._id, JSON.stringify(d.doc), d.loose);
        }
      }, 'immediate');
    }
    if (indexes === 'after') for (const i of secondary) db.exec(i.sql);
    return { usPerEvent: ((cpu() - cpuStarted) / events) * 1e6, documents: documents.length };
  } finally {
    source.close();
    db.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${target}${suffix}`, { force: true });
  }
}

/** The rebuild's CPU per event split by layer (this code only): printed, and kept for the summary. */
async function layersOf(part, r, store, projections, file) {
  const prefixes = projections.some((p) => p.prefixes.length === 0)
    ? []
    : [...new Set(projections.flatMap((p) => p.prefixes))];
  const read = await readLayer(store, prefixes, r.events);
  const all = sqliteLayer(file, r.events, 'all');
  const after = sqliteLayer(file, r.events, 'after');
  const none = sqliteLayer(file, r.events, 'none');
  const total = (r.cpuSeconds / r.events) * 1e6;
  const rest = total - read.usPerEvent - all.usPerEvent;
  const line = {
    part,
    total,
    read: read.usPerEvent,
    sqlite: all.usPerEvent,
    after: after.usPerEvent,
    none: none.usPerEvent,
    rest,
    documentsPerEvent: all.documents / r.events,
  };
  layerRows.push(line);
  console.log(
    `    layers (CPU us/event): ${fmt(total, 1)} in all = reading the events ${fmt(read.usPerEvent, 1)} + SQLite writing its ${fmt(line.documentsPerEvent, 2)} documents per event ${fmt(all.usPerEvent, 1)} (secondary indexes made after: ${fmt(after.usPerEvent, 1)}; none: ${fmt(none.usPerEvent, 1)}) + projections, unit of work, runner, GC ${fmt(rest, 1)}`,
  );
}
const layerRows = [];

// ---- storage catalog ------------------------------------------------------------------------

async function storagePart() {
  const store = SqliteEventStore.open(join(dir, 'storage-events.sqlite'), {
    synchronous: 'normal',
    pollIntervalMs: 60_000,
  });
  const seedStarted = performance.now();
  const partnerId = 'p1';
  const userId = 'u1';
  for (let d = 0; d < DEVICES; d++) {
    await store.append(
      `device-d${d}`,
      [
        {
          type: 'DeviceRegistered',
          data: { userId, partnerId, name: `device ${d}`, at: 1, client_revision: 1, sysplatform: 'linux' },
        },
      ],
      'no_stream',
    );
  }
  const files = Math.ceil(EVENTS / VERSIONS);
  for (let f = 0; f < files; f++) {
    const deviceId = `d${f % DEVICES}`;
    const path = `dir${f % 97}/sub${f % 13}/file${f}.bin`;
    const events = Array.from({ length: VERSIONS }, (_, version) => ({
      type: 'FileVersionCommitted',
      data: {
        fileId: `f${f}`,
        deviceId,
        userId,
        partnerId,
        path,
        version,
        size: 1000 + version,
        blob: randomBytes(32).toString('hex'),
        crc32: 1,
        mtime: 1,
        ctime: 1,
        at: 1 + version,
      },
    }));
    await store.append(`file-f${f}`, events, 'no_stream');
  }
  const seeded = await store.headPosition();
  console.log(
    `\nstorage catalog: seeded ${seeded} events (${files} files x ${VERSIONS} versions, ${DEVICES} devices) in ${fmt((performance.now() - seedStarted) / 1000, 1)} s`,
  );

  const count = async (docs) => {
    let documents = 0;
    for (const name of ['files', 'folders', 'versions', 'previews', 'devices', 'backup_blobs'])
      documents += await docs.collection(name).count();
    return documents;
  };
  const digests = new Map();
  for (let round = 0; round < ROUNDS; round++) {
    for (const code of codes) {
      if (STORES.includes('memory')) {
        const memory = new code.MemoryDocumentStore();
        const m = await run(code, store, memory, code.storageProjections(), seeded, 'storage memory');
        report('storage', 'memory', code, m, `(${await count(memory)} documents)`);
      }
      const file = join(dir, `storage-${code.label}-${round}.sqlite`);
      const sqlite = code.SqliteDocumentStore.open(file);
      const s = await run(code, store, sqlite, code.storageProjections(), seeded, 'storage sqlite');
      await sqlite.close();
      const { digest, documents } = digestOf(file);
      digests.set(code.label, digest);
      report('storage', 'SQLite', code, s, `(${documents} documents, digest ${digest})`);
      if (LAYERS && code === codes[0] && round === 0)
        await layersOf('storage', s, store, code.storageProjections(), file);
      await rm(file, { force: true });
    }
  }
  if (new Set(digests.values()).size > 1) console.log('  THE READ MODELS DIFFER between this code and the baseline');

  if (process.env.MONGODB_URL) {
    const code = codes[0];
    const db = `burrow_bench_${randomBytes(4).toString('hex')}`;
    const mongo = await code.MongoDocumentStore.connect(process.env.MONGODB_URL, db);
    try {
      const r = await run(code, store, mongo, code.storageProjections(), seeded);
      const documents = await count(mongo);
      const bare = await bareBulkRate(mongo, Math.min(documents, 10_000));
      report(
        'storage',
        'MongoDB',
        code,
        r,
        `(${documents} documents; the server's bare bulk write: ${fmt(bare)} docs/s, ${fmt(documents / seeded, 2)} docs per event)`,
      );
    } finally {
      await (mongo.dropDatabase ?? mongo.dropAll).call(mongo); // a baseline build may predate dropDatabase
      await mongo.close();
    }
  } else {
    console.log('  MONGODB_URL not set: MongoDB skipped (eval "$(scripts/ensure-ferretdb.sh)" for a local FerretDB)');
  }
  await store.close();
}

/**
 * The server's own rate for whole-document writes in batches of 1,000 (a rebuild's commits into
 * MongoDB hold up to 5,000: FerretDB here takes longer than the store's bound on one bulk write
 * for 5,000).
 */
async function bareBulkRate(docs, n) {
  const collection = `bench_${randomBytes(4).toString('hex')}`;
  const started = performance.now();
  for (let i = 0; i < n; i += 1000) {
    const writes = [];
    for (let j = i; j < Math.min(n, i + 1000); j++)
      writes.push({
        kind: 'put',
        collection,
        doc: { _id: `d${j}`, path: `dir/sub/file${j}.bin`, size: j, blob: 'x'.repeat(64), deleted: false },
      });
    await docs.commit(`bench-${i}`, 0, {}, writes);
  }
  return n / ((performance.now() - started) / 1000);
}

// ---- accounts -------------------------------------------------------------------------------

/** The plan catalogue and one partner, as a first start makes them (without its name reservations and process streams). */
async function seedPartner(store) {
  const partnerId = randomUUID();
  const plans = [
    { plan_id: 1, name: 'Free', storage_bytes: 5 * 2 ** 30, promo: false },
    { plan_id: 2, name: 'Plus', storage_bytes: 100 * 2 ** 30, promo: false },
    { plan_id: 3, name: 'Pro', storage_bytes: 2 ** 40, promo: false },
  ];
  await appendEvents(
    store,
    'plan-catalogue',
    plans.map((data) => ({ type: 'PlanAdded', data })),
    'no_stream',
  );
  await appendEvents(
    store,
    `partner-${partnerId}`,
    [
      {
        type: 'PartnerCreated',
        data: {
          partnerId,
          username: 'bench-partner',
          company_name: 'bench-partner',
          brand_identifier: 'bench',
          passwordHash: '',
          bytes_available: null,
          features: {},
          created_at: Math.floor(Date.now() / 1000),
        },
      },
    ],
    'no_stream',
  );
  return partnerId;
}

/** `users` users of the partner, one `UserCreated` each on its own stream (as bench:scale seeds them). */
async function seedUsers(store, partnerId, users) {
  const at = Math.floor(Date.now() / 1000);
  for (let i = 0; i < users; i++) {
    const userId = randomUUID();
    const username = `bench-user-${String(i).padStart(7, '0')}`;
    const data = {
      userId,
      partnerId,
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
}

async function accountsPart() {
  const store = SqliteEventStore.open(join(dir, 'accounts-events.sqlite'), {
    synchronous: 'normal',
    pollIntervalMs: 60_000,
  });
  const partnerId = await seedPartner(store);
  const partnerHead = await store.headPosition();
  // catch-up: read models built over the partner, before the users are appended (one file per rebuild below)
  const catchUpFiles = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const code of codes) {
      const file = join(dir, `accounts-catchup-${code.label}-${round}.sqlite`);
      const docs = code.SqliteDocumentStore.open(file);
      await run(code, store, docs, code.accountsProjections(), partnerHead, 'accounts partner');
      await docs.close();
      catchUpFiles.push(file);
    }
  }
  const seedStarted = performance.now();
  await seedUsers(store, partnerId, USERS);
  const head = await store.headPosition();
  console.log(
    `\naccounts: seeded a partner, the plan catalogue and ${USERS} users (${head} events) in ${fmt((performance.now() - seedStarted) / 1000, 1)} s`,
  );

  const digests = new Map();
  for (let round = 0; round < ROUNDS; round++) {
    for (const code of codes) {
      if (STORES.includes('memory')) {
        const m = await run(
          code,
          store,
          new code.MemoryDocumentStore(),
          code.accountsProjections(),
          head,
          'accounts memory',
        );
        report('accounts', 'memory, full rebuild', code, m);
      }
      const file = join(dir, `accounts-${code.label}-${round}.sqlite`);
      const sqlite = code.SqliteDocumentStore.open(file);
      const s = await run(code, store, sqlite, code.accountsProjections(), head, 'accounts sqlite');
      await sqlite.close();
      const full = digestOf(file);
      report('accounts', 'SQLite, full rebuild', code, s, `(${full.documents} documents, digest ${full.digest})`);
      if (LAYERS && code === codes[0] && round === 0)
        await layersOf('accounts', s, store, code.accountsProjections(), file);
      await rm(file, { force: true });
      const catchUpFile = catchUpFiles.shift();
      const resumed = code.SqliteDocumentStore.open(catchUpFile);
      const c = await run(code, store, resumed, code.accountsProjections(), head - partnerHead, 'accounts catch-up');
      await resumed.close();
      const caught = digestOf(catchUpFile);
      report('accounts', 'SQLite, catch-up', code, c, `(${caught.documents} documents, digest ${caught.digest})`);
      await rm(catchUpFile, { force: true });
      digests.set(`${code.label} full`, full.digest);
      digests.set(`${code.label} catch-up`, caught.digest);
    }
  }
  // a full rebuild and a catch-up differ in the checkpoint only, which is not a collection
  if (new Set(digests.values()).size > 1)
    console.log(`  THE READ MODELS DIFFER: ${JSON.stringify(Object.fromEntries(digests))}`);
  if (process.env.MONGODB_URL) {
    const code = codes[0];
    const db = `burrow_bench_${randomBytes(4).toString('hex')}`;
    const mongo = await code.MongoDocumentStore.connect(process.env.MONGODB_URL, db);
    try {
      const r = await run(code, store, mongo, code.accountsProjections(), head, 'accounts mongodb');
      let documents = 0;
      for (const name of ['users', 'user_credentials', 'feed_entries', 'feed_users'])
        documents += await mongo.collection(name).count();
      const bare = await bareBulkRate(mongo, Math.min(documents, 10_000));
      report(
        'accounts',
        'MongoDB, full rebuild',
        code,
        r,
        `(${documents} documents; the server's bare bulk write: ${fmt(bare)} docs/s, ${fmt(documents / head, 2)} docs per event)`,
      );
    } finally {
      await (mongo.dropDatabase ?? mongo.dropAll).call(mongo); // a baseline build may predate dropDatabase
      await mongo.close();
    }
  }
  await store.close();
}

console.log(
  `bench:rebuild ${new Date().toISOString()}, code: ${codes.map((c) => c.label).join(', ')}, ${ROUNDS} round(s), Node ${process.version}, SQLite driver ${sqliteDriverChoice().name} (this code's), load average ${loadavg()
    .map((l) => fmt(l, 1))
    .join(' ')}`,
);
try {
  if (PARTS.includes('storage')) await storagePart();
  if (PARTS.includes('accounts')) await accountsPart();
} finally {
  await rm(dir, { recursive: true, force: true });
}

console.log(
  `\nrebuilds, ${new Date().toISOString()}, load average at the end ${loadavg()
    .map((l) => fmt(l, 1))
    .join(' ')} (2 cores)`,
);
console.log(
  'part      document store          code        seconds   events/s  vs target (100k/s; MongoDB 20k/s)  CPU us/event',
);
for (const [part, storeName, label, r] of rows) {
  console.log(
    `${part.padEnd(9)} ${storeName.padEnd(23)} ${label.padEnd(9)} ${fmt(r.seconds, 1).padStart(9)} ${fmt(r.rate).padStart(10)} ${(r.rate / (storeName.startsWith('MongoDB') ? MONGODB_TARGET : TARGET)).toFixed(3).padStart(33)}x ${fmt((r.cpuSeconds / r.events) * 1e6, 1).padStart(13)}`,
  );
}
if (layerRows.length) {
  console.log(
    `\nwhere a rebuild's CPU goes (this code, first round, CPU us per event; ${fmt(TARGET)} events/s on one core leaves ${fmt(1e6 / TARGET, 0)} us per event for all of it)`,
  );
  console.log(
    'part      in all  read events  SQLite writes (indexes after; none)  documents/event  projections, unit of work, runner, GC',
  );
  for (const l of layerRows) {
    console.log(
      `${l.part.padEnd(9)} ${fmt(l.total, 1).padStart(6)} ${fmt(l.read, 1).padStart(12)} ${`${fmt(l.sqlite, 1)} (${fmt(l.after, 1)}; ${fmt(l.none, 1)})`.padStart(36)} ${fmt(l.documentsPerEvent, 2).padStart(16)} ${fmt(l.rest, 1).padStart(38)}`,
    );
  }
}
