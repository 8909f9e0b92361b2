/**
 * The WebDAV endpoint, `/dav/<username or email>/...`: one Nest middleware for every method, since
 * Nest's controllers route only HTTP's own methods and WebDAV adds PROPFIND, PROPPATCH, MKCOL,
 * COPY, MOVE, LOCK and UNLOCK. It authenticates (`auth.ts`), reads what the URL names, and hands
 * the request to the method's handler; errors go to the gateway's error filter like any other
 * (JSON `{"reason"}` with the status), except where WebDAV defines an XML body.
 */
import type { BlobReader, BlobWriter } from '@burrow/blobs';
import { DomainError } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import type { Request, Response } from 'express';
import { readBoundedBody } from '../http/json-body.js';
import { BLOBS, RPC, SESSIONS, UPLOAD_HINTS } from '../http/tokens.js';
import type { Sessions } from '../storage-access/sessions.js';
import type { UploadHints } from '../transfers/upload-hints.js';
import { authenticate } from './auth.js';
import type { DavCall } from './context.js';
import { copyOrMove } from './copy-move.js';
import { del } from './delete.js';
import { get } from './get.js';
import { lock, unlock } from './lock.js';
import { DavLocks } from './locks.js';
import { mkcol } from './mkcol.js';
import { propfind } from './propfind.js';
import { proppatch } from './proppatch.js';
import { put } from './put.js';
import { requestTarget } from './target.js';
import { LockedError } from './write-guard.js';
import { escapeXml } from './xml.js';

export const DAV_LOCKS = Symbol('DAV_LOCKS');

/** XML request bodies (PROPFIND, PROPPATCH, LOCK) are small: bounded, never a file. */
export const DAV_XML_BODY_LIMIT = 1024 * 1024;

export const DAV_METHODS = [
  'OPTIONS',
  'GET',
  'HEAD',
  'PUT',
  'DELETE',
  'PROPFIND',
  'PROPPATCH',
  'MKCOL',
  'COPY',
  'MOVE',
  'LOCK',
  'UNLOCK',
];

const hasBody = (req: Request) =>
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') ||
  req.headers['transfer-encoding'] !== undefined;

@Injectable()
export class DavMiddleware implements NestMiddleware {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(BLOBS) private readonly blobs: BlobReader & BlobWriter,
    @Inject(DAV_LOCKS) private readonly locks: DavLocks,
    @Inject(UPLOAD_HINTS) private readonly hints: UploadHints,
    @Inject(SESSIONS) private readonly sessions: Sessions,
  ) {}

  async use(req: Request, res: Response): Promise<void> {
    res.setHeader('DAV', '1, 2');
    res.setHeader('MS-Author-Via', 'DAV');
    const target = requestTarget(req);
    if (req.method === 'OPTIONS' && !target.user) return this.options(res);
    if (!DAV_METHODS.includes(req.method)) {
      res.setHeader('Allow', DAV_METHODS.join(', '));
      throw new DomainError(405, { reason: `${req.method} is not a WebDAV method here` });
    }
    const user = await authenticate(this.rpc, req, res, target.user, this.sessions.memo);
    const call: DavCall = {
      req,
      res,
      rpc: this.rpc,
      blobs: this.blobs,
      locks: this.locks,
      hints: this.hints,
      user,
      target,
    };
    try {
      await this.dispatch(call);
    } catch (error) {
      if (error instanceof LockedError && !res.headersSent) {
        res.status(423).setHeader('Content-Type', 'application/xml; charset=utf-8');
        res.end(
          `<?xml version="1.0" encoding="utf-8"?>\n<D:error xmlns:D="DAV:"><D:lock-token-submitted><D:href>${escapeXml(error.root)}</D:href></D:lock-token-submitted></D:error>\n`,
        );
        return;
      }
      throw error;
    }
  }

  private options(res: Response): void {
    res
      .status(200)
      .set({ Allow: DAV_METHODS.join(', '), 'Accept-Ranges': 'bytes', 'Content-Length': '0' })
      .end();
  }

  private async xmlBody(req: Request): Promise<string> {
    return (await readBoundedBody(req, DAV_XML_BODY_LIMIT)).toString('utf8');
  }

  private async dispatch(call: DavCall): Promise<void> {
    const { req } = call;
    switch (req.method) {
      case 'OPTIONS':
        return this.options(call.res);
      case 'GET':
      case 'HEAD':
        return get(call);
      case 'PUT':
        return put(call);
      case 'DELETE':
        return del(call);
      case 'PROPFIND':
        return propfind(call, await this.xmlBody(req));
      case 'PROPPATCH':
        return proppatch(call, await this.xmlBody(req));
      case 'MKCOL': {
        const body = hasBody(req) ? await readBoundedBody(req, DAV_XML_BODY_LIMIT) : Buffer.alloc(0);
        return mkcol(call, body.length > 0);
      }
      case 'COPY':
        return copyOrMove(call, 'copy');
      case 'MOVE':
        return copyOrMove(call, 'move');
      case 'LOCK':
        return lock(call, await this.xmlBody(req));
      case 'UNLOCK':
        return unlock(call);
    }
  }
}
