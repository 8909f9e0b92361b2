#!/usr/bin/env node
/**
 * Zip writing, store mode, on the same generated files in one run: the gateway's own writer
 * (apps/gateway/src/transfers/zip; by default, and with its optional CRC-32 check of each blob), archiver's
 * ZipArchive({ store: true }), Info-ZIP's `zip -0 -r`, and plain reading of the files (the
 * ceiling). Each contender runs in its own process writing to /dev/null (once to warm up, then
 * measured), rounds interleaved, medians kept; prints throughput, CPU ms per GB of archive, the process's peak RSS, and ratios
 * against our writer. Files: 200 x 1 MiB + 2 x 50 MiB of random bytes in a temporary directory,
 * then 5,000 x 4 KiB for the per-file overhead.
 *
 *   npm run bench:zip        (BENCH_ROUNDS, BENCH_DIR to change)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const zipModule = '../apps/gateway/dist/transfers/zip/index.js';
const MiB = 1024 * 1024;
const MTIME = 1_700_000_000;

// ---- a contender, in a child process: `zip.mjs --child <name> <dir>` prints its figures -------
if (process.argv[2] === '--child') {
  const [, , , name, dir] = process.argv;
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  const root = join(dir, 'files');
  const devNull = () => createWriteStream('/dev/null', { highWaterMark: MiB });
  const contenders = {
    async ours(verifyCrc = false) {
      const { writeZip, planZip } = await import(zipModule);
      const entries = async function* () {
        for (const f of manifest) {
          yield {
            ...f,
            mtime: MTIME,
            open: async (start, end) => createReadStream(join(root, f.path), { start, end, highWaterMark: MiB }),
          };
        }
      };
      const { length } = await planZip(entries);
      await writeZip(entries, devNull(), undefined, { verifyCrc });
      return length;
    },
    'ours, verifyCrc': () => contenders.ours(true),
    async archiver() {
      const { ZipArchive } = await import('archiver');
      const archive = new ZipArchive({ store: true });
      let bytes = 0;
      archive.on('data', (chunk) => (bytes += chunk.length));
      const done = pipeline(archive, devNull());
      for (const f of manifest) archive.file(join(root, f.path), { name: f.path, date: new Date(MTIME * 1000) });
      await archive.finalize();
      await done;
      return bytes;
    },
    async 'read files only'() {
      const out = devNull();
      let bytes = 0;
      for (const f of manifest) {
        for await (const chunk of createReadStream(join(root, f.path), { highWaterMark: MiB })) {
          bytes += chunk.length;
          if (!out.write(chunk)) await new Promise((resolve) => out.once('drain', resolve));
        }
      }
      await new Promise((resolve) => out.end(resolve));
      return bytes;
    },
  };
  await contenders[name](); // warm: module loading and the JIT, as in a gateway that has served before
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  const bytes = await contenders[name]();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const { user, system } = process.cpuUsage(cpu);
  console.log(JSON.stringify({ bytes, ms, cpuMs: (user + system) / 1000, rssKiB: process.resourceUsage().maxRSS }));
  process.exit(0);
}

// ---- the parent: files, rounds, tables -----------------------------------------------------
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const top = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'burrow-bench-zip-'));
process.on('exit', () => rmSync(top, { recursive: true, force: true }));
const { crc32 } = await import('node:zlib');
const self = new URL(import.meta.url).pathname;
const hasZip = spawnSync('zip', ['-v'], { stdio: 'ignore' }).status === 0;
const hasTime = existsSync('/usr/bin/time');
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

/** Writes the files (random bytes) and the manifest a child builds its entries from. */
function makeSet(name, files) {
  const dir = join(top, name);
  const manifest = files.map(([path, size]) => {
    const full = join(dir, 'files', path);
    mkdirSync(join(full, '..'), { recursive: true });
    const content = randomBytes(size);
    writeFileSync(full, content);
    return { path, size, crc32: crc32(content) >>> 0, id: path };
  });
  manifest.sort((a, b) => (a.path < b.path ? -1 : 1));
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
  return { dir, count: manifest.length, bytes: manifest.reduce((sum, f) => sum + f.size, 0) };
}

