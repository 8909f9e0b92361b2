/** What every WebDAV method handler gets: the request, who made it, what it names, and the shared parts. */
import type { BlobReader, BlobWriter } from '@burrow/blobs';
import type { AuthenticatedUser } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import type { Request, Response } from 'express';
import type { UploadHints } from '../transfers/upload-hints.js';
import type { DavLocks } from './locks.js';
import type { DavTarget } from './target.js';

export interface DavCall {
  req: Request;
  res: Response;
  rpc: RpcClient;
  blobs: BlobReader & BlobWriter;
  locks: DavLocks;
  /** what this process heard of the user's devices and quota (uploads skip their prepare with it) */
  hints: UploadHints;
  user: AuthenticatedUser;
  target: DavTarget;
}
