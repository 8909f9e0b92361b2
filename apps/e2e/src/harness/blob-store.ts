/**
 * Reaching behind the catalog's back into the blob store a target's gateways read, as a disk
 * fault or an operator mistake would: the local blob folder, or MinIO when the run uses it (the
 * multi-process targets inherit MINIO_URL from the environment and get a bucket of their own,
 * named in the target's `serverEnv`).
 */
import { MinioBlobStore } from '@burrow/blobs';
import { readConfig } from '@burrow/runtime';
import type { TestTarget } from './standalone.js';
import { Client } from 'minio';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** Where a blob lives in a target's local blob folder (`<data>/blobs/<k0k1>/<k2k3>/<sha256>`). */
export const localBlobPath = (dataDir: string, sha256: string) =>
  join(dataDir, 'blobs', sha256.slice(0, 2), sha256.slice(2, 4), sha256);

type BlobTarget = Pick<TestTarget, 'dataDir' | 'serverEnv'>;

function minioConfig(target: BlobTarget, sha256: string) {
  const config = readConfig({ ...process.env, ...target.serverEnv }).minio;
  assert.ok(config, `blob ${sha256} is neither in ${target.dataDir}/blobs nor is MinIO configured`);
  return config;
}

/** Deletes a blob from the store. */
export async function deleteBlob(target: BlobTarget, sha256: string): Promise<void> {
  const local = localBlobPath(target.dataDir, sha256);
  if (existsSync(local)) {
    await rm(local);
    return;
  }
  const config = minioConfig(target, sha256);
  const client = minioClient(config);
  await client.statObject(config.bucket, sha256); // throws when it is not there: a delete of nothing proves nothing
  await (await MinioBlobStore.connect(config)).delete(sha256);
}

/** Two bytes in the middle inverted, the size kept: what a failing disk or a stray write does. */
function flipMiddle(bytes: Buffer, at = Math.floor(bytes.length / 2) - 1): Buffer {
  bytes[at] ^= 0xff;
  bytes[at + 1] ^= 0xff;
  return bytes;
}

/** Damages a stored blob in place (two bytes changed, same size). */
export async function damageBlob(target: BlobTarget, sha256: string): Promise<void> {
  const local = localBlobPath(target.dataDir, sha256);
  if (existsSync(local)) {
    const handle = await open(local, 'r+');
    try {
      const at = Math.floor((await handle.stat()).size / 2) - 1;
      const middle = Buffer.alloc(2);
      await handle.read(middle, 0, 2, at);
      await handle.write(flipMiddle(middle, 0), 0, 2, at);
    } finally {
      await handle.close();
    }
    return;
  }
  const config = minioConfig(target, sha256);
  const client = minioClient(config);
  const chunks: Buffer[] = [];
  for await (const chunk of await client.getObject(config.bucket, sha256)) chunks.push(chunk as Buffer);
  const damaged = flipMiddle(Buffer.concat(chunks));
  await client.putObject(config.bucket, sha256, damaged, damaged.length);
}

function minioClient(config: { url: string; accessKey: string; secretKey: string }): Client {
  const url = new URL(config.url);
  return new Client({
    endPoint: url.hostname,
    port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
    useSSL: url.protocol === 'https:',
    accessKey: config.accessKey,
    secretKey: config.secretKey,
    pathStyle: true,
  });
}
