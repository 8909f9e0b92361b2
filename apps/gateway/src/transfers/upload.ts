/**
 * One upload, the same for the storage interface's PUT and WebDAV's (issue 37): checked, streamed
 * into the blob store, committed. A small upload of a known length that this process's hints say
 * fits (upload-hints.ts) makes one bus round trip after authentication, the commit, which decides
 * the device, WebDAV's path rules, the quota (exactly) and the version. Any other asks
 * `prepareUpload` first, so that an unknown device or a declared size past the quota is refused
 * before a byte is read, and a body of unknown length is cut off at what the quota still holds.
 * Either way a refused body is not drained: the connection closes after the answer (lingering).
 */
import type { BlobWriter } from '@burrow/blobs';
import { type CommitFileReply, DomainError, type PrepareUploadReply, Subjects } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import type { Request, Response } from 'express';
import { ingest, type IngestedBlob } from './ingest.js';
import { closeAfterAnswer } from '../http/lingering-close.js';
import type { UploadHints } from './upload-hints.js';

export interface UploadParts {
  rpc: RpcClient;
  blobs: BlobWriter;
  hints: UploadHints;
}

export interface UploadRequest {
  req: Request;
  res: Response;
  userId: string;
  device: string;
  path: string;
  /** the declared length (undefined: not known) */
  size: number | undefined;
  mtime?: number;
  ctime?: number;
  /** WebDAV's rules: the parent folder exists, the path is not a folder */
  strict?: boolean;
  /** the path's current version is needed before the bytes (conditional requests): always prepare */
  needsCurrent?: boolean;
  /** checks made before a byte is read, given the current version when it was asked for */
  before?: (current: PrepareUploadReply['current'] | undefined) => Promise<void>;
  /** the bytes: the request itself, or something else to store (an empty file) */
  body?: () => Promise<IngestedBlob>;
}

export interface Uploaded {
  blob: IngestedBlob;
  version: CommitFileReply;
  /** whether the bus was asked `prepareUpload` (tests and the bench count round trips) */
  prepared: boolean;
}

export async function upload(parts: UploadParts, u: UploadRequest): Promise<Uploaded> {
  const { rpc, blobs, hints } = parts;
  const scope = { userId: u.userId, device: u.device, path: u.path };
  closeAfterAnswer(u.req, u.res);
  const hinted = !u.needsCurrent && hints.allows(u.userId, u.device, u.size);
  let limit = hints.remaining(u.userId);
  if (!hinted) {
    const prepared = await rpc.call<PrepareUploadReply>(Subjects.storage.prepareUpload, {
      ...scope,
      size: u.size,
      strict: u.strict,
    });
    hints.learn(u.userId, u.device, prepared.remaining);
    limit = prepared.remaining;
    await u.before?.(prepared.current);
  } else {
    await u.before?.(undefined);
  }
  const blob = u.body ? await u.body() : await ingest(u.req, blobs, { limit });
  u.res.removeHeader('Connection');
  try {
    const version = await rpc.call<CommitFileReply>(Subjects.storage.commitFile, {
      ...scope,
      ...blob,
      mtime: u.mtime,
      ctime: u.ctime,
      strict: u.strict,
    });
    hints.learn(u.userId, u.device, version.remaining, 'committed');
    return { blob, version, prepared: !hinted };
  } catch (error) {
    if (error instanceof DomainError && error.status === 404) hints.forgetDevice(u.userId, u.device);
    else if (error instanceof DomainError && error.status === 507) hints.exhausted(u.userId);
    throw error;
  }
}
