#!/usr/bin/env node
/**
 * Read-model rebuild benchmark: the storage catalog's projections (files, folders, versions,
 * previews, devices, usage...) rebuilt from BENCH_EVENTS seeded events (`FileVersionCommitted`, 5
 * versions per file, files in nested folders of 10 devices) into each document store this run
 * has: in memory always, MongoDB/FerretDB when MONGODB_URL is set. Prints events/s against the
 * target (>= 20,000 events/s into MongoDB), and, as what bounds it, the same server's rate for a
 * bare bulk write of as many documents as the rebuild wrote, measured in this run.
 *
 *   npm run bench:rebuild            (BENCH_EVENTS, default 100000; MONGODB_URL to include MongoDB)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

const { SqliteEventStore } = await import('../libs/event-store/dist/index.js');
const { MemoryDocumentStore, MongoDocumentStore } = await import('../libs/documents/dist/index.js');
const { ProjectionRunner } = await import('../libs/eventsourcing/dist/index.js');
const { storageProjections } = await import('../apps/storage-catalog/dist/storage-catalog.service.js');

const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const VERSIONS = 5;
const DEVICES = 10;
const TARGET = 20_000;

const dir = await mkdtemp(join(tmpdir(), 'burrow-bench-rebuild-'));
const store = SqliteEventStore.open(join(dir, 'events.sqlite'), { synchronous: 'normal', pollIntervalMs: 60_000 });

const seedStarted = performance.now();
const partnerId = 'p1';
const userId = 'u1';
for (let d = 0; d < DEVICES; d++) {
  await store.append(`device-d${d}`, [{ type: 'DeviceRegistered', data: { userId, partnerId, name: `device ${d}`, at: 1, client_revision: 1, sysplatform: 'linux' } }], 'no_stream');
}
const files = Math.ceil(EVENTS / VERSIONS);
for (let f = 0; f < files; f++) {
  const deviceId = `d${f % DEVICES}`;
  const path = `dir${f % 97}/sub${f % 13}/file${f}.bin`;
  const events = Array.from({ length: VERSIONS }, (_, version) => ({
    type: 'FileVersionCommitted',
    data: { fileId: `f${f}`, deviceId, userId, partnerId, path, version, size: 1000 + version, blob: randomBytes(32).toString('hex'), crc32: 1, mtime: 1, ctime: 1, at: 1 + version },
  }));
  await store.append(`file-f${f}`, events, 'no_stream');
}
const seeded = await store.headPosition();
console.log(`seeded ${seeded} events (${files} files x ${VERSIONS} versions, ${DEVICES} devices) in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

/** Rebuilds into `docs`; returns events/s and how many documents the read models hold. */
async function rebuild(docs) {
  const runner = new ProjectionRunner(store, docs, storageProjections());
  const started = performance.now();
  await runner.start();
  const seconds = (performance.now() - started) / 1000;
  await runner.stop();
  let documents = 0;
  for (const name of ['files', 'folders', 'versions', 'previews', 'devices', 'backup_blobs']) documents += await docs.collection(name).count();
  return { rate: seeded / seconds, seconds, documents };
}

/** The server's own rate for whole-document writes in batches of 5,000 (what a rebuild's commits do). */
async function bareBulkRate(docs, n) {
  const collection = `bench_${randomBytes(4).toString('hex')}`;
  const started = performance.now();
  for (let i = 0; i < n; i += 5000) {
    const writes = [];
    for (let j = i; j < Math.min(n, i + 5000); j++) writes.push({ kind: 'put', collection, doc: { _id: `d${j}`, path: `dir/sub/file${j}.bin`, size: j, blob: 'x'.repeat(64), deleted: false } });
    await docs.commit(`bench-${i}`, 0, {}, writes);
  }
  return n / ((performance.now() - started) / 1000);
}

const rows = [];
const memory = await rebuild(new MemoryDocumentStore());
rows.push(['in memory', memory, null]);
if (process.env.MONGODB_URL) {
  const db = `burrow_bench_${randomBytes(4).toString('hex')}`;
  const mongo = await MongoDocumentStore.connect(process.env.MONGODB_URL, db);
  try {
    const result = await rebuild(mongo);
    const bare = await bareBulkRate(mongo, Math.min(result.documents, 50_000));
    rows.push([`MongoDB wire (${process.env.MONGODB_URL})`, result, bare]);
  } finally {
    await mongo.dropAll();
    await mongo.close();
  }
} else {
  console.log('MONGODB_URL not set: MongoDB skipped (eval "$(scripts/ensure-ferretdb.sh)" for a local FerretDB)');
}

console.log(`\nrebuild of the storage catalog's read models from ${seeded} events, ${new Date().toISOString()}`);
console.log('document store                         seconds   events/s  vs target (20k/s)  documents  bare bulk docs/s  docs per event');
for (const [name, r, bare] of rows) {
  console.log(
    `${name.padEnd(38)} ${r.seconds.toFixed(1).padStart(7)} ${r.rate.toFixed(0).padStart(10)} ${(r.rate / TARGET).toFixed(2).padStart(17)}x ${String(r.documents).padStart(10)} ${bare ? bare.toFixed(0).padStart(17) : '                -'} ${(r.documents / seeded).toFixed(2).padStart(15)}`,
  );
}
await store.close();
await rm(dir, { recursive: true, force: true });
