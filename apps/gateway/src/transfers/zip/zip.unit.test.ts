/**
 * The zip writer: archives that the real `unzip` tests and extracts byte for byte (UTF-8 names,
 * nested folders, empty files, times), the same bytes every time, a planned length equal to what
 * is written, every byte range equal to that slice of the whole archive while opening only the
 * blobs (and sub-ranges) it covers, and failures that reject instead of ending the output.
 * The zip64 limits (> 65,535 entries, an entry > 4 GiB) are in zip64.slow.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { createServer, get, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { crc32 } from 'node:zlib';
import { planZip, writeZip, type ZipEntries, ZipError, type ZipFileEntry, type ZipRange } from './index.js';
import { dosDateTime } from './records.js';
import { withServer } from '../../testing/http-serve.js';
import { bufferEntry, Collector, fromArray, type OpenCall, run, toolAvailable } from '../../testing/zip-fixtures.js';

const MTIME = 1_700_000_000; // 2023-11-14T22:13:20Z
const HAS_UNZIP = toolAvailable('unzip');
const HAS_PYTHON = toolAvailable('python3', ['-c', 'import zipfile']);
const NO_UNZIP = HAS_UNZIP ? false : 'the `unzip` tool is missing (apt-get install unzip; .ci/run installs it)';

const tmp = mkdtempSync(join(tmpdir(), 'zip-unit-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** Random bytes seeded by a number, so failures reproduce. */
function pseudoRandom(length: number, seed: number): Buffer {
  const buf = Buffer.alloc(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    buf[i] = x & 0xff;
  }
  return buf;
}

/** Files in path order (JS order), with names that need UTF-8, nesting, empty files, odd sizes. */
const CONTENT: [string, Buffer][] = (
  [
    ['README.txt', Buffer.from('hello zip\n')],
    ['a/b/c/deep.bin', pseudoRandom(200_000, 1)],
    ['a/b/empty.txt', Buffer.alloc(0)],
    ['a/b/z.txt', Buffer.from('z')],
    ['a/x.txt', Buffer.from('x in a\n')],
    ['a b/space name.txt', Buffer.from('spaces')],
    ['caf\u00e9/r\u00e9sum\u00e9.txt', Buffer.from('accents')],
    ['empty-dir-sibling.txt', Buffer.alloc(0)],
    ['\u65e5\u672c/\u6771\u4eac/\u5730\u56f3.png', pseudoRandom(65_537, 2)],
    ['\u{1F600}/\u{1F680} rocket.txt', Buffer.from('emoji')],
  ] as [string, Buffer][]
).sort(([a], [b]) => (a < b ? -1 : 1));

const entriesOf = (content: [string, Buffer][], opens?: OpenCall[], mtime = MTIME): ZipEntries =>
  fromArray(content.map(([p, c]) => bufferEntry(p, c, mtime, opens)));

async function zipBytes(entries: ZipEntries, range?: ZipRange): Promise<Buffer> {
  const out = new Collector();
  await writeZip(entries, out, range);
  return out.bytes();
}

function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory()
      ? [`${prefix}${d.name}/`, ...listFiles(join(dir, d.name), `${prefix}${d.name}/`)]
      : [`${prefix}${d.name}`],
  );
}

