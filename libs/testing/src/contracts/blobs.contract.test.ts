/**
 * Runs the BlobStore contract against every adapter: the local folder always, MinIO when MINIO_URL
 * (with MINIO_ACCESS_KEY, MINIO_SECRET_KEY; MINIO_BUCKET, default burrow-test, names the buckets:
 * each test gets a fresh `<MINIO_BUCKET>-<random>` and removes it) is set.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, open, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { Client } from 'minio';
import { LocalBlobStore, MinioBlobStore } from '@burrow/blobs';
import { blobStoreContract } from './blobs.contract.js';
import { rejection, silentPort } from './util.js';

/** Two bytes in the middle of `bytes`, inverted: what a failing disk or a stray write does. */
function flipMiddle(bytes: Buffer): Buffer {
  const at = Math.floor(bytes.length / 2);
  bytes[at] ^= 0xff;
  bytes[at + 1] ^= 0xff;
  return bytes;
}

for (const [name, smallPuts] of [
  ['LocalBlobStore', true],
  ['LocalBlobStore (every put streamed through the thread pool)', false],
] as const)
  blobStoreContract(name, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-blobs-'));
    return {
      store: new LocalBlobStore(dir, { smallPuts }),
      childSpec: { kind: 'local', dir },
      damage: async (key) => {
        const handle = await open(join(dir, key.slice(0, 2), key.slice(2, 4), key), 'r+');
        try {
          const { size } = await handle.stat();
          const middle = Buffer.alloc(2);
          await handle.read(middle, 0, 2, Math.floor(size / 2) - 1);
          await handle.write(flipMiddle(middle), 0, 2, Math.floor(size / 2) - 1);
        } finally {
          await handle.close();
        }
      },
      // a killed put leaves its temporary file
      leaveInterruptedPut: async () => {
        await mkdir(join(dir, 'tmp'), { recursive: true });
        await writeFile(join(dir, 'tmp', randomUUID()), 'half an upload');
      },
      cleanup: async () => {
        // no temporary file may survive a put, successful or not
        const leftovers = await readdir(join(dir, 'tmp')).catch(() => []);
        await rm(dir, { recursive: true, force: true });
        assert.deepEqual(leftovers, [], 'temporary files left behind');
      },
    };
  });