/** `zip -0 -r -q - .` to /dev/null; CPU and peak RSS from GNU time when present. */
function infoZip(set) {
  const started = process.hrtime.bigint();
  const command = 'zip -0 -r -q -X - . > /dev/null';
  const cwd = join(set.dir, 'files');
  const r = hasTime
    ? spawnSync('/usr/bin/time', ['-f', '%U %S %M', 'bash', '-c', command], { cwd, encoding: 'utf8' })
    : spawnSync('bash', ['-c', `${command}; times`], { cwd, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`zip failed: ${r.stderr}`);
  if (hasTime) {
    const [user, system, rssKiB] = r.stderr.trim().split('\n').at(-1).split(' ').map(Number);
    return { bytes: set.bytes, ms, cpuMs: (user + system) * 1000, rssKiB };
  }
  const seconds = [...r.stdout.matchAll(/(\d+)m([\d.]+)s/g)].slice(2).map(([, m, s]) => Number(m) * 60 + Number(s));
  return { bytes: set.bytes, ms, cpuMs: (seconds[0] + seconds[1]) * 1000, rssKiB: NaN };
}

function benchSet(label, set) {
  const child = (name) =>
    JSON.parse(execFileSync(process.execPath, [self, '--child', name, set.dir], { encoding: 'utf8' }));
  const names = ['ours', 'ours, verifyCrc', 'archiver', ...(hasZip ? ['zip -0 -r'] : []), 'read files only'];
  const results = new Map(names.map((n) => [n, []]));
  // warm the page cache, then interleave rounds so a slow moment of the shared machine hits every contender
  child('read files only');
  for (let round = 0; round < ROUNDS; round++)
    for (const name of names) results.get(name).push(name === 'zip -0 -r' ? infoZip(set) : child(name));
  const summary = new Map(
    names.map((name) => {
      const runs = results.get(name);
      const bytes = runs[0].bytes;
      const ms = median(runs.map((r) => r.ms));
      const cpuMs = median(runs.map((r) => r.cpuMs));
      return [
        name,
        {
          bytes,
          ms,
          mbps: bytes / MiB / (ms / 1000),
          cpuPerGB: cpuMs / (bytes / 2 ** 30),
          rssMiB: median(runs.map((r) => r.rssKiB)) / 1024,
        },
      ];
    }),
  );
  const ours = summary.get('ours');
  console.log(
    `\n${label}: ${set.count} files, ${(set.bytes / MiB).toFixed(0)} MiB, to /dev/null, median of ${ROUNDS} rounds`,
  );
  if (!hasZip) console.log('zip -0 -r: SKIPPED (Info-ZIP `zip` is not installed: apt-get install zip)');
  console.log('contender             archive MiB       ms    MiB/s  x ours   CPU ms/GB  x ours   peak RSS MiB');
  for (const [name, s] of summary) {
    console.log(
      `${name.padEnd(20)}  ${(s.bytes / MiB).toFixed(1).padStart(11)}  ${s.ms.toFixed(0).padStart(7)}  ${s.mbps.toFixed(0).padStart(7)}  ${(s.mbps / ours.mbps).toFixed(2).padStart(6)}  ${s.cpuPerGB.toFixed(0).padStart(10)}  ${(s.cpuPerGB / ours.cpuPerGB).toFixed(2).padStart(6)}  ${Number.isNaN(s.rssMiB) ? '           n/a' : s.rssMiB.toFixed(0).padStart(14)}`,
    );
  }
}

const pad = (n, width) => String(n).padStart(width, '0');
const mixed = makeSet('mixed', [
  ...Array.from({ length: 200 }, (_, i) => [`small/${pad(Math.floor(i / 20), 2)}/file-${pad(i, 3)}.bin`, MiB]),
  ...Array.from({ length: 2 }, (_, i) => [`big/big-${i}.bin`, 50 * MiB]),
]);
const tiny = makeSet(
  'tiny',
  Array.from({ length: 5000 }, (_, i) => [`d${pad(Math.floor(i / 100), 2)}/f${pad(i, 4)}.bin`, 4096]),
);

console.log(`Zip, store mode, ${new Date().toISOString()}, node ${process.version}`);
benchSet('200 x 1 MiB + 2 x 50 MiB', mixed);
benchSet('5,000 x 4 KiB (per-file overhead)', tiny);
console.log(
  `\nload average at the end: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} (2 cores; figures from a loaded machine are slower)`,
);
console.log(
  'RSS is the whole process (node itself is ~45 MiB); "read files only" is the ceiling: the same files read and discarded.',
);
