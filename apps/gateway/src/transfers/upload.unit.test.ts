/**
 * One upload's bus round trips (issue 37): a small upload of a known length to a device this
 * process has heard of, within what the quota held, is only the commit; anything the hints cannot
 * vouch for asks `prepareUpload` first, so an unknown device or a declared size past the quota is
 * still refused before a byte is read. Through a real HTTP server and blob store; the bus is a
 * fake that records the subjects it is asked and answers as the catalog would.
 */
import { LocalBlobStore } from '@burrow/blobs';
import {
  type CommitFileRequest,
  DomainError,
  notFound,
  type PrepareUploadRequest,
  quotaExceeded,
  Subjects,
} from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import express from 'express';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { declaredLength } from './ingest.js';
import { upload } from './upload.js';
import { HINTED_UPLOAD_MAX_BYTES, UPLOAD_HINT_TTL_MS, UploadHints } from './upload-hints.js';

const dir = mkdtempSync(join(tmpdir(), 'burrow-upload-'));
const blobs = new LocalBlobStore(join(dir, 'blobs'));

/** The catalog, as far as uploads go: devices, a quota and what is stored. */
const catalog = { devices: new Set(['laptop']), quota: 100_000, used: 0, asked: [] as string[] };
const rpc = {
  async call(subject: string, payload: PrepareUploadRequest & CommitFileRequest) {
    catalog.asked.push(subject);
    if (!catalog.devices.has(payload.device)) throw notFound(`no device ${payload.device}`);
    const remaining = catalog.quota - catalog.used;
    if (subject === Subjects.storage.prepareUpload) {
      if (payload.size !== undefined && payload.size > remaining) throw quotaExceeded();
      return { ok: true, current: null, remaining };
    }
    if (subject === Subjects.storage.commitFile) {
      if (payload.size > remaining) throw quotaExceeded();
      catalog.used += payload.size;
      return {
        path: payload.path,
        name: payload.path,
        version: 1,
        size: payload.size,
        blob: payload.blob,
        crc32: payload.crc32,
        existed: false,
        remaining: catalog.quota - catalog.used,
      };
    }
    throw new Error(`unexpected ${subject}`);
  },
} as unknown as RpcClient;

let hints: UploadHints;
let server: Server;
let port: number;

