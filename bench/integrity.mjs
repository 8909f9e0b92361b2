#!/usr/bin/env node
/**
 * What checking stored bytes costs (issue 17), in one run, against reading the same blobs plainly:
 *
 * - the scrub rate: `admin verify-blobs` (the command operators run; the periodic scrub does the
 *   same work, throttled) over a local blob folder, in GB per minute as its summary reports it,
 *   next to a plain read of every blob and to sha256 alone over the same bytes;
 * - the cost of checking a whole download on the way (`verifyingReader`, which the gateway wraps
 *   around its blob store): a whole read through it against a plain read.
 *
 * Blobs are written with `LocalBlobStore.put` into a fresh data directory (each a unique head and a
 * shared random block, so generating GBs costs nothing and nothing compresses). Reads are warm (the
 * page cache holds what was just written) unless BENCH_COLD=1 and the bench runs as root: then the
 * page cache is dropped before each cold pass (`echo 3 > /proc/sys/vm/drop_caches`), which shows
 * the disk's rate.
 *
 *   npm run bench:integrity        (BENCH_SCALE=small for a quick run; BENCH_ROUNDS, default 3; BENCH_DIR; BENCH_COLD=1)
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { LocalBlobStore, verifyingReader } = await import(join(root, 'libs/blobs/dist/index.js'));

const MiB = 1024 * 1024;
const small = process.env.BENCH_SCALE === 'small';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BLOBS = small ? { count: 8, size: 32 * MiB } : { count: 32, size: 64 * MiB };
const cold = process.env.BENCH_COLD === '1' && process.getuid?.() === 0;

const work = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'burrow-bench-integrity-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
process.on('SIGINT', () => process.exit(130));
const dataDir = join(work, 'data');
const store = new LocalBlobStore(join(dataDir, 'blobs'));

// ---- the blobs ---------------------------------------------------------------------------------
const block = randomBytes(MiB);
const keys = [];
for (let i = 0; i < BLOBS.count; i++) {
  const head = Buffer.from(`blob ${i} ${randomBytes(16).toString('hex')}`.padEnd(64));
  const parts = [head, ...Array.from({ length: BLOBS.size / MiB }, () => block)];
  keys.push((await store.put(Readable.from(parts))).key);
}
const totalBytes = BLOBS.count * (BLOBS.size + 64);
const GB = totalBytes / 1e9;

const sink = () => new Writable({ write: (_c, _e, cb) => cb() });
const dropCaches = () => spawnSync('sh', ['-c', 'sync; echo 3 > /proc/sys/vm/drop_caches']);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function timed(run) {
  const t = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - t) / 1e9;
}
const rounds = async (run, before) => {
  const seconds = [];
  for (let r = 0; r < ROUNDS; r++) {
    before?.();
    seconds.push(await timed(run));
  }
  return median(seconds);
};

// ---- passes ------------------------------------------------------------------------------------
const plainRead = async () => {
  for (const key of keys) await pipeline(await store.get(key), sink());
};
const checking = verifyingReader(store, () => {
  throw new Error('a blob does not verify');
});
const verifiedRead = async () => {
  for (const key of keys) await pipeline(await checking.get(key), sink());
};
const hashOnly = async () => {
  for (let i = 0; i < BLOBS.count; i++) {
    const h = createHash('sha256');
    for (let m = 0; m < BLOBS.size / MiB; m++) h.update(block);
    h.digest();
  }
};
const env = {
  PATH: process.env.PATH ?? '',
  BURROW_DATA_DIR: dataDir,
  BURROW_SECRET: randomBytes(32).toString('hex'),
  LOG_LEVEL: 'silent',
  BURROW_PARTNER_USERNAME: 'bench-partner',
  BURROW_PARTNER_PASSWORD: 'bench-partner-password',
};
let lastSummary = null;
const verifyBlobs = async () => {
  const run = spawnSync(process.execPath, [join(root, 'apps/admin/dist/main.js'), 'verify-blobs'], {
    env,
    encoding: 'utf8',
    maxBuffer: 64 * MiB,
  });
  if (run.status !== 0) throw new Error(`verify-blobs exited ${run.status}: ${run.stderr.slice(-2000)}`);
  lastSummary = JSON.parse(run.stdout);
};
/** the scrub's own rate: its summary times the pages (the command's start-up, Nest and the in-process services, is not the scrub) */
const scrubSeconds = async (before) => {
  const seconds = [];
  for (let r = 0; r < ROUNDS; r++) {
    before?.();
    await verifyBlobs();
    seconds.push(lastSummary.seconds);
  }
  return median(seconds);
};

const perMin = (seconds) => (GB / seconds) * 60;
const fmt = (x) => x.toFixed(2);
console.log(
  `blobs: ${BLOBS.count} x ${BLOBS.size / MiB} MiB = ${fmt(GB)} GB; rounds: ${ROUNDS} (median); load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);

const plain = await rounds(plainRead);
const verified = await rounds(verifiedRead);
const hash = await rounds(hashOnly);
await verifyBlobs(); // a first run builds the admin's data directory (event store, read models)
const scrub = await scrubSeconds();
console.log('\nwarm (page cache):');
console.log(`  plain read of every blob         ${fmt(perMin(plain))} GB/min   (baseline)`);
console.log(`  sha256 alone, same bytes         ${fmt(perMin(hash))} GB/min   x${fmt(plain / hash)}`);
console.log(
  `  read checked on the way          ${fmt(perMin(verified))} GB/min   x${fmt(plain / verified)}   (what a whole download through the gateway pays)`,
);
console.log(
  `  admin verify-blobs (the scrub)   ${fmt(perMin(scrub))} GB/min   x${fmt(plain / scrub)}   (its summary's seconds: ${fmt(scrub)} s for ${lastSummary.blobs} blobs)`,
);
if (cold) {
  const plainCold = await rounds(plainRead, dropCaches);
  const scrubCold = await scrubSeconds(dropCaches);
  console.log('\ncold (page cache dropped before each pass):');
  console.log(`  plain read of every blob         ${fmt(perMin(plainCold))} GB/min   (baseline)`);
  console.log(`  admin verify-blobs (the scrub)   ${fmt(perMin(scrubCold))} GB/min   x${fmt(plainCold / scrubCold)}`);
} else {
  console.log('\n(cold passes skipped: BENCH_COLD=1 as root drops the page cache before each)');
}
writeFileSync(join(work, 'done'), '');