describe('zip writer: archives the real unzip accepts', () => {
  it(
    'unzip -t passes and unzip -d extracts every file byte for byte, with its folders and time',
    { skip: NO_UNZIP },
    async () => {
      const archive = await zipBytes(entriesOf(CONTENT));
      const file = join(tmp, 'full.zip');
      writeFileSync(file, archive);
      const tested = run('unzip', ['-t', file]);
      assert.match(tested, /No errors detected/);
      const dest = join(tmp, 'out');
      run('unzip', ['-q', file, '-d', dest]);
      const expectedDirs = [
        'a/',
        'a/b/',
        'a/b/c/',
        'a b/',
        'caf\u00e9/',
        '\u65e5\u672c/',
        '\u65e5\u672c/\u6771\u4eac/',
        '\u{1F600}/',
      ];
      assert.deepEqual(listFiles(dest).sort(), [...CONTENT.map(([p]) => p), ...expectedDirs].sort());
      for (const [path, content] of CONTENT) {
        assert.ok(readFileSync(join(dest, path)).equals(content), `${path} differs after extraction`);
        assert.equal(statSync(join(dest, path)).mtimeMs / 1000, MTIME, `${path}'s time (extended timestamp)`);
      }
    },
  );

  it(
    'lists folder entries before their first file, flags UTF-8 names, stores, and gives DOS times in UTC',
    { skip: HAS_PYTHON ? false : 'python3 is missing' },
    async () => {
      const file = join(tmp, 'list.zip');
      writeFileSync(file, await zipBytes(entriesOf(CONTENT)));
      const script = `import zipfile, json, sys
z = zipfile.ZipFile(sys.argv[1])
print(json.dumps([[i.filename, i.flag_bits, i.compress_type, list(i.date_time), i.file_size, i.CRC, i.external_attr >> 16] for i in z.infolist()]))`;
      const listed = JSON.parse(run('python3', ['-c', script, file])) as [
        string,
        number,
        number,
        number[],
        number,
        number,
        number,
      ][];
      assert.deepEqual(
        listed.map((e) => e[0]),
        [
          'README.txt',
          'a b/',
          'a b/space name.txt',
          'a/',
          'a/b/',
          'a/b/c/',
          'a/b/c/deep.bin',
          'a/b/empty.txt',
          'a/b/z.txt',
          'a/x.txt',
          'caf\u00e9/',
          'caf\u00e9/r\u00e9sum\u00e9.txt',
          'empty-dir-sibling.txt',
          '\u65e5\u672c/',
          '\u65e5\u672c/\u6771\u4eac/',
          '\u65e5\u672c/\u6771\u4eac/\u5730\u56f3.png',
          '\u{1F600}/',
          '\u{1F600}/\u{1F680} rocket.txt',
        ],
      );
      for (const [name, flags, method, time, size, crc, mode] of listed) {
        assert.equal(flags & 0x0800, 0x0800, `${name}: UTF-8 flag`);
        assert.equal(flags & 0x0008, 0, `${name}: no data descriptor`);
        assert.equal(method, 0, `${name}: stored`);
        assert.deepEqual(time, [2023, 11, 14, 22, 13, 20], `${name}: DOS time in UTC`);
        const content = CONTENT.find(([p]) => p === name)?.[1];
        if (content) assert.deepEqual([size, crc, mode], [content.length, crc32(content) >>> 0, 0o100644]);
        else assert.deepEqual([name.endsWith('/'), size, mode], [true, 0, 0o040755]);
      }
    },
  );

  it(
    'a file named apart (archivePath) beside a folder of its path: unzip extracts both, and the ETag names the archive name',
    { skip: NO_UNZIP },
    async () => {
      const file = Buffer.from('the file called a');
      const inner = Buffer.from('a file inside the folder called a');
      const twin = { ...bufferEntry('Top/a', file, MTIME), archivePath: 'Top/a (file)' };
      const entries = fromArray([twin, bufferEntry('Top/a/x.txt', inner, MTIME)]);
      const zip = join(tmp, 'twins.zip');
      writeFileSync(zip, await zipBytes(entries));
      const out = join(tmp, 'twins');
      run('unzip', ['-q', zip, '-d', out]);
      assert.deepEqual(listFiles(out).sort(), ['Top/', 'Top/a (file)', 'Top/a/', 'Top/a/x.txt']);
      assert.ok(readFileSync(join(out, 'Top', 'a (file)')).equals(file));
      assert.ok(readFileSync(join(out, 'Top', 'a', 'x.txt')).equals(inner));
      assert.notEqual(
        (await planZip(entries)).etag,
        (
          await planZip(
            fromArray([{ ...twin, archivePath: 'Top/a (file 2)' }, bufferEntry('Top/a/x.txt', inner, MTIME)]),
          )
        ).etag,
      );
      // an archive name in another folder, or '..', is refused
      for (const archivePath of ['Other/a', 'Top/..', 'Top/b/']) {
        await assert.rejects(
          planZip(fromArray([{ ...twin, archivePath }])),
          (err: ZipError) => err.code === 'ENTRY',
          archivePath,
        );
      }
    },
  );

  it('extracts an empty archive, and a single root file', { skip: NO_UNZIP }, async () => {
    const empty = join(tmp, 'empty.zip');
    writeFileSync(empty, await zipBytes(fromArray([])));
    // nothing but the end record: signature, then zeros (no entries, no central directory)
    assert.ok(readFileSync(empty).equals(Buffer.concat([Buffer.from('PK\x05\x06', 'latin1'), Buffer.alloc(18)])));
    assert.equal((await planZip(fromArray([]))).length, 22);
    const one = join(tmp, 'one.zip');
    writeFileSync(one, await zipBytes(entriesOf([['only.txt', Buffer.from('only')]])));
    assert.match(run('unzip', ['-t', one]), /No errors detected/);
  });
});

