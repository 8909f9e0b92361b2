/**
 * Production BlobStore: an S3 bucket on MinIO (`minio` client).
 *
 * `put` streams. The key (sha256) is known only after the last byte, so bytes are hashed on the
 * way and uploaded in parts as a multipart upload to a temporary object `tmp/<uuid>`; at the end
 * the temporary object is copied server-side to `<sha256>` (skipped when that blob exists) and
 * removed. S3 needs the length of each part up front, so one part is held in memory while the
 * previous one uploads: memory per put is at most about two parts, whatever the blob's size.
 * A blob that fits in the first part (the common small file) never needs a temporary object: it is
 * uploaded once, directly under its key.
 *
 * Part sizes start at `partSizeBytes` (default 16 MiB, S3's minimum is 5 MiB) and double every
 * 1000 parts, so the 10,000-part limit of S3 is never the limit (16 MiB parts reach 16 GiB, the
 * first 5000 parts ~0.5 TiB).
 *
 * A source that errors or a failed part aborts the multipart upload: no blob and no temporary
 * object remain. A process killed mid-upload can leave an incomplete upload or a `tmp/` object;
 * `sweepTemporary` (run by the storage catalog's blob reaper) removes those once they are old.
 *
 * Content already stored is written again rather than skipped (the small blob's one PUT, the large
 * blob's server-side copy): that refreshes the blob's modification time, which the reaper reads so
 * as never to reclaim a blob an upload has just handed to a commit, and replaces a damaged copy.
 *
 * Temporary objects and multipart uploads are named after their process (temporary.ts), so a
 * process starting up removes those a killed process left at once (`sweepAbandoned`). A blob
 * whose bytes do not match its key is copied to `quarantine/<key>.<ms>` and removed (`quarantine`).
 */
import { DependencyUnavailableError } from '@burrow/contracts';
import type { Readable } from 'node:stream';
// The client is loaded when a store connects, not by every process that imports this library.
import type * as MinioClient from 'minio';
import type { Client } from 'minio';
import {
  type BlobInfo,
  type BlobListOptions,
  BlobNotFoundError,
  type BlobPage,
  type BlobStore,
  type ByteRange,
  isBlobKey,
  type ListedBlob,
  listLimit,
  type PutInfo,
  type PutOptions,
} from './port.js';
import { StreamDigests, withChecksums } from './digests.js';
import { abandoned, temporaryName } from './temporary.js';
import { verifyBlob } from './verify.js';

/** the client module, once a store has connected */
let minio: typeof MinioClient;

export interface MinioBlobStoreOptions {
  /** e.g. http://127.0.0.1:9000 (https:// for TLS) */
  url: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region?: string;
  /** first part size of multipart uploads; at least 5 MiB (default 16 MiB) */
  partSizeBytes?: number;
  /** how long connect() and ping() wait for an answer (default 5000 ms) */
  timeoutMs?: number;
}

const MiB = 1024 * 1024;
const MIN_PART = 5 * MiB;
const MAX_PART = 5 * 1024 * MiB;
/** a single CopyObject is limited to 5 GiB; larger objects are copied in parts */
const MAX_SINGLE_COPY = 5 * 1024 * MiB;
const TMP_PREFIX = 'tmp/';
const QUARANTINE_PREFIX = 'quarantine/';

function isNotFound(error: unknown): boolean {
  return (
    minio !== undefined && error instanceof minio.S3Error && (error.code === 'NoSuchKey' || error.code === 'NotFound')
  );
}

/** Failures of the connection to the server, or the server saying it cannot serve now. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const UNAVAILABLE_S3_CODES = new Set([
  'ServiceUnavailable',
  'SlowDown',
  'XMinioServerNotInitialized',
  'RequestTimeout',
]);

/**
 * A call of the client whose failure to reach the server comes out as DependencyUnavailableError
 * (a 503 naming the blob store). Only the client's calls: an error of the bytes' source (the
 * uploading client hung up) is the caller's, not the store's.
 */
