/** Bus handlers for partners: authentication, operator creation, password, settings, features, quota. */
import {
  type AuthenticatedPartner,
  badRequest,
  coerceInt,
  type CreatePartnerRequest,
  INVALID,
  notFound,
  type PartnerFeatures,
  type PartnerInfo,
  type PartnerQuota,
  type PartnerScoped,
  type PartnerSettings,
  Streams,
  Subjects,
  tooManyRequests,
  unauthorized,
} from '@burrow/contracts';
import { handleCommand } from '@burrow/eventsourcing';
import { FailureLimiter, hashPassword, verifyPassword } from '@burrow/runtime';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { createHmac, randomUUID } from 'node:crypto';
import { allocatedBytes } from '../reservations/allocation-ledger.js';
import { nameKey, releaseName, reserveName } from '../reservations/reservation.js';
import { ACCOUNTS_CONTEXT, type AccountsContext } from '../shared/context.js';
import { usageOfPartner } from '../storage-usage/storage-usage.projection.js';
import { DEFAULT_FEATURES, partnerDecider, validateNewPassword } from './partner.js';
import { type PartnerDoc, partnersCollection } from './partners.projection.js';
import { validateSettings } from './settings.js';

/** A hash to verify against when the username is unknown, so timing does not reveal which names exist. */
const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
const CACHE_LIMIT = 10_000;

const FEATURE_KEYS = Object.keys(DEFAULT_FEATURES) as (keyof PartnerFeatures)[];

export function parseFeatures(value: unknown): Partial<PartnerFeatures> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest('features must be an object', ['features']);
  const out: Partial<PartnerFeatures> = {};
  for (const [k, v] of Object.entries(value)) {
    if (!FEATURE_KEYS.includes(k as keyof PartnerFeatures) || typeof v !== 'boolean') throw badRequest(`invalid feature ${k}`, ['features']);
    out[k as keyof PartnerFeatures] = v;
  }
  return out;
}

function parseBytesAvailable(value: unknown): number | null {
  if (value === null) return null;
  const n = coerceInt(value);
  if (n === INVALID || n < 0) throw badRequest('bytes_available must be a non-negative integer or null', ['bytes_available']);
  return n;
}

@Controller()
export class PartnersHandlers {
  /** keyed hash of (username, password, stored hash) -> partnerId: a password change misses at once */
  private readonly verified = new Map<string, string>();
  /** failed logins per partner username: 20 per 5 minutes, then 429 until the window passes */
  private readonly failedLogins = new FailureLimiter({ maxFailures: 20, windowMs: 5 * 60_000 });

  constructor(@Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext) {}

  private async partner(partnerId: string): Promise<PartnerDoc> {
    const doc = await partnersCollection(this.ctx.docs).get(partnerId);
    if (!doc) throw notFound('no such partner');
    return doc;
  }

  private async currentPasswordHash(partnerId: string): Promise<string> {
    const events = await this.ctx.store.readStream(Streams.partner(partnerId), { direction: 'backwards' });
    const latest = events.find((e) => e.type === 'PartnerPasswordChanged' || e.type === 'PartnerCreated');
    return (latest?.data.passwordHash as string | undefined) ?? DUMMY_HASH;
  }

  @MessagePattern(Subjects.accounts.authenticatePartner)
  async authenticate(@Payload() { username, password }: { username: string; password: string }): Promise<AuthenticatedPartner> {
    const doc = typeof username === 'string' ? await partnersCollection(this.ctx.docs).findOne({ username }) : null;
    // The stored hash comes from the partner's own stream, not the read model: a password changed
    // a moment ago through another replica is already in force here.
    const stored = doc ? await this.currentPasswordHash(doc._id) : DUMMY_HASH;
    const key = createHmac('sha256', this.ctx.secret).update(`${username}\0${password}\0${stored}`).digest('base64');
    if (doc && this.verified.get(key) === doc._id) return { partnerId: doc._id, username: doc.username };
    const throttleKey = String(username).toLowerCase();
    const wait = this.failedLogins.retryAfter(throttleKey);
    if (wait > 0) throw tooManyRequests('too many failed logins for this account; retry later', wait);
    const ok = typeof password === 'string' && (await verifyPassword(password, stored));
    if (!doc || !ok) {
      this.failedLogins.fail(throttleKey);
      throw unauthorized('invalid partner credentials');
    }
    this.failedLogins.reset(throttleKey);
    if (this.verified.size >= CACHE_LIMIT) this.verified.clear();
    this.verified.set(key, doc._id);
    return { partnerId: doc._id, username: doc.username };
  }