describe('zip writer: deterministic, planned', () => {
  it('writes the same bytes twice, and exactly the planned length', async () => {
    const first = await zipBytes(entriesOf(CONTENT));
    const second = await zipBytes(entriesOf(CONTENT));
    assert.ok(first.equals(second));
    const plan = await planZip(entriesOf(CONTENT));
    assert.equal(plan.length, first.length);
    assert.equal(plan.files, CONTENT.length);
    assert.equal(plan.count, CONTENT.length + 8);
    assert.equal(plan.mtime, MTIME);
    assert.match(plan.etag, /^"[A-Za-z0-9_-]{43}"$/);
    assert.equal((await planZip(entriesOf(CONTENT))).etag, plan.etag);
  });

  it('changes the ETag with any name, size, CRC, time or content id', async () => {
    const base = CONTENT.map(([p, c]) => bufferEntry(p, c, MTIME));
    const { etag } = await planZip(fromArray(base));
    const variants: ((e: ZipFileEntry) => ZipFileEntry)[] = [
      (e) => ({ ...e, path: `${e.path}2` }),
      (e) => ({ ...e, size: e.size + 1 }),
      (e) => ({ ...e, crc32: (e.crc32 + 1) >>> 0 }),
      (e) => ({ ...e, mtime: e.mtime + 2 }),
      (e) => ({ ...e, id: 'other' }),
    ];
    for (const change of variants) {
      const changed = base.map((e, i) => (i === base.length - 1 ? change(e) : e));
      assert.notEqual((await planZip(fromArray(changed))).etag, etag);
    }
  });

  it('encodes DOS times in UTC, clamped to 1980..2107', () => {
    assert.deepEqual(dosDateTime(MTIME), {
      date: ((2023 - 1980) << 9) | (11 << 5) | 14,
      time: (22 << 11) | (13 << 5) | 10,
    });
    assert.deepEqual(dosDateTime(0), { date: (1 << 5) | 1, time: 0 });
  });
});