function reach<T>(call: Promise<T>): Promise<T> {
  return call.catch((error: unknown) => {
    const code = (error as { code?: unknown }).code;
    const unreachable = typeof code === 'string' && (UNREACHABLE_CODES.has(code) || UNAVAILABLE_S3_CODES.has(code));
    throw unreachable || /socket hang up|no answer within/.test((error as Error)?.message ?? '')
      ? new DependencyUnavailableError('blob store', error)
      : error;
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function toBuffer(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw new TypeError(`blob sources must yield bytes, got ${typeof chunk}`);
}

export class MinioBlobStore implements BlobStore {
  private constructor(
    private readonly client: Client,
    private readonly bucket: string,
    private readonly partSize: number,
    private readonly timeoutMs: number,
  ) {}

  /** Connects, checks the server answers, and creates the bucket when it is missing. */
  static async connect(options: MinioBlobStoreOptions): Promise<MinioBlobStore> {
    const url = new URL(options.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new Error(`MINIO_URL must be http:// or https://, got ${url.protocol}`);
    }
    const useSSL = url.protocol === 'https:';
    minio ??= await import('minio');
    const client = new minio.Client({
      endPoint: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port ? Number(url.port) : useSSL ? 443 : 80,
      useSSL,
      accessKey: options.accessKey,
      secretKey: options.secretKey,
      pathStyle: true,
      ...(options.region ? { region: options.region } : {}),
    });
    const partSize = options.partSizeBytes ?? 16 * MiB;
    if (partSize < MIN_PART || partSize > MAX_PART) {
      throw new RangeError(`partSizeBytes must be between 5 MiB and 5 GiB, got ${partSize}`);
    }
    const timeoutMs = options.timeoutMs ?? 5000;
    const store = new MinioBlobStore(client, options.bucket, partSize, timeoutMs);
    try {
      const exists = await withTimeout(client.bucketExists(options.bucket), timeoutMs, 'MinIO');
      if (!exists) {
        await withTimeout(client.makeBucket(options.bucket, options.region ?? ''), timeoutMs, 'MinIO').catch(
          (error: unknown) => {
            // created concurrently by another replica: fine
            if (!(error instanceof minio.S3Error && error.code === 'BucketAlreadyOwnedByYou')) throw error;
          },
        );
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`MinIO at ${options.url} (bucket ${options.bucket}) is not usable: ${reason}`, {
        cause: error,
      });
    }
    return store;
  }

  async put(source: Readable, options: PutOptions = {}): Promise<PutInfo> {
    // hashed on a worker thread once the body is large (digests.ts)
    const digests = new StreamDigests({ sha256: true, checksums: options.checksums === true });
    let size = 0;
    let chunks: Buffer[] = [];
    let buffered = 0;

    // multipart state, once the blob outgrows the first part
    let tmp: string | null = null;
    let uploadId: string | null = null;
    const etags: { part: number; etag: string }[] = [];
    // The part uploading (at most one) and its failure: fields of an object, because they are set in
    // callbacks, which TypeScript's narrowing of local variables does not see.
    const upload: { inflight: Promise<void> | null; error: Error | null } = { inflight: null, error: null };
    let completed = false;

    const partSizeFor = (part: number) => Math.min(MAX_PART, this.partSize * 2 ** Math.floor((part - 1) / 1000));
    const startPart = async () => {
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, buffered);
      chunks = [];
      buffered = 0;
      if (uploadId === null) {
        tmp = `${TMP_PREFIX}${temporaryName()}`;
        uploadId = await reach(
          this.client.initiateNewMultipartUpload(this.bucket, tmp, {
            'Content-Type': 'application/octet-stream',
          }),
        );
      }
      // at most one part uploads while the next one is read
      if (upload.inflight) await upload.inflight;
      if (upload.error !== null) throw upload.error;
      const part = etags.length + 1;
      etags.push({ part, etag: '' });
      upload.inflight = reach(
        this.client.uploadPart(
          {
            bucketName: this.bucket,
            objectName: tmp!,
            uploadID: uploadId,
            partNumber: part,
            headers: { 'Content-Length': body.length },
          },
          body,
        ),
      ).then(
        (res) => {
          etags[part - 1].etag = res.etag;
        },
        (error: Error) => {
          upload.error = error;
        },
      );
    };

    try {
      for await (const chunk of source) {
        const buf = toBuffer(chunk);
        if (buf.length === 0) continue;
        const behind = digests.update(buf);
        if (behind) await behind;
        size += buf.length;
        chunks.push(buf);
        buffered += buf.length;
        if (buffered >= partSizeFor(etags.length + 1)) await startPart();
      }
      const computed = await digests.digest();
      const key = computed.sha256!;

      if (uploadId === null) {
        // Small blob: everything is in memory already (less than one part); upload it directly
        // (also when it is stored already: see the header on modification times).
        const body = Buffer.concat(chunks, buffered);
        await reach(
          this.client.putObject(this.bucket, key, body, body.length, {
            'Content-Type': 'application/octet-stream',
          }),
        );
        return withChecksums({ key, size }, computed);
      }

      if (buffered > 0) await startPart();
      if (upload.inflight) await upload.inflight;
      if (upload.error !== null) throw upload.error;
      await reach(this.client.completeMultipartUpload(this.bucket, tmp!, uploadId, etags));
      completed = true;
      await reach(this.copy(tmp!, key, size));
      await reach(this.client.removeObject(this.bucket, tmp!));
      return withChecksums({ key, size }, computed);
    } catch (error) {
      digests.drop();
      chunks = [];
      if (upload.inflight) await upload.inflight;
      if (uploadId !== null && tmp !== null) {
        const cleanup = completed
          ? this.client.removeObject(this.bucket, tmp)
          : this.client.abortMultipartUpload(this.bucket, tmp, uploadId);
        await cleanup.catch(() => undefined);
      }
      throw error;
    }
  }

  /** A server-side copy; with `etag`, only of that very object (it fails if `from` was replaced). */
  private async copy(from: string, to: string, size: number, etag?: string): Promise<void> {
    const source = new minio.CopySourceOptions({
      Bucket: this.bucket,
      Object: from,
      ...(etag ? { MatchETag: etag } : {}),
    });
    const dest = new minio.CopyDestinationOptions({ Bucket: this.bucket, Object: to });
    if (size <= MAX_SINGLE_COPY) await this.client.copyObject(source, dest);
    else await this.client.composeObject(dest, [source]);
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    if (!isBlobKey(key)) throw new BlobNotFoundError(key);
    try {
      if (!range) return await reach(this.client.getObject(this.bucket, key));
      if (!(
        Number.isSafeInteger(range.start) &&
        Number.isSafeInteger(range.end) &&
        range.start >= 0 &&
        range.end >= range.start
      )) {
        throw new RangeError(`invalid byte range ${range.start}-${range.end}`);
      }
      return await reach(this.client.getPartialObject(this.bucket, key, range.start, range.end - range.start + 1));
    } catch (error) {
      if (isNotFound(error)) throw new BlobNotFoundError(key);
      throw error;
    }
  }

  async stat(key: string): Promise<BlobInfo | null> {
    if (!isBlobKey(key)) return null;
    try {
      const info = await reach(this.client.statObject(this.bucket, key));
      return { key, size: info.size };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  async delete(key: string): Promise<void> {
    if (!isBlobKey(key)) return;
    await reach(this.client.removeObject(this.bucket, key));
  }

  async list(options: BlobListOptions = {}): Promise<BlobPage> {
    const limit = listLimit(options);
    const page = await this.client.listObjectsV2Query(this.bucket, '', '', '', limit, options.after ?? '');
    const blobs: ListedBlob[] = [];
    let last: string | null = null;
    for (const item of page.objects) {
      if (!item.name) continue;
      last = item.name;
      if (isBlobKey(item.name))
        blobs.push({ key: item.name, size: item.size, modifiedMs: item.lastModified.getTime() });
    }
    // keys sort as hex digits < `tmp/`: past the last hex key there are no more blobs
    const more = page.isTruncated && last !== null && last < 'g';
    return { blobs, next: more ? last : null };
  }

  /**
   * S3 has no conditional delete on the modification time: this reads it, then deletes. A put of
   * this content that finishes between the two (milliseconds) is lost; the reaper only asks about
   * blobs that nothing referenced and nobody put for a whole grace period.
   */
  async deleteIfUnchanged(key: string, cutoffMs: number): Promise<boolean> {
    if (!isBlobKey(key)) return false;
    let modified: number;
    try {
      modified = (await this.client.statObject(this.bucket, key)).lastModified.getTime();
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
    if (modified > cutoffMs) return false;
    await this.client.removeObject(this.bucket, key);
    return true;
  }

  /**
   * `tmp/` objects older than the cutoff (a process killed between completing an upload and
   * copying it), and multipart uploads under `tmp/` begun before it whose last part is older too
   * (a process killed mid-upload; a slow upload still adding parts is left alone).
   */
  async sweepTemporary(cutoffMs: number): Promise<number> {
    return this.removeTemporaries(
      (item) => item.modified.getTime() <= cutoffMs,
      async (upload) => {
        if (upload.initiated.getTime() > cutoffMs) return false;
        // as unknown as: listParts is the minio client's, left out of its published typings
        const parts = await (
          this.client as unknown as { listParts(b: string, o: string, u: string): Promise<{ lastModified?: Date }[]> }
        ).listParts(this.bucket, upload.key, upload.uploadId);
        return !parts.some((part) => (part.lastModified?.getTime() ?? 0) > cutoffMs);
      },
    );
  }

  async sweepAbandoned(): Promise<number> {
    return this.removeTemporaries(
      (item) => abandoned(item.name.slice(TMP_PREFIX.length)),
      async (upload) => abandoned(upload.key.slice(TMP_PREFIX.length)),
    );
  }

  /** Removes the `tmp/` objects and the unfinished uploads under `tmp/` that the predicates pick; how many. */
  private async removeTemporaries(
    objectGoes: (item: { name: string; modified: Date }) => boolean,
    uploadGoes: (upload: { key: string; uploadId: string; initiated: Date }) => Promise<boolean>,
  ): Promise<number> {
    let removed = 0;
    let token = '';
    do {
      const page = await this.client.listObjectsV2Query(this.bucket, TMP_PREFIX, token, '', 1000, '');
      for (const item of page.objects) {
        if (item.name && objectGoes({ name: item.name, modified: item.lastModified })) {
          await this.client.removeObject(this.bucket, item.name);
          removed += 1;
        }
      }
      token = page.isTruncated ? page.nextContinuationToken : '';
    } while (token);
    let keyMarker = '';
    let uploadIdMarker = '';
    for (;;) {
      // MinIO lists uploads for one exact name or for every name, not by prefix: filter here
      const page = await this.client.listIncompleteUploadsQuery(this.bucket, '', keyMarker, uploadIdMarker, '');
      for (const upload of page.uploads) {
        if (!upload.key.startsWith(TMP_PREFIX) || !(await uploadGoes(upload))) continue;
        await this.client.abortMultipartUpload(this.bucket, upload.key, upload.uploadId);
        removed += 1;
      }
      if (!page.isTruncated) break;
      keyMarker = page.nextKeyMarker;
      uploadIdMarker = page.nextUploadIdMarker;
    }
    return removed;
  }

  /**
   * Reads the object whole; if it does not verify, copies that very object (by its ETag) aside
   * and removes it, unless a put replaced it meanwhile. S3 has no conditional delete: a put
   * landing between the last check and the removal (milliseconds) would be removed with it.
   */
  async quarantine(key: string): Promise<boolean> {
    if (!isBlobKey(key)) return false;
    let checked;
    try {
      checked = await this.client.statObject(this.bucket, key);
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
    if ((await verifyBlob(this, key)).state !== 'corrupt') return false;
    try {
      await this.copy(key, `${QUARANTINE_PREFIX}${key}.${Date.now()}`, checked.size, checked.etag);
    } catch (error) {
      // replaced (PreconditionFailed) or removed meanwhile: whatever is there now is not ours to take
      if (error instanceof minio.S3Error && (error.code === 'PreconditionFailed' || isNotFound(error))) return false;
      throw error;
    }
    const now = await this.client
      .statObject(this.bucket, key)
      .catch((error: unknown) => (isNotFound(error) ? null : Promise.reject(error)));
    if (now && now.etag === checked.etag) await this.client.removeObject(this.bucket, key);
    return now !== null && now.etag === checked.etag;
  }

  async ping(): Promise<void> {
    const exists = await withTimeout(this.client.bucketExists(this.bucket), this.timeoutMs, 'MinIO ping');
    if (!exists) throw new Error(`MinIO bucket ${this.bucket} does not exist`);
  }
}