describe('LocalBlobStore (its folders)', () => {
  it('a blob folder removed behind its back (it remembers the folders it made) is made again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-blobs-'));
    try {
      const store = new LocalBlobStore(dir);
      const content = Buffer.from(`folder ${randomUUID()}`);
      const { key } = await store.put(Readable.from([content]));
      await rm(join(dir, key.slice(0, 2)), { recursive: true });
      assert.equal(await store.exists(key), false);
      assert.equal((await store.put(Readable.from([content]))).key, key);
      assert.equal(await store.exists(key), true);
      assert.deepEqual(await readdir(join(dir, 'tmp')), []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('LocalBlobStore (content already stored)', () => {
  it('is written again and renamed over the stored copy: a damaged copy (shorter here) is whole again; the quarantine keeps what it took out', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-blobs-'));
    try {
      const store = new LocalBlobStore(dir);
      const content = Buffer.from(`stored once ${randomUUID()}`);
      const { key } = await store.put(Readable.from([content]));
      const path = join(dir, key.slice(0, 2), key.slice(2, 4), key);
      await truncate(path, 3);
      await store.put(Readable.from([content]));
      assert.deepEqual(await readFile(path), content, 'whole again');
      assert.deepEqual(await readdir(join(dir, 'tmp')), []);
      await writeFile(path, flipMiddle(Buffer.from(content)));
      assert.equal(await store.quarantine(key), true);
      const [aside] = await readdir(join(dir, 'quarantine'));
      assert.match(aside, new RegExp(`^${key}\\.\\d+$`));
      assert.deepEqual(
        await readFile(join(dir, 'quarantine', aside)),
        flipMiddle(Buffer.from(content)),
        'the damaged bytes are kept for the operator',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

const minio = process.env.MINIO_URL
  ? {
      url: process.env.MINIO_URL,
      accessKey: process.env.MINIO_ACCESS_KEY ?? '',
      secretKey: process.env.MINIO_SECRET_KEY ?? '',
      bucket: process.env.MINIO_BUCKET || 'burrow-test',
    }
  : null;

function minioClient(): Client {
  const url = new URL(minio!.url);
  return new Client({
    endPoint: url.hostname,
    port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
    useSSL: url.protocol === 'https:',
    accessKey: minio!.accessKey,
    secretKey: minio!.secretKey,
    pathStyle: true,
  });
}

/** Lists what the adapter must never leave behind: temporary objects and unfinished uploads. */
async function minioLeftovers(bucket: string): Promise<string[]> {
  const client = minioClient();
  const names: string[] = [];
  for await (const item of client.listObjectsV2(bucket, 'tmp/', true)) {
    if (item.name) names.push(`object ${item.name}`);
  }
  // MinIO lists multipart uploads only for an exact object name or for everything: filter here
  for await (const upload of client.listIncompleteUploads(bucket, '', true)) {
    if (upload.key.startsWith('tmp/')) names.push(`upload ${upload.key}`);
  }
  return names;
}

/** Empties a bucket of the tests (objects and unfinished uploads) and removes it. */
async function removeBucket(bucket: string): Promise<void> {
  const client = minioClient();
  for (;;) {
    const names: string[] = [];
    for await (const item of client.listObjectsV2(bucket, '', true)) if (item.name) names.push(item.name);
    if (!names.length) break;
    await client.removeObjects(bucket, names);
  }
  for await (const upload of client.listIncompleteUploads(bucket, '', true))
    await client.abortMultipartUpload(bucket, upload.key, upload.uploadId);
  await client.removeBucket(bucket);
}

blobStoreContract(
  'MinioBlobStore',
  minio
    ? async () => {
        const bucket = `${minio.bucket}-${randomBytes(4).toString('hex')}`;
        // 5 MiB parts (S3's minimum) so the multi-MB tests cross several part boundaries
        const options = { ...minio, bucket, partSizeBytes: 5 * 1024 * 1024 };
        const store = await MinioBlobStore.connect(options);
        return {
          store,
          childSpec: { kind: 'minio', options },
          // the object rewritten behind the store's back with two bytes changed
          damage: async (key) => {
            const client = minioClient();
            const chunks: Buffer[] = [];
            for await (const chunk of await client.getObject(bucket, key)) chunks.push(chunk as Buffer);
            const damaged = flipMiddle(Buffer.concat(chunks));
            await client.putObject(bucket, key, damaged, damaged.length);
          },
          // a put killed mid-upload leaves an unfinished multipart upload, or (killed after
          // completing it) a `tmp/` object
          leaveInterruptedPut: async () => {
            const client = minioClient();
            const name = `tmp/${randomUUID()}`;
            const uploadId = await client.initiateNewMultipartUpload(bucket, name, {});
            const part = Buffer.from('half an upload');
            await client.uploadPart(
              {
                bucketName: bucket,
                objectName: name,
                uploadID: uploadId,
                partNumber: 1,
                headers: { 'Content-Length': part.length },
              },
              part,
            );
            await client.putObject(bucket, `tmp/${randomUUID()}`, Buffer.from('a completed upload never copied'));
          },
          cleanup: async () => {
            const leftovers = await minioLeftovers(bucket);
            await removeBucket(bucket);
            assert.deepEqual(leftovers, [], 'temporary objects or uploads left behind');
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
      MinioBlobStore.connect({
        url: 'http://127.0.0.1:1',
        accessKey: 'x',
        secretKey: 'y',
        bucket: 'burrow-test',
        partSizeBytes: 1024,
      }),
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