describe('zip writer: byte ranges', () => {
  it('every range equals that slice of the whole archive, opening only the blobs it covers', async () => {
    const full = await zipBytes(entriesOf(CONTENT));
    const deep = CONTENT.findIndex(([p]) => p === 'a/b/c/deep.bin');
    const deepStart = full.indexOf(Buffer.from('a/b/c/deep.bin')) + 'a/b/c/deep.bin'.length + 9;
    const centralStart = full.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    const ranges: [string, ZipRange][] = [
      ['first byte', { start: 0, end: 0 }],
      ['last byte', { start: full.length - 1, end: full.length - 1 }],
      ['whole', { start: 0, end: full.length - 1 }],
      ['inside the central directory', { start: centralStart + 10, end: centralStart + 200 }],
      ['from deep inside an entry to the end', { start: deepStart + 150_000, end: full.length - 1 }],
      ['inside one entry', { start: deepStart + 1000, end: deepStart + 1999 }],
      ['the tail', { start: full.length - 22, end: full.length - 1 }],
    ];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 60; i++) {
      const a = random(full.length);
      const b = random(full.length);
      ranges.push([`random ${i}`, { start: Math.min(a, b), end: Math.max(a, b) }]);
    }
    for (const [label, range] of ranges) {
      const opens: OpenCall[] = [];
      const part = await zipBytes(entriesOf(CONTENT, opens), range);
      assert.ok(part.equals(full.subarray(range.start, range.end + 1)), `${label} ${range.start}-${range.end}`);
      for (const open of opens) {
        const content = CONTENT.find(([p]) => p === open.path)![1];
        const dataStart =
          full.indexOf(content.subarray(0, 64)) >= 0 && content.length >= 64
            ? full.indexOf(content.subarray(0, 64))
            : -1;
        if (dataStart < 0) continue;
        // the blob was opened only for the covered part of its data
        assert.equal(open.start, Math.max(range.start - dataStart, 0), `${label}: ${open.path} opened from`);
        assert.equal(open.end, Math.min(range.end - dataStart, content.length - 1), `${label}: ${open.path} opened to`);
      }
    }
    const opens: OpenCall[] = [];
    await zipBytes(entriesOf(CONTENT, opens), { start: deepStart + 10, end: deepStart + 20 });
    assert.deepEqual(opens, [{ path: CONTENT[deep][0], start: 10, end: 20 }]);
    const none: OpenCall[] = [];
    await zipBytes(entriesOf(CONTENT, none), { start: centralStart, end: full.length - 1 });
    assert.deepEqual(none, [], 'a range in the central directory opens no blob');
  });

  it('refuses a range past the end or inverted', async () => {
    const { length } = await planZip(entriesOf(CONTENT));
    await assert.rejects(
      zipBytes(entriesOf(CONTENT), { start: length - 5, end: length }),
      (e: ZipError) => e.code === 'RANGE',
    );
    await assert.rejects(zipBytes(entriesOf(CONTENT), { start: 10, end: 9 }), (e: ZipError) => e.code === 'RANGE');
  });
});

/** An entry whose blob misbehaves. */
function brokenEntry(path: string, size: number, blob: () => Readable | Promise<Readable>): ZipFileEntry {
  return { path, size, crc32: crc32(Buffer.alloc(size, 1)) >>> 0, mtime: MTIME, open: async () => blob() };
}

