/**
 * A partner's API credentials checked, the one way for every interface A request: on its own
 * (`accounts.partners.authenticate`, what the gateway's guard calls) or carried with the request
 * itself (`PartnerCredentialsGuard`: one bus round trip instead of two). One instance per process,
 * so both share the verified-credential cache.
 */
import {
  type AuthenticatedPartner,
  type AuthenticatePartnerRequest,
  PARTNER_CREDENTIALS_FIELD,
  unauthorized,
} from '@burrow/contracts';
import { hash } from 'node:crypto';
import type { BusHook } from '@burrow/runtime';
import type { AccountsContext } from '../context.js';
import { CredentialCheck, credentialsCurrent } from '../logins/credential-check.js';
import { type PartnerDoc, partnersCollection } from './partners.projection.js';

/** Partner ids remembered per username (see `authenticate`), at most this many. */
const PARTNER_IDS = 10_000;

export class PartnerAuthentication {
  private readonly credentials: CredentialCheck;
  /** the partner id of each username that authenticated here: partners are neither renamed nor deleted */
  private readonly ids = new Map<string, string>();

  constructor(private readonly ctx: AccountsContext) {
    this.credentials = new CredentialCheck(ctx, 'partner', 'invalid partner credentials');
  }

  /**
   * The throttle admits the attempt before the password is checked (counting it as a failure
   * until it succeeds) and refuses with 429 while the account or the address must wait. An
   * unknown username is counted and locked the same way, so no answer tells whether the name
   * exists, and the dummy hash keeps the password check's timing alike.
   *
   * The partner of a username that authenticated before is not looked up again (a lookup by the
   * indexed name was ~5% of an interface A request): a username names one partner for good (a
   * unique index; no event renames or deletes a partner), and whatever the id, the password is
   * checked against that partner's current hash in the read models, read at every request, so a
   * changed password is refused at once and nobody authenticates as a partner whose password they
   * lack (CredentialCheck: why the read models, and why that holds across replicas).
   */
  async authenticate({
    username,
    password,
    address,
  }: Partial<AuthenticatePartnerRequest>): Promise<AuthenticatedPartner> {
    const name = typeof username === 'string' ? username : '';
    const { id: partnerId, hash } = await this.credentials.verify(
      { name, password, address },
      async () => {
        const known = this.ids.get(name);
        if (known !== undefined) return { id: known };
        const doc: PartnerDoc | null = await partnersCollection(this.ctx.docs).findOne({ username: name });
        return doc && { id: doc._id };
      },
      (id) => partnerPasswordHash(this.ctx, id),
    );
    // the lookup is exact: the partner's username is the name given
    if (!this.ids.has(name)) {
      if (this.ids.size >= PARTNER_IDS) this.ids.clear();
      this.ids.set(name, partnerId);
    }
    return { partnerId, username: name, stamp: partnerStamp(hash) };
  }
}

/**
 * Whether `stamp` (`AuthenticatedPartner.stamp`) still stands for the partner's current password,
 * as the read models hold it (a change through another replica counts at once); 401 once it does not.
 */
export async function requirePartnerStamp(ctx: AccountsContext, partnerId: string, stamp: string): Promise<void> {
  await credentialsCurrent(ctx);
  const hash = await partnerPasswordHash(ctx, partnerId);
  if (hash === null || partnerStamp(hash) !== stamp)
    throw unauthorized('the partner password has changed: authenticate again with the new password');
}

/** The partner's current password hash (the partners read model), or null. */
const partnerPasswordHash = async (ctx: AccountsContext, partnerId: string): Promise<string | null> =>
  (await partnersCollection(ctx.docs).get(partnerId))?.passwordHash || null;

/** A digest of the partner's password hash that reveals nothing usable about it. */
const partnerStamp = (passwordHash: string): string => {
  let stamp = stamps.get(passwordHash);
  if (stamp === undefined) {
    stamp = hash('sha256', `burrow-partner-stamp\0${passwordHash}`, 'base64url').slice(0, 22);
    if (stamps.size >= PARTNER_IDS) stamps.clear();
    stamps.set(passwordHash, stamp);
  }
  return stamp;
};
/** The stamps of the hashes seen (every request of a partner checks its stamp; a pure function of the hash) */
const stamps = new Map<string, string>();

/**
 * Every accounts bus handler, before it runs: a request that carries a partner's credentials
 * (`PARTNER_CREDENTIALS_FIELD`, sent by the gateway for interface A routes marked
 * `@AuthenticatedInCall()`) is authenticated here. The field is taken out of the payload and its
 * `partnerId` is set to the authenticated partner, whatever it held: the handler never sees the
 * credentials and takes the partner from the authentication only (tenant isolation). A refusal
 * (401, 429) is the request's answer, exactly as `accounts.partners.authenticate` gives it.
 */
export class PartnerCredentialsGuard implements BusHook {
  constructor(private readonly partners: PartnerAuthentication) {}

  async around(data: unknown, next: () => Promise<unknown>): Promise<unknown> {
    await this.check(data);
    return next();
  }

  /** Authenticates the credentials `data` carries, if any, and puts the partner in their place. */
  async check(data: unknown): Promise<void> {
    if (data === null || typeof data !== 'object' || !Object.hasOwn(data, PARTNER_CREDENTIALS_FIELD)) return;
    const payload = data as Record<string, unknown>;
    const credentials = payload[PARTNER_CREDENTIALS_FIELD];
    delete payload[PARTNER_CREDENTIALS_FIELD];
    const { partnerId } = await this.partners.authenticate(
      credentials !== null && typeof credentials === 'object' ? credentials : {},
    );
    payload.partnerId = partnerId;
  }
}
