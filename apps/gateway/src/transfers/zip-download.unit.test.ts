/**
 * A zip cut short is logged for the operator (a missing blob), a client that hangs up is not; the
 * client of a cut-short zip never gets the whole Content-Length. A folder of one catalog page is
 * read from the catalog once per zip.
 */
import { BlobNotFoundError, type BlobReader } from '@burrow/blobs';
import type { SubtreePage } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import express from 'express';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { crc32 } from 'node:zlib';
import { planZip, writeZip } from './zip/index.js';
import { folderEntries, sendFolderZip, type ZipErrorLog } from './zip-download.js';

const content = Buffer.alloc(256 * 1024, 7);
const page: SubtreePage = {
  files: [
    {
      path: 'docs/a.bin',
      name: 'a.bin',
      version: 0,
      size: content.length,
      blob: 'a'.repeat(64),
      crc32: crc32(content) >>> 0,
      mtime: 1_700_000_000,
      ctime: 1_700_000_000,
      at: 1_700_000_000,
      previews: {},
      versions: 1,
    },
    {
      path: 'docs/b.bin',
      name: 'b.bin',
      version: 0,
      size: content.length,
      blob: 'b'.repeat(64),
      crc32: crc32(content) >>> 0,
      mtime: 1_700_000_000,
      ctime: 1_700_000_000,
      at: 1_700_000_000,
      previews: {},
      versions: 1,
    },
  ],
  next: null,
};
const rpc = { call: async () => page } as unknown as RpcClient;

function recordingLogger() {
  const errors: { obj: Record<string, unknown>; msg: string }[] = [];
  const log = { error: (obj: Record<string, unknown>, msg: string) => errors.push({ obj, msg }) } as ZipErrorLog;
  return { log, errors };
}

/** Serves the zip, reads the response to its end (or its abort): status, declared and received lengths. */
async function fetchZip(
  blobs: BlobReader,
  log: ZipErrorLog,
): Promise<{ status: number; declared: number; received: number }> {
  const app = express();
  app.get(
    '/zip',
    (req, res) =>
      void sendFolderZip(
        req,
        res,
        rpc,
        blobs,
        [{ userId: 'u', device: 'laptop', path: 'docs/', prefix: 'docs/' }],
        'docs',
        log,
      ),
  );
  const server = app.listen(0);
  try {
    const port = (server.address() as AddressInfo).port;
    return await new Promise((resolve) => {
      httpRequest({ port, path: '/zip' }, (res) => {
        let received = 0;
        const done = () =>
          resolve({ status: res.statusCode ?? 0, declared: Number(res.headers['content-length']), received });
        res.on('data', (c: Buffer) => (received += c.length));
        res.on('end', done);
        res.on('error', done);
        res.on('aborted', done);
      }).end();
    });
  } finally {
    server.close();
  }
}

describe('zip downloads cut short', () => {
  it('a missing blob aborts the response short of its length and logs why', async () => {
    const blobs = {
      get: async (key: string) => {
        if (key.startsWith('b')) throw new BlobNotFoundError(key);
        return Readable.from([content]);
      },
    } as unknown as BlobReader;
    const { log, errors } = recordingLogger();
    const got = await fetchZip(blobs, log);
    assert.equal(got.status, 200);
    assert.ok(got.received < got.declared, `received ${got.received} of ${got.declared}`);
    assert.equal(errors.length, 1);
    assert.equal(errors[0].msg, 'zip download cut short');
    assert.equal(errors[0].obj.zip, 'docs');
  });

  it('a whole zip logs nothing', async () => {
    const blobs = { get: async () => Readable.from([content]) } as unknown as BlobReader;
    const { log, errors } = recordingLogger();
    const got = await fetchZip(blobs, log);
    assert.equal(got.received, got.declared);
    assert.deepEqual(errors, []);
  });
});

describe('zip entries from the catalog', () => {
  const root = { userId: 'u', device: 'laptop', path: 'docs/', prefix: 'docs/' };
  const sink = () => new PassThrough().resume();

  it('a folder listed whole in one page is asked of the catalog once for all the passes of a zip', async () => {
    let calls = 0;
    const counting = { call: async () => (calls++, page) } as unknown as RpcClient;
    const blobs = { get: async () => Readable.from([content]) } as unknown as BlobReader;
    const entries = folderEntries(counting, blobs, [root]);
    const plan = await planZip(entries);
    await writeZip(entries, sink(), undefined, { expect: plan, verifyCrc: true });
    assert.equal(calls, 1);
  });

  it('a folder of several pages is paged again by every pass', async () => {
    const calls: (string | undefined)[] = [];
    const paged = {
      call: async (_subject: string, request: { cursor?: string }) => {
        calls.push(request.cursor);
        return request.cursor ? { files: [page.files[1]], next: null } : { files: [page.files[0]], next: 'c1' };
      },
    } as unknown as RpcClient;
    const blobs = { get: async () => Readable.from([content]) } as unknown as BlobReader;
    const entries = folderEntries(paged, blobs, [root]);
    const plan = await planZip(entries);
    assert.equal(plan.files, 2);
    await writeZip(entries, sink(), undefined, { expect: plan });
    assert.deepEqual(calls, [undefined, 'c1', undefined, 'c1', undefined, 'c1']);
  });
});