describe('zip writer: failures reject, never a short archive', () => {
  const good = bufferEntry('a.txt', Buffer.from('fine'), MTIME);
  const cases: [string, ZipFileEntry, RegExp][] = [
    [
      'a missing blob',
      brokenEntry('b.bin', 10, () => Promise.reject(new Error('blob not found: abc'))),
      /cannot open the blob: blob not found/,
    ],
    [
      'a read error mid-blob',
      brokenEntry('b.bin', 100_000, () =>
        Readable.from(
          (function* () {
            yield Buffer.alloc(50_000, 1);
            throw new Error('disk on fire');
          })(),
        ),
      ),
      /reading the blob failed: disk on fire/,
    ],
    [
      'a short blob',
      brokenEntry('b.bin', 100, () => Readable.from([Buffer.alloc(99, 1)])),
      /ended after 99 of 100 bytes/,
    ],
    ['a long blob', brokenEntry('b.bin', 100, () => Readable.from([Buffer.alloc(101, 1)])), /more than the 100 bytes/],
    [
      'a blob with other bytes than its CRC says, with verifyCrc',
      brokenEntry('b.bin', 100, () => Readable.from([Buffer.alloc(100, 2)])),
      /CRC-32/,
    ],
  ];
  for (const [label, bad, reason] of cases) {
    it(`${label} rejects with BLOB and leaves the output unended`, async () => {
      const out = new Collector();
      await assert.rejects(
        writeZip(fromArray([good, bad, bufferEntry('c.txt', Buffer.from('after'), MTIME)]), out, undefined, {
          verifyCrc: true,
        }),
        (e: ZipError) => {
          assert.equal(e.code, 'BLOB');
          assert.match(e.message, reason);
          return true;
        },
      );
      assert.equal(out.writableEnded, false);
    });
  }

  it('with verifyCrc, an entry whose bytes the store knows read back right is not checked again; another is, and the store hears when it passed', async () => {
    const passed: string[] = [];
    const checked = (path: string, content: Buffer, crc: number, known: boolean): ZipFileEntry => ({
      path,
      size: content.length,
      crc32: crc,
      mtime: MTIME,
      open: async () => assert.fail('a whole entry is read through openChecked'),
      openChecked: async () => ({ stream: Readable.from([content]), known, passed: () => passed.push(path) }),
    });
    const right = Buffer.from('right bytes');
    // known: written as read, its CRC not computed (here it would not match: the store vouches for it)
    const out = new Collector();
    await writeZip(
      fromArray([checked('a.bin', right, crc32(right) >>> 0, false), checked('b.bin', right, 1234, true)]),
      out,
      undefined,
      { verifyCrc: true },
    );
    assert.deepEqual(passed, ['a.bin'], 'only the checked entry is reported');
    // not known: checked, and a mismatch rejects without telling the store
    await assert.rejects(
      writeZip(fromArray([checked('c.bin', right, 1234, false)]), new Collector(), undefined, { verifyCrc: true }),
      (e: ZipError) => e.code === 'BLOB' && /CRC-32/.test(e.message),
    );
    assert.deepEqual(passed, ['a.bin']);
  });

  it('without verifyCrc (the default) writes a blob whose bytes differ from its CRC, for unzip to flag', async () => {
    const bad = brokenEntry('b.bin', 100, () => Readable.from([Buffer.alloc(100, 2)]));
    const out = new Collector();
    await writeZip(fromArray([good, bad]), out);
    assert.equal(out.bytes().length, (await planZip(fromArray([good, bad]))).length);
  });

  it('rejects invalid entries (ENTRY) before writing anything: order, duplicates, paths', async () => {
    const e = (path: string) => bufferEntry(path, Buffer.from('x'), MTIME);
    for (const list of [
      [e('b'), e('a')],
      [e('a'), e('a')],
      [e('../x')],
      [e('/abs')],
      [e('a//b')],
      [e('dir/')],
      [e('a/./b')],
      [e('nul\0')],
    ]) {
      const out = new Collector();
      await assert.rejects(writeZip(fromArray(list), out), (err: ZipError) => err.code === 'ENTRY');
      await assert.rejects(planZip(fromArray(list)), (err: ZipError) => err.code === 'ENTRY');
    }
  });

  it('accepts UTF-8 byte order and JS order, but not a mix of the two', async () => {
    const e = (path: string) => bufferEntry(path, Buffer.from('x'), MTIME);
    const bmp = '\uff01/a'; // U+FF01: after a surrogate pair in JS order, before it in UTF-8 order
    const astral = '\u{1F600}/a';
    await planZip(fromArray([e(astral), e(bmp)])); // JS (memory store) order
    await planZip(fromArray([e(bmp), e(astral)])); // UTF-8 (MongoDB) order
    await assert.rejects(
      planZip(fromArray([e(astral), e(bmp), e('\u{1F600}/b')])),
      (err: ZipError) => err.code === 'ENTRY',
    );
  });

  it('rejects with CHANGED when the entries no longer match the plan the headers were sent with', async () => {
    const plan = await planZip(entriesOf(CONTENT));
    const changed = CONTENT.map(([p, c], i): [string, Buffer] => [p, i === 0 ? Buffer.from('HELLO ZIP\n') : c]);
    const out = new Collector();
    await assert.rejects(
      writeZip(entriesOf(changed), out, { start: 0, end: 10 }, { expect: plan }),
      (e: ZipError) => e.code === 'CHANGED',
    );
    assert.equal(out.writableEnded, false);
    await writeZip(entriesOf(CONTENT), new Collector(), { start: 0, end: 10 }, { expect: plan });
  });
});

