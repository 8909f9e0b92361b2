/** Bus handlers for partners: authentication, operator creation and limits, password, settings, features, quota. */
import {
  type AuthenticatedPartner,
  type AuthenticatePartnerRequest,
  badRequest,
  type ChangePartnerPasswordRequest,
  CreatePartnerRequest,
  notFound,
  type PartnerDetails,
  type PartnerFeatures,
  type PartnerInfo,
  type PartnerQuota,
  type PartnerScoped,
  type PartnerSettings,
  parseRequest,
  SetPartnerLimitsRequest,
  Streams,
  Subjects,
  type UnlockPartnerLoginRequest,
  unavailableDependencyOf,
  type UpdateSettingsRequest,
} from '@burrow/contracts';
import { handleCommand } from '@burrow/eventsourcing';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { randomUUID } from 'node:crypto';
import { hashPassword } from '../logins/password-hash.js';
import { allocatedBytes } from '../quota/allocation.js';
import { projectedAllocation } from '../quota/allocation.projection.js';
import { ACCOUNTS_CONTEXT, type AccountsContext } from '../context.js';
import { usageOfPartner } from '../storage-usage/storage-usage.projection.js';
import { createPartnerProcess } from './create-partner.process.js';
import { DEFAULT_FEATURES, partnerDecider } from './partner.js';
import { PartnerAuthentication } from './partner-authentication.js';
import { type PartnerDoc, partnersCollection, requirePartner } from './partners.projection.js';

const detailsOf = (p: PartnerDoc): PartnerDetails => ({
  partner_id: p._id,
  company_name: p.company_name,
  brand_identifier: p.brand_identifier,
  username: p.username,
  bytes_available: p.bytes_available,
  features: p.features,
});

@Controller()
export class PartnersHandlers {
  constructor(
    @Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext,
    // one per process (the service provides it): its verified-credential cache is shared with PartnerCredentialsGuard
    @Inject(PartnerAuthentication)
    private readonly authentication: PartnerAuthentication = new PartnerAuthentication(ctx),
  ) {}

  /** Every interface A request the gateway authenticates before calling it (`PartnerAuthentication`). */
  @MessagePattern(Subjects.accounts.authenticatePartner)
  authenticate(@Payload() request: AuthenticatePartnerRequest): Promise<AuthenticatedPartner> {
    return this.authentication.authenticate(request);
  }

  /** Operator only (admin CLI): lift a lock on a partner username and forget its failed logins. */
  @MessagePattern(Subjects.accounts.unlockPartnerLogin)
  async unlockLogin(@Payload() { username }: UnlockPartnerLoginRequest): Promise<{ username: string; unlocked: true }> {
    if (typeof username !== 'string' || !username) throw badRequest('username is required', ['username']);
    if (!(await partnersCollection(this.ctx.docs).findOne({ username }))) throw notFound(`no partner ${username}`);
    await this.ctx.logins.unlock('partner', username);
    this.ctx.log.info({ username }, 'partner login unlocked by the operator');
    return { username, unlocked: true };
  }

  /** Operator only (admin CLI, bootstrap): the request is parsed here, where it enters Burrow. */
  @MessagePattern(Subjects.accounts.createPartner)
  async create(@Payload() body: unknown): Promise<PartnerInfo> {
    const request = parseRequest(CreatePartnerRequest, body, { what: 'partner' });
    const partnerId = randomUUID();
    const brand = request.brand_identifier || request.username.toLowerCase();
    const partner = {
      partnerId,
      username: request.username,
      company_name: request.company_name,
      brand_identifier: brand,
      passwordHash: await hashPassword(request.password),
      bytes_available: request.bytes_available,
      features: { ...DEFAULT_FEATURES, ...request.features },
      created_at: this.ctx.clock.now(),
    };
    await this.ctx.processes.run(
      createPartnerProcess(this.ctx),
      { partnerId, username: request.username },
      { partner },
    );
    return {
      partner_id: partnerId,
      company_name: request.company_name,
      brand_identifier: brand,
      username: request.username,
    };
  }

