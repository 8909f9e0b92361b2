/**
 * Reaching behind the catalog's back into the blob store a target's gateways read, as a disk
 * fault or an operator mistake would: the local blob folder, or MinIO when the run uses it (the
 * multi-process targets inherit MINIO_URL from the environment).
 */
import { MinioBlobStore } from '@burrow/blobs';
import { readConfig } from '@burrow/runtime';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

/** Where a blob lives in a target's local blob folder (`<data>/blobs/<k0k1>/<k2k3>/<sha256>`). */
export const localBlobPath = (dataDir: string, sha256: string) => join(dataDir, 'blobs', sha256.slice(0, 2), sha256.slice(2, 4), sha256);

async function minio(dataDir: string, sha256: string): Promise<MinioBlobStore> {
  const config = readConfig(process.env).minio;
  assert.ok(config, `blob ${sha256} is neither in ${dataDir}/blobs nor is MinIO configured`);
  return MinioBlobStore.connect(config);
}

/** Deletes a blob from the store. */
export async function deleteBlob(dataDir: string, sha256: string): Promise<void> {
  const local = localBlobPath(dataDir, sha256);
  if (existsSync(local)) {
    await rm(local);
    return;
  }
  await (await minio(dataDir, sha256)).delete(sha256);
}
