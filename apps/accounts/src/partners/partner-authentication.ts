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
  Streams,
} from '@burrow/contracts';
import type { CanActivate, ExecutionContext } from '@nestjs/common';
import type { AccountsContext } from '../shared/context.js';
import { CredentialCheck, latestPasswordHash } from '../shared/credential-check.js';
import { type PartnerDoc, partnersCollection } from './partners.projection.js';

export class PartnerAuthentication {
  private readonly credentials: CredentialCheck;

  constructor(private readonly ctx: AccountsContext) {
    this.credentials = new CredentialCheck(ctx, 'partner', 'invalid partner credentials');
  }

  /**
   * The throttle admits the attempt before the password is checked (counting it as a failure
   * until it succeeds) and refuses with 429 while the account or the address must wait. An
   * unknown username is counted and locked the same way, so no answer tells whether the name
   * exists, and the dummy hash keeps the password check's timing alike.
   */
  async authenticate({ username, password, address }: Partial<AuthenticatePartnerRequest>): Promise<AuthenticatedPartner> {
    const name = typeof username === 'string' ? username : '';
    let doc: PartnerDoc | null = null;
    const partnerId = await this.credentials.check(
      { name, password, address },
      async () => (doc = await partnersCollection(this.ctx.docs).findOne({ username: name })) && { id: doc._id },
      (id) => latestPasswordHash(this.ctx, Streams.partner(id), ['PartnerPasswordChanged', 'PartnerCreated']),
    );
    return { partnerId, username: doc!.username };
  }
}

/**
 * Every accounts bus handler, before it runs: a request that carries a partner's credentials
 * (`PARTNER_CREDENTIALS_FIELD`, sent by the gateway for interface A routes marked
 * `@AuthenticatedInCall()`) is authenticated here. The field is taken out of the payload and its
 * `partnerId` is set to the authenticated partner, whatever it held: the handler never sees the
 * credentials and takes the partner from the authentication only (tenant isolation). A refusal
 * (401, 429) is the request's answer, exactly as `accounts.partners.authenticate` gives it.
 */
export class PartnerCredentialsGuard implements CanActivate {
  constructor(private readonly partners: PartnerAuthentication) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const data: unknown = context.switchToRpc().getData();
    if (data === null || typeof data !== 'object' || !Object.hasOwn(data, PARTNER_CREDENTIALS_FIELD)) return true;
    const payload = data as Record<string, unknown>;
    const credentials = payload[PARTNER_CREDENTIALS_FIELD];
    delete payload[PARTNER_CREDENTIALS_FIELD];
    const { partnerId } = await this.partners.authenticate(credentials !== null && typeof credentials === 'object' ? credentials : {});
    payload.partnerId = partnerId;
    return true;
  }
}
