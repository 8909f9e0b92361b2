/**
 * Interface A authentication: HTTP Basic with the partner's username and API password, checked by
 * the accounts service on every request. The authenticated partner id is attached to the request;
 * handlers take it from there and never from client input (tenant isolation).
 */
import { type AuthenticatedPartner, DomainError, Subjects, tooManyRequests, unauthorized } from '@burrow/contracts';
import { FailureLimiter } from '@burrow/runtime';
import type { RpcClient } from '@burrow/transport';
import { type CanActivate, createParamDecorator, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { basicCredentials } from './basic-auth.js';
import { RPC } from './tokens.js';

type PartnerRequest = Request & { partner?: AuthenticatedPartner };

@Injectable()
export class PartnerGuard implements CanActivate {
  /** failed logins per client address (this replica): 100 per minute, then 429 */
  private readonly failedByAddress = new FailureLimiter({ maxFailures: 100, windowMs: 60_000 });

  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<PartnerRequest>();
    const credentials = basicCredentials(req);
    if (!credentials) throw unauthorized('partner credentials required (HTTP Basic)');
    const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const wait = this.failedByAddress.retryAfter(address);
    if (wait > 0) throw tooManyRequests('too many failed logins from this address; retry later', wait);
    try {
      req.partner = await this.rpc.call<AuthenticatedPartner>(Subjects.accounts.authenticatePartner, credentials);
    } catch (error) {
      if (error instanceof DomainError && error.status === 401) this.failedByAddress.fail(address);
      throw error;
    }
    return true;
  }
}

/** The authenticated partner's id. */
export const PartnerId = createParamDecorator((_data: unknown, ctx: ExecutionContext) => {
  const partner = ctx.switchToHttp().getRequest<PartnerRequest>().partner;
  if (!partner) throw unauthorized();
  return partner.partnerId;
});
