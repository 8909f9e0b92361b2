/**
 * Zip64, for real: one archive with an entry over 4 GiB (so its sizes, and the offsets of every
 * entry after it, need zip64 fields) and over 65,535 entries (so the end record needs the zip64
 * end record and locator), streamed to a temporary file and checked by `unzip -t` (which reads
 * and CRCs every byte) and, where present, python's zipfile. The big entry is zeros except for
 * patterned first and last 64 KiB; the file is written sparse (all-zero chunks become holes), so
 * the run costs CPU (CRC-32 over 4 GiB twice: here and in unzip), not 4 GiB of disk. Timings are
 * printed as a diagnostic (see docs/decisions.md, "Zips", for the figures seen).
 */
import assert from 'node:assert/strict';
import { closeSync, ftruncateSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { after, it } from 'node:test';
import { crc32 } from 'node:zlib';
import { planZip, writeZip, type ZipFileEntry } from './index.js';
import { bufferEntry, Collector, run, toolAvailable } from '../../testing/zip-fixtures.js';

const MTIME = 1_700_000_000;
const MiB = 1024 * 1024;
const BIG = 4 * 1024 * MiB + MiB + 7; // over 4 GiB, not a multiple of anything
const EDGE = 64 * 1024;
const MANY = 70_000; // files, plus their folders: well over 65,535 entries
const PER_FOLDER = 1000;

const tmp = mkdtempSync(join(tmpdir(), 'zip64-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const ZERO = Buffer.alloc(MiB);
const head = Buffer.alloc(EDGE, 0);
const tail = Buffer.alloc(EDGE, 0);
for (let i = 0; i < EDGE; i++) {
  head[i] = (i * 7 + 1) & 0xff;
  tail[i] = (i * 13 + 5) & 0xff;
}

/** The big entry's bytes [start, end]: `head`, zeros, `tail`, in chunks of at most 1 MiB. */
function* bigContent(start: number, end: number): Generator<Buffer> {
  let at = start;
  while (at <= end) {
    if (at < EDGE) {
      const stop = Math.min(EDGE, end + 1);
      yield head.subarray(at, stop);
      at = stop;
    } else if (at >= BIG - EDGE) {
      yield tail.subarray(at - (BIG - EDGE), end + 1 - (BIG - EDGE));
      at = end + 1;
    } else {
      const stop = Math.min(at + MiB, BIG - EDGE, end + 1);
      yield ZERO.subarray(0, stop - at);
      at = stop;
    }
  }
}

/** computed in the test (only when it runs) */
let bigCrc = 0;

const small = (i: number) => Buffer.from(`file ${i}\n`);
const smallPath = (i: number) =>
  `many/${String(Math.floor(i / PER_FOLDER)).padStart(3, '0')}/${String(i).padStart(6, '0')}.txt`;

const entries = async function* (): AsyncGenerator<ZipFileEntry> {
  yield {
    path: 'big/huge.bin',
    size: BIG,
    crc32: bigCrc,
    mtime: MTIME,
    id: 'big',
    open: async (start, end) => Readable.from(bigContent(start, end), { objectMode: false }),
  };
  for (let i = 0; i < MANY; i++) yield bufferEntry(smallPath(i), small(i), MTIME);
};

/** Writes to a file, leaving all-zero chunks as holes. */
class SparseFile extends Writable {
  private position = 0;
  constructor(private readonly fd: number) {
    super({ highWaterMark: 4 * MiB });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    if (!(chunk.length <= MiB && chunk.equals(ZERO.subarray(0, chunk.length))))
      writeSync(this.fd, chunk, 0, chunk.length, this.position);
    this.position += chunk.length;
    done();
  }

  override _final(done: (err?: Error | null) => void): void {
    ftruncateSync(this.fd, this.position);
    closeSync(this.fd);
    done();
  }
}

it(
  'writes an archive with an entry over 4 GiB and over 65,535 entries that unzip -t accepts',
  {
    skip: toolAvailable('unzip') ? false : 'the `unzip` tool is missing (apt-get install unzip; .ci/run installs it)',
    timeout: 10 * 60_000,
  },
  async (t) => {
    for (const chunk of bigContent(0, BIG - 1)) bigCrc = crc32(chunk, bigCrc);
    bigCrc >>>= 0;
    const started = Date.now();
    const cpu = process.cpuUsage();
    const file = join(tmp, 'zip64.zip');
    const plan = await planZip(entries);
    const planned = Date.now();
    const folders = 2 + Math.ceil(MANY / PER_FOLDER);
    assert.equal(plan.count, 1 + MANY + folders);
    await writeZip(entries, new SparseFile(openSync(file, 'w')));
    const written = Date.now();
    const { user, system } = process.cpuUsage(cpu);

    const fd = openSync(file, 'r');
    const slice = (start: number, end: number) => {
      const buf = Buffer.alloc(end - start + 1);
      readSync(fd, buf, 0, buf.length, start);
      return buf;
    };
    const size = Number(run('stat', ['-c', '%s', file]).trim());
    assert.equal(size, plan.length, 'planned length');
    // the zip64 end record, locator and end record, the end record's counts saturated
    const end = slice(size - 22, size - 1);
    assert.equal(end.readUInt32LE(0), 0x06054b50);
    assert.equal(end.readUInt16LE(10), 0xffff);
    assert.equal(slice(size - 42, size - 39).readUInt32LE(0), 0x07064b50);

    const tested = run('unzip', ['-t', file]);
    assert.match(tested, /No errors detected in compressed data/);
    assert.match(tested, new RegExp(`testing: big/huge.bin +OK`));
    const unzipped = Date.now();
    if (toolAvailable('python3', ['-c', 'import zipfile'])) {
      const script = `import zipfile, sys
z = zipfile.ZipFile(sys.argv[1])
infos = z.infolist()
big = z.getinfo('big/huge.bin')
print(len(infos), big.file_size, big.CRC, big.header_offset, z.getinfo('${smallPath(MANY - 1)}').header_offset, z.read('${smallPath(MANY - 1)}').decode())`;
      const [count, bigSize, crc, bigOffset, lastOffset, ...lastContent] = run('python3', ['-c', script, file])
        .trim()
        .split(' ');
      assert.deepEqual(
        [Number(count), Number(bigSize), Number(crc), Number(bigOffset)],
        [plan.count, BIG, bigCrc, 0 + 'big/'.length + 39],
      );
      assert.ok(Number(lastOffset) > 2 ** 32, 'entries after the big one sit past 4 GiB');
      assert.equal(
        lastContent.join(' '),
        small(MANY - 1)
          .toString()
          .trim(),
      );
    }

    // ranges of the zip64 archive: across the end of the big entry's data, and the tail
    const bigDataEnd = 'big/'.length + 39 + 30 + 'big/huge.bin'.length + 9 + 20 + BIG;
    for (const [start, stop] of [
      [bigDataEnd - 5000, bigDataEnd + 5000],
      [size - 5000, size - 1],
    ]) {
      const out = new Collector();
      await writeZip(entries, out, { start, end: stop });
      assert.ok(out.bytes().equals(slice(start, stop)), `range ${start}-${stop}`);
    }
    closeSync(fd);
    t.diagnostic(
      `zip64: ${plan.count} entries, ${plan.length} bytes; planned in ${planned - started} ms, written in ${written - planned} ms (plan + write: ${Math.round((user + system) / 1000)} ms CPU), unzip -t ${unzipped - written} ms, all ${Date.now() - started} ms`,
    );
  },
);