describe('zip writer: back-pressure and a client that goes away', () => {
  /** A blob of `size` bytes produced on demand, counting what was produced; never ends on its own if `stall`. */
  function countingBlob(size: number, stallAfter = Infinity) {
    const state = { produced: 0, stream: null as Readable | null };
    const make = () => {
      state.stream = new Readable({
        highWaterMark: 64 * 1024,
        read() {
          if (state.produced >= stallAfter) return; // waits forever: the writer must not
          const n = Math.min(64 * 1024, size - state.produced);
          if (n <= 0) return void this.push(null);
          state.produced += n;
          this.push(Buffer.alloc(n, 1));
        },
      });
      return state.stream;
    };
    return { state, entry: brokenEntry('big.bin', size, make) };
  }

  it('reads a blob no faster than a slow output takes it', async () => {
    const { state, entry } = countingBlob(8 * 1024 * 1024);
    let consumed = 0;
    let worstLead = 0;
    const slow = new Writable({
      highWaterMark: 16 * 1024,
      write(chunk: Buffer, _enc, done) {
        consumed += chunk.length;
        worstLead = Math.max(worstLead, state.produced - consumed);
        setImmediate(done);
      },
    });
    await writeZip(fromArray([entry]), slow);
    assert.ok(consumed > 8 * 1024 * 1024);
    assert.ok(worstLead < 512 * 1024, `the blob ran ${worstLead} bytes ahead of the output`);
  });

  it('stops promptly, destroying the open blob stream, when the output is destroyed mid-blob', async () => {
    const { state, entry } = countingBlob(100 * 1024 * 1024);
    let written = 0;
    const out = new Writable({
      write(chunk: Buffer, _enc, done) {
        written += chunk.length;
        if (written > 1024 * 1024) this.destroy();
        done();
      },
    });
    const started = Date.now();
    await assert.rejects(
      writeZip(fromArray([entry, bufferEntry('later.txt', Buffer.from('never'), MTIME)]), out),
      (e: ZipError) => e.code === 'OUTPUT_CLOSED',
    );
    assert.ok(Date.now() - started < 2000);
    assert.ok(state.stream?.destroyed, 'blob stream destroyed');
    assert.ok(state.produced < 4 * 1024 * 1024, `read ${state.produced} bytes after the client left`);
  });

  it('settles even when the blob stalls while the output goes away', async () => {
    const { state, entry } = countingBlob(10 * 1024 * 1024, 128 * 1024);
    const out = new Collector();
    const writing = writeZip(fromArray([entry]), out);
    setTimeout(() => out.destroy(), 50);
    await assert.rejects(writing, (e: ZipError) => e.code === 'OUTPUT_CLOSED');
    assert.ok(state.stream?.destroyed, 'stalled blob stream destroyed');
  });

  it('stops walking the entries when the output goes away between pages', async () => {
    let yielded = 0;
    const slowCatalog: ZipEntries = async function* () {
      for (let i = 0; i < 1000; i++) {
        await new Promise((resolve) => setTimeout(resolve, 1)); // a page fetched over the bus
        yielded++;
        yield bufferEntry(`f${String(i).padStart(4, '0')}`, Buffer.from('x'), MTIME);
      }
    };
    const out = new Collector();
    const writing = writeZip(slowCatalog, out, { start: 0, end: 0 }, { expect: { length: 1, etag: '"x"' } });
    setTimeout(() => out.destroy(), 30);
    await assert.rejects(writing, (e: ZipError) => e.code === 'OUTPUT_CLOSED');
    assert.ok(yielded < 500, `walked ${yielded} entries after the client left`);
  });

  it('rejects at once on an output already destroyed, opening no blob', async () => {
    const opens: OpenCall[] = [];
    const out = new Collector();
    out.destroy();
    await assert.rejects(writeZip(entriesOf(CONTENT, opens), out), (e: ZipError) => e.code === 'OUTPUT_CLOSED');
    assert.deepEqual(opens, []);
  });
});

