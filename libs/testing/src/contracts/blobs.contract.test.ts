/**
 * Runs the BlobStore contract against every adapter: the local folder always, MinIO when MINIO_URL
 * (with MINIO_ACCESS_KEY, MINIO_SECRET_KEY; MINIO_BUCKET defaults to burrow-test) is set.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { Client } from 'minio';
import { LocalBlobStore, MinioBlobStore } from '@burrow/blobs';
import { blobStoreContract } from './blobs.contract.js';
import { rejection, silentPort } from './util.js';

blobStoreContract('LocalBlobStore', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'burrow-blobs-'));
  return {
    store: new LocalBlobStore(dir),
    cleanup: async () => {
      // no temporary file may survive a put, successful or not
      const leftovers = await readdir(join(dir, 'tmp')).catch(() => []);
      await rm(dir, { recursive: true, force: true });
      assert.deepEqual(leftovers, [], 'temporary files left behind');
    },
  };
});

const minio = process.env.MINIO_URL
  ? {
      url: process.env.MINIO_URL,
      accessKey: process.env.MINIO_ACCESS_KEY ?? '',
      secretKey: process.env.MINIO_SECRET_KEY ?? '',
      bucket: process.env.MINIO_BUCKET || 'burrow-test',
    }
  : null;

/** Lists what the adapter must never leave behind: temporary objects and unfinished uploads. */
async function minioLeftovers(): Promise<string[]> {
  const url = new URL(minio!.url);
  const client = new Client({
    endPoint: url.hostname,
    port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
    useSSL: url.protocol === 'https:',
    accessKey: minio!.accessKey,
    secretKey: minio!.secretKey,
    pathStyle: true,
  });
  const names: string[] = [];
  for await (const item of client.listObjectsV2(minio!.bucket, 'tmp/', true)) {
    if (item.name) names.push(`object ${item.name}`);
  }
  // MinIO lists multipart uploads only for an exact object name or for everything: filter here
  for await (const upload of client.listIncompleteUploads(minio!.bucket, '', true)) {
    if (upload.key.startsWith('tmp/')) names.push(`upload ${upload.key}`);
  }
  return names;
}

blobStoreContract(
  'MinioBlobStore',
  minio
    ? async () => {
        // 5 MiB parts (S3's minimum) so the multi-MB tests cross several part boundaries
        const store = await MinioBlobStore.connect({ ...minio, partSizeBytes: 5 * 1024 * 1024 });
        return {
          store,
          cleanup: async () => {
            assert.deepEqual(await minioLeftovers(), [], 'temporary objects or uploads left behind');
          },
        };
      }
    : null,
  'MINIO_URL not set: no MinIO server (scripts/ensure-minio.sh starts one)',
);

describe('MinioBlobStore (no server needed)', () => {
  it('connect fails within its timeout against a port that never answers', async () => {
    const silent = await silentPort();
    try {
      const started = Date.now();
      const error = await rejection(
        MinioBlobStore.connect({
          url: `http://127.0.0.1:${silent.port}`,
          accessKey: 'x',
          secretKey: 'y',
          bucket: 'burrow-test',
          timeoutMs: 500,
        }),
      );
      const elapsed = Date.now() - started;
      assert.ok(error instanceof Error);
      assert.match(error.message, /not usable/);
      assert.ok(elapsed < 5_000, `took ${elapsed} ms`);
    } finally {
      await silent.close();
    }
  });

  it('rejects part sizes S3 would refuse', async () => {
    const error = await rejection(
      MinioBlobStore.connect({ url: 'http://127.0.0.1:1', accessKey: 'x', secretKey: 'y', bucket: 'burrow-test', partSizeBytes: 1024 }),
    );
    assert.ok(error instanceof RangeError);
  });
});

describe('MinioBlobStore bucket handling', { skip: minio ? false : 'MINIO_URL not set' }, () => {
  it('creates a missing bucket', async () => {
    const bucket = `burrow-test-${Date.now().toString(36)}`;
    const store = await MinioBlobStore.connect({ ...minio!, bucket });
    await store.ping();
    const { key } = await store.put(Readable.from([Buffer.from('bucket check')]));
    assert.equal(await store.exists(key), true);
    await store.delete(key);
    const url = new URL(minio!.url);
    const client = new Client({
      endPoint: url.hostname,
      port: Number(url.port),
      useSSL: url.protocol === 'https:',
      accessKey: minio!.accessKey,
      secretKey: minio!.secretKey,
      pathStyle: true,
    });
    await client.removeBucket(bucket);
  });
});
