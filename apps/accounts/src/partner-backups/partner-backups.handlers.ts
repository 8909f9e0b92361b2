/**
 * Bus handlers for the appliance's configuration backups: record a version whose data the gateway
 * has put into the blob store, and say where the latest (or a kept) version's data is. The data
 * never crosses the bus, and nothing here logs it.
 */
import {
  type GetPartnerBackupRequest,
  notFound,
  type PartnerBackupRef,
  type PartnerBackupVersion,
  type PartnerScoped,
  type StorePartnerBackupRequest,
  Streams,
  Subjects,
} from '@burrow/contracts';
import { handleCommand } from '@burrow/eventsourcing';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { requirePartner } from '../partners/partners.projection.js';
import { ACCOUNTS_CONTEXT, type AccountsContext } from '../context.js';
import { partnerBackupDecider } from './partner-backup.js';
import { partnerBackupVersions } from './partner-backups.projection.js';

const withoutBlob = ({ blob: _b, ...version }: PartnerBackupRef): PartnerBackupVersion => version;

@Controller()
export class PartnerBackupsHandlers {
  constructor(@Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext) {}

  @MessagePattern(Subjects.accounts.storePartnerBackup)
  async store(@Payload() { partnerId, blob, size }: StorePartnerBackupRequest): Promise<PartnerBackupVersion> {
    await requirePartner(this.ctx.docs, partnerId);
    const { position } = await handleCommand(this.ctx.store, Streams.partnerBackup(partnerId), partnerBackupDecider, {
      type: 'StorePartnerBackup',
      blob,
      size,
      at: this.ctx.clock.now(),
    });
    await this.ctx.runner.waitFor(position);
    this.ctx.log.info({ partnerId, sha256: blob, size, stored: position !== null }, 'appliance backup stored');
    const [latest] = await partnerBackupVersions(this.ctx.docs, partnerId);
    return withoutBlob(latest);
  }

  /** The latest version (null when none is stored), or the kept version with that sha256 (404 if not kept). */
  @MessagePattern(Subjects.accounts.getPartnerBackup)
  async get(@Payload() { partnerId, sha256 }: GetPartnerBackupRequest): Promise<PartnerBackupRef | null> {
    const versions = await partnerBackupVersions(this.ctx.docs, partnerId);
    if (sha256 === undefined) return versions[0] ?? null;
    const version = versions.find((v) => v.sha256 === sha256.toLowerCase());
    if (!version) throw notFound('no kept backup with that sha256');
    return version;
  }

  @MessagePattern(Subjects.accounts.listPartnerBackups)
  async list(@Payload() { partnerId }: PartnerScoped): Promise<PartnerBackupVersion[]> {
    return (await partnerBackupVersions(this.ctx.docs, partnerId)).map(withoutBlob);
  }
}
