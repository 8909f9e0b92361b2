/**
 * The management appliance's configuration backup: `POST /partner/backup` stores
 * `{"sha256", "data"}`, `GET /partner/backup` gives the latest back (`null` when none is stored,
 * which the appliance tests for at its first login), `GET /partner/backup/versions` lists the kept
 * ones. The data streams from the request into the blob store and from the blob store into the
 * reply: it is never held whole, never crosses the bus, and is never logged.
 */
import { closeAfterAnswer } from '../../http/lingering-close.js';
import type { BlobReader, BlobWriter } from '@burrow/blobs';
import {
  PARTNER_BACKUP_BODY_LIMIT,
  type PartnerBackupRef,
  type PartnerBackupVersion,
  payloadTooLarge,
  Subjects,
  type z,
} from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, HttpCode, Inject, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PartnerGuard, PartnerId } from '../../partner-access/partner.guard.js';
import type { PartnerIdentity } from '../../partner-access/partner-in-call.js';
import { Query } from '../../http/request.js';
import { BLOBS, RPC } from '../../http/tokens.js';
import { Route } from '../../http/route.js';
import { ACCOUNTS_API_MOUNTS } from '../mount.js';
import { readBackupBody } from './backup-body.js';
import { PARTNER_BACKUP_ROUTES } from './partner-backup.routes.js';

/** Line breaks are the only characters of stored data that need escaping in a JSON string (the rest is base64). */
function escapeLineBreaks(chunk: Buffer): Buffer | string {
  if (!chunk.includes(0x0a) && !chunk.includes(0x0d)) return chunk;
  return chunk.toString('latin1').replaceAll('\n', '\\n').replaceAll('\r', '\\r');
}

async function* backupJson(version: PartnerBackupRef, data: Readable): AsyncGenerator<Buffer | string> {
  yield `{"sha256":"${version.sha256}","size":${version.size},"stored_at":${version.stored_at},"data":"`;
  for await (const chunk of data as AsyncIterable<Buffer>) yield escapeLineBreaks(chunk);
  yield '"}';
}

@Controller(ACCOUNTS_API_MOUNTS)
@UseGuards(PartnerGuard)
export class PartnerBackupController {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(BLOBS) private readonly blobs: BlobReader & BlobWriter,
  ) {}

  @Route(PARTNER_BACKUP_ROUTES.latest)
  async latest(
    @PartnerId() partnerId: PartnerIdentity,
    @Query(PARTNER_BACKUP_ROUTES.latest.query) { sha256 }: z.output<typeof PARTNER_BACKUP_ROUTES.latest.query>,
    @Res() res: Response,
  ): Promise<void> {
    const version = await this.rpc.call<PartnerBackupRef | null>(Subjects.accounts.getPartnerBackup, {
      partnerId,
      sha256,
    });
    if (!version) {
      res.status(200).type('application/json').send('null');
      return;
    }
    // opened before the status is sent: a missing blob is still an error reply, not a cut one
    const data = await this.blobs.get(version.blob);
    res.status(200).type('application/json').setHeader('Cache-Control', 'no-store');
    await pipeline(Readable.from(backupJson(version, data)), res);
  }

  @Route(PARTNER_BACKUP_ROUTES.versions)
  versions(@PartnerId() partnerId: PartnerIdentity): Promise<PartnerBackupVersion[]> {
    return this.rpc.call(Subjects.accounts.listPartnerBackups, { partnerId });
  }

  @Route(PARTNER_BACKUP_ROUTES.store)
  @HttpCode(200)
  async store(@PartnerId() partnerId: PartnerIdentity, @Req() req: Request): Promise<PartnerBackupVersion> {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > PARTNER_BACKUP_BODY_LIMIT) {
      if (req.res) closeAfterAnswer(req, req.res);
      throw payloadTooLarge(`request body over ${PARTNER_BACKUP_BODY_LIMIT} bytes`);
    }
    const data = new PassThrough();
    // a refused body destroys `data`, which fails the put (leaving no blob behind): the refusal is
    // what the client gets, so the put's own failure and the stream's error event are expected
    data.on('error', () => undefined);
    const put = this.blobs.put(data);
    put.catch(() => undefined);
    let size: number;
    try {
      // leaving the loop early (a refusal) must not destroy the request before the answer is sent
      ({ size } = await readBackupBody(
        req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>,
        data,
        PARTNER_BACKUP_BODY_LIMIT,
      ));
      data.end();
    } catch (error) {
      data.destroy(error as Error);
      // the rest of a refused body is not read: the connection closes once the answer is out
      if (!req.complete && req.res) closeAfterAnswer(req, req.res);
      throw error;
    }
    // the blob's key is the SHA-256 of what was written: the hash the parser just verified
    const blob = await put;
    return this.rpc.call<PartnerBackupVersion>(Subjects.accounts.storePartnerBackup, {
      partnerId,
      blob: blob.key,
      size,
    });
  }
}