  @MessagePattern(Subjects.accounts.findPartner)
  async find(@Payload() { username }: { username: string }): Promise<PartnerDetails> {
    const p = typeof username === 'string' ? await partnersCollection(this.ctx.docs).findOne({ username }) : null;
    if (!p) throw notFound(`no partner ${username}`);
    return detailsOf(p);
  }

  @MessagePattern(Subjects.accounts.partnerInfo)
  async info(@Payload() { partnerId }: PartnerScoped): Promise<PartnerInfo> {
    const { bytes_available: _b, features: _f, ...info } = detailsOf(await requirePartner(this.ctx.docs, partnerId));
    return info;
  }

  @MessagePattern(Subjects.accounts.changePartnerPassword)
  async changePassword(@Payload() { partnerId, password }: ChangePartnerPasswordRequest): Promise<null> {
    const result = await handleCommand(this.ctx.store, Streams.partner(partnerId), partnerDecider, {
      type: 'ChangePartnerPassword',
      passwordHash: await hashPassword(password),
      at: this.ctx.clock.now(),
    });
    await this.ctx.runner.waitFor(result.position);
    return null;
  }

  @MessagePattern(Subjects.accounts.getSettings)
  async settings(@Payload() { partnerId }: PartnerScoped): Promise<PartnerSettings> {
    return (await requirePartner(this.ctx.docs, partnerId)).settings;
  }

  @MessagePattern(Subjects.accounts.updateSettings)
  async updateSettings(@Payload() { partnerId, settings }: UpdateSettingsRequest): Promise<PartnerSettings> {
    await requirePartner(this.ctx.docs, partnerId);
    const result = await handleCommand(this.ctx.store, Streams.partner(partnerId), partnerDecider, {
      type: 'ChangePartnerSettings',
      changes: settings,
      at: this.ctx.clock.now(),
    });
    await this.ctx.runner.waitFor(result.position);
    return (await requirePartner(this.ctx.docs, partnerId)).settings;
  }

  @MessagePattern(Subjects.accounts.getFeatures)
  async features(@Payload() { partnerId }: PartnerScoped): Promise<PartnerFeatures> {
    return (await requirePartner(this.ctx.docs, partnerId)).features;
  }

  /** Operator only (admin CLI): the spec gives partners no way to change their own limits. */
  @MessagePattern(Subjects.accounts.setPartnerLimits)
  async setLimits(@Payload() body: unknown): Promise<PartnerDetails> {
    const request = parseRequest(SetPartnerLimitsRequest, body, { what: 'limits' });
    const doc = await partnersCollection(this.ctx.docs).findOne({ username: request.username });
    if (!doc) throw notFound(`no partner ${request.username}`);
    const result = await handleCommand(this.ctx.store, Streams.partner(doc._id), partnerDecider, {
      type: 'ChangePartnerLimits',
      bytes_available: request.bytes_available,
      features: request.features,
      at: this.ctx.clock.now(),
    });
    await this.ctx.runner.waitFor(result.position);
    return detailsOf(await requirePartner(this.ctx.docs, doc._id));
  }

  @MessagePattern(Subjects.accounts.getQuota)
  async quota(@Payload() { partnerId }: PartnerScoped): Promise<PartnerQuota> {
    const p = await requirePartner(this.ctx.docs, partnerId);
    const usage = await usageOfPartner(this.ctx.docs, partnerId);
    return {
      bytes_available: p.bytes_available,
      bytes_allocated: await this.allocated(partnerId),
      bytes_used: usage.bytes_used,
      share_count: usage.share_count,
      device_count: usage.device_count,
    };
  }

  /**
   * The ledger's total, read from the ledger (exact, whatever the read models' lag); while the event
   * store does not answer, the total the read models hold: no write can move it meanwhile, so it is
   * as current as the ledger's last entry the runner saw.
   */
  private async allocated(partnerId: string): Promise<number> {
    try {
      return await allocatedBytes(this.ctx.store, partnerId);
    } catch (error) {
      if (unavailableDependencyOf(error) !== 'event store') throw error;
      return projectedAllocation(this.ctx.docs, partnerId);
    }
  }
}