  @MessagePattern(Subjects.accounts.createPartner)
  async create(@Payload() request: CreatePartnerRequest): Promise<PartnerInfo> {
    const invalid: string[] = [];
    if (typeof request.username !== 'string' || !/^[A-Za-z0-9._@-]{1,128}$/.test(request.username)) invalid.push('username');
    if (typeof request.company_name !== 'string' || !request.company_name.trim()) invalid.push('company_name');
    if (invalid.length) throw badRequest('invalid partner', invalid);
    const password = validateNewPassword(request.password);
    const features = { ...DEFAULT_FEATURES, ...parseFeatures(request.features) };
    const bytesAvailable = parseBytesAvailable(request.bytes_available ?? null);
    const partnerId = randomUUID();
    const reservation = Streams.reservation('partnername', nameKey(request.username));
    await reserveName(this.ctx.store, reservation, partnerId, 'username');
    try {
      const brand = request.brand_identifier?.trim() || request.username.toLowerCase();
      const result = await handleCommand(this.ctx.store, Streams.partner(partnerId), partnerDecider, {
        type: 'CreatePartner',
        data: {
          partnerId,
          username: request.username,
          company_name: request.company_name.trim(),
          brand_identifier: brand,
          passwordHash: await hashPassword(password),
          bytes_available: bytesAvailable,
          features,
          created_at: this.ctx.clock.now(),
        },
      });
      await this.ctx.runner.waitFor(result.position);
      return { partner_id: partnerId, company_name: request.company_name.trim(), brand_identifier: brand, username: request.username };
    } catch (error) {
      await releaseName(this.ctx.store, reservation, partnerId);
      throw error;
    }
  }

  @MessagePattern(Subjects.accounts.findPartner)
  async find(@Payload() { username }: { username: string }): Promise<PartnerInfo & { bytes_available: number | null; features: PartnerFeatures }> {
    const p = typeof username === 'string' ? await partnersCollection(this.ctx.docs).findOne({ username }) : null;
    if (!p) throw notFound(`no partner ${username}`);
    return { partner_id: p._id, company_name: p.company_name, brand_identifier: p.brand_identifier, username: p.username, bytes_available: p.bytes_available, features: p.features };
  }

  @MessagePattern(Subjects.accounts.partnerInfo)
  async info(@Payload() { partnerId }: PartnerScoped): Promise<PartnerInfo> {
    const p = await this.partner(partnerId);
    return { partner_id: p._id, company_name: p.company_name, brand_identifier: p.brand_identifier, username: p.username };
  }

  @MessagePattern(Subjects.accounts.changePartnerPassword)
  async changePassword(@Payload() { partnerId, password }: PartnerScoped & { password: unknown }): Promise<null> {
    const newPassword = validateNewPassword(password);
    const result = await handleCommand(this.ctx.store, Streams.partner(partnerId), partnerDecider, {
      type: 'ChangePartnerPassword',
      passwordHash: await hashPassword(newPassword),
      at: this.ctx.clock.now(),
    });
    await this.ctx.runner.waitFor(result.position);
    return null;
  }

  @MessagePattern(Subjects.accounts.getSettings)
  async settings(@Payload() { partnerId }: PartnerScoped): Promise<PartnerSettings> {
    return (await this.partner(partnerId)).settings;
  }

  @MessagePattern(Subjects.accounts.updateSettings)
  async updateSettings(@Payload() { partnerId, settings }: PartnerScoped & { settings: unknown }): Promise<PartnerSettings> {
    const changes = validateSettings(settings);
    await this.partner(partnerId);
    const result = await handleCommand(this.ctx.store, Streams.partner(partnerId), partnerDecider, {
      type: 'ChangePartnerSettings',
      changes,
      at: this.ctx.clock.now(),
    });
    await this.ctx.runner.waitFor(result.position);
    return (await this.partner(partnerId)).settings;
  }

  @MessagePattern(Subjects.accounts.getFeatures)
  async features(@Payload() { partnerId }: PartnerScoped): Promise<PartnerFeatures> {
    return (await this.partner(partnerId)).features;
  }

  /** Operator only (admin CLI): the spec gives partners no way to change their own limits. */
  @MessagePattern(Subjects.accounts.setPartnerLimits)
  async setLimits(
    @Payload() request: { username: string; bytes_available?: unknown; features?: unknown },
  ): Promise<PartnerInfo & { bytes_available: number | null; features: PartnerFeatures }> {
    const doc = await partnersCollection(this.ctx.docs).findOne({ username: request.username });
    if (!doc) throw notFound(`no partner ${request.username}`);
    const result = await handleCommand(this.ctx.store, Streams.partner(doc._id), partnerDecider, {
      type: 'ChangePartnerLimits',
      bytes_available: request.bytes_available === undefined ? undefined : parseBytesAvailable(request.bytes_available),
      features: request.features === undefined ? undefined : parseFeatures(request.features),
      at: this.ctx.clock.now(),
    });
    await this.ctx.runner.waitFor(result.position);
    const p = await this.partner(doc._id);
    return { partner_id: p._id, company_name: p.company_name, brand_identifier: p.brand_identifier, username: p.username, bytes_available: p.bytes_available, features: p.features };
  }

  @MessagePattern(Subjects.accounts.getQuota)
  async quota(@Payload() { partnerId }: PartnerScoped): Promise<PartnerQuota> {
    const p = await this.partner(partnerId);
    const usage = await usageOfPartner(this.ctx.docs, partnerId);
    return {
      bytes_available: p.bytes_available,
      bytes_allocated: await allocatedBytes(this.ctx.store, partnerId),
      bytes_used: usage.bytes_used,
      share_count: usage.share_count,
      device_count: usage.device_count,
    };
  }
}