before(async () => {
  const app = express();
  app.put('/:device/:name', (req, res) => {
    upload(
      { rpc, blobs, hints },
      { req, res, userId: 'u1', device: req.params.device, path: req.params.name, size: declaredLength(req) },
    ).then(
      ({ version }) => res.status(201).json(version),
      (error: unknown) => res.status(error instanceof DomainError ? error.status : 500).json({ reason: String(error) }),
    );
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  hints = new UploadHints();
  Object.assign(catalog, { devices: new Set(['laptop']), quota: 100_000, used: 0, asked: [] });
});

/**
 * PUTs `body` (`chunked`: without a length). `hold`: declares `body.length` but sends nothing until
 * the answer, which must then come before a byte was read.
 */
function put(path: string, body: Buffer, options: { chunked?: boolean; hold?: boolean } = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = options.chunked
      ? { 'transfer-encoding': 'chunked' }
      : { 'content-length': String(body.length) };
    const req = request({ host: '127.0.0.1', port, method: 'PUT', path, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    if (options.hold) req.flushHeaders();
    else req.end(body);
  });
}

const asked = () => catalog.asked.splice(0).map((s) => (s === Subjects.storage.prepareUpload ? 'prepare' : 'commit'));

describe('upload', () => {
  it('the first upload to a device asks before the bytes; the next ones are only the commit', async () => {
    assert.equal(await put('/laptop/a', Buffer.alloc(4096, 1)), 201);
    assert.deepEqual(asked(), ['prepare', 'commit']);
    assert.equal(await put('/laptop/b', Buffer.alloc(4096, 2)), 201);
    assert.equal(await put('/laptop/c', Buffer.alloc(0)), 201);
    assert.deepEqual(asked(), ['commit', 'commit']);
    assert.equal(catalog.used, 8192);
  });

  it('asks first whatever it knows for a length unknown (chunked), a large body, another device', async () => {
    catalog.quota = 1_000_000;
    await put('/laptop/a', Buffer.alloc(10));
    asked();
    assert.equal(await put('/laptop/chunked', Buffer.alloc(10), { chunked: true }), 201);
    assert.equal(await put('/laptop/large', Buffer.alloc(HINTED_UPLOAD_MAX_BYTES + 1)), 201);
    assert.deepEqual(asked(), ['prepare', 'commit', 'prepare', 'commit']);
    // an unknown device is refused before a byte is read (the client holds its body back)
    assert.equal(await put('/desktop/a', Buffer.alloc(10), { hold: true }), 404);
    assert.deepEqual(asked(), ['prepare']);
  });

  it('a declared size past what the quota held is refused before a byte is read', async () => {
    catalog.quota = 10_000;
    assert.equal(await put('/laptop/a', Buffer.alloc(6000)), 201);
    asked();
    assert.equal(await put('/laptop/b', Buffer.alloc(5000), { hold: true }), 507);
    assert.deepEqual(asked(), ['prepare']);
    assert.equal(catalog.used, 6000);
  });

  it('a hint gone stale costs only a small body: the commit refuses it, and the next upload asks first', async () => {
    assert.equal(await put('/laptop/a', Buffer.alloc(10)), 201);
    // removed and the quota spent behind this process's back
    catalog.devices.delete('laptop');
    asked();
    assert.equal(await put('/laptop/b', Buffer.alloc(10)), 404);
    assert.deepEqual(asked(), ['commit']);
    assert.equal(await put('/laptop/c', Buffer.alloc(10), { hold: true }), 404);
    assert.deepEqual(asked(), ['prepare']);
    catalog.devices.add('laptop');
    assert.equal(await put('/laptop/d', Buffer.alloc(10)), 201);
    catalog.used = catalog.quota - 5;
    asked();
    assert.equal(await put('/laptop/e', Buffer.alloc(10)), 507);
    assert.equal(await put('/laptop/f', Buffer.alloc(10), { hold: true }), 507);
    assert.deepEqual(asked(), ['commit', 'prepare']);
  });
});

describe('upload hints', () => {
  it('a commit reply that arrives late never raises what a later commit or a refusal left; a prepare reads afresh', () => {
    const h = new UploadHints(() => 1_000);
    h.learn('u', 'laptop', 50_000, 'read');
    // two concurrent commits: the later one's reply (less left) is heard first
    h.learn('u', 'laptop', 10_000, 'committed');
    h.learn('u', 'laptop', 30_000, 'committed');
    assert.equal(h.remaining('u'), 10_000);
    assert.equal(h.allows('u', 'laptop', 20_000), false, 'a size past the lowest figure asks first');
    // a commit refused for the quota: nothing left, whatever earlier commits' replies say after it
    h.exhausted('u');
    h.learn('u', 'laptop', 40_000, 'committed');
    assert.equal(h.remaining('u'), 0);
    assert.equal(h.allows('u', 'laptop', 1), false);
    assert.equal(h.allows('u', 'laptop', 0), true, 'an empty file still fits');
    // a prepare read the ledger (files deleted meanwhile): its figure stands
    h.learn('u', 'laptop', 60_000, 'read');
    assert.equal(h.remaining('u'), 60_000);
    assert.equal(h.allows('u', 'laptop', 4096), true);
  });

  it('a hint past its time is not used, and a commit then sets it as it is', () => {
    let now = 0;
    const h = new UploadHints(() => now);
    h.learn('u', 'laptop', 1_000, 'read');
    now += UPLOAD_HINT_TTL_MS + 1;
    assert.equal(h.allows('u', 'laptop', 10), false);
    h.learn('u', 'laptop', 5_000, 'committed');
    assert.equal(h.remaining('u'), 5_000);
  });
});