describe('zip writer: over a real HTTP response', () => {
  /** A server answering every request with the archive of `entries()` (or a range of it), reporting how writeZip settled. */
  async function serve(entries: ZipEntries, settled: (result: 'ok' | ZipError) => void) {
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
      res.writeHead(m ? 206 : 200, { 'content-type': 'application/zip' });
      writeZip(entries, res, m ? { start: Number(m[1]), end: Number(m[2]) } : undefined).then(
        () => settled('ok'),
        (err: ZipError) => {
          res.destroy();
          settled(err);
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
  }
  const fetchBytes = (url: string, range?: string) =>
    new Promise<Buffer>((resolve, reject) => {
      get(url, { headers: range ? { range } : {} }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks)));
        res.on('error', reject);
      }).on('error', reject);
    });

  it('serves the same bytes as in memory, whole and as a range', async () => {
    const results: ('ok' | ZipError)[] = [];
    const { server, url } = await serve(entriesOf(CONTENT), (r) => results.push(r));
    try {
      const full = await zipBytes(entriesOf(CONTENT));
      assert.ok((await fetchBytes(url)).equals(full));
      assert.ok((await fetchBytes(url, 'bytes=1000-250000')).equals(full.subarray(1000, 250001)));
      assert.deepEqual(results, ['ok', 'ok']);
    } finally {
      server.close();
    }
  });

  it('stops and closes the blob when the client disconnects mid-download', async () => {
    let blob: Readable | null = null;
    const endless: ZipFileEntry = {
      path: 'huge.bin',
      size: 2 ** 40,
      crc32: 0,
      mtime: MTIME,
      open: async () =>
        (blob = new Readable({
          read() {
            this.push(Buffer.alloc(64 * 1024));
          },
        })),
    };
    let settle!: (r: 'ok' | ZipError) => void;
    const outcome = new Promise<'ok' | ZipError>((resolve) => (settle = resolve));
    const { server, url } = await serve(fromArray([endless]), settle);
    try {
      await new Promise<void>((resolve, reject) => {
        const req = get(url, (res) => {
          let got = 0;
          res.on('data', (c: Buffer) => {
            got += c.length;
            if (got > 4 * 1024 * 1024) {
              req.destroy();
              resolve();
            }
          });
        });
        req.on('error', () => undefined);
        setTimeout(() => reject(new Error('no data')), 5000);
      });
      const result = await Promise.race([outcome, new Promise((resolve) => setTimeout(() => resolve('hung'), 3000))]);
      assert.ok(
        result instanceof ZipError && result.code === 'OUTPUT_CLOSED',
        `writeZip settled with ${String(result)}`,
      );
      assert.ok((blob as Readable | null)?.destroyed, 'blob stream destroyed');
    } finally {
      server.close();
    }
  });
});

describe('writeZip and the blob store’s read buffers', () => {
  /** Two files of full and part chunks, read from their files by the blob store's own stream. */
  async function pooledEntries(): Promise<{ entries: () => ZipEntries; files: [string, Buffer][] }> {
    const { FileReadStream } = await import('@burrow/blobs');
    const { openSync } = await import('node:fs');
    const files: [string, Buffer][] = [
      ['a.bin', pseudoRandom(2 * 1024 * 1024 + 5, 1)],
      ['b.bin', pseudoRandom(1024 * 1024, 2)],
    ];
    for (const [path, content] of files) writeFileSync(join(tmp, `pooled-${path}`), content);
    const entries = () =>
      fromArray(
        files.map(([path, content]) => ({
          ...bufferEntry(path, content, MTIME),
          open: async (start: number, end: number) =>
            new FileReadStream(openSync(join(tmp, `pooled-${path}`), 'r'), { start, end }),
        })),
      );
    return { entries, files };
  }

  it('into a sink that keeps what it is given, gives nothing back: the archive is intact', async () => {
    const { readBuffers } = await import('@burrow/blobs');
    const { entries, files } = await pooledEntries();
    const outstanding = readBuffers.outstanding;
    const archive = await zipBytes(entries());
    // later reads must not write into the chunks the collector holds
    await zipBytes(entries());
    assert.ok(archive.equals(await zipBytes(entriesOf(files))), 'the same archive as from buffers');
    assert.equal(
      readBuffers.outstanding - outstanding,
      2 * 3,
      'three full chunks for each of the two archives, kept by the sink',
    );
  });

  it('into an HTTP response, gives each full chunk back once the socket has it: the client gets the same archive', async () => {
    const { readBuffers } = await import('@burrow/blobs');
    const { entries, files } = await pooledEntries();
    await withServer(
      (_req, res) => void writeZip(entries(), res).then(() => res.end()),
      async (fetchArchive) => {
        const outstanding = readBuffers.outstanding;
        const reused = readBuffers.reused;
        const [first, second] = [await fetchArchive(), await fetchArchive()];
        const expected = await zipBytes(entriesOf(files));
        assert.ok(first.equals(expected) && second.equals(expected), 'the same archive both times');
        assert.equal(readBuffers.outstanding, outstanding, 'every full chunk given back');
        assert.ok(readBuffers.reused - reused >= 3, 'and read into again');
      },
    );
  });
});
