/**
 * Interface A authentication: HTTP Basic with the partner's username and API password, checked by
 * the accounts service on every request, together with the client's address (`req.ip`: the socket
 * address, or X-Forwarded-For from the proxies BURROW_TRUST_PROXY trusts), which accounts uses for
 * failed-login throttling in the store every replica shares. The authenticated partner id is
 * attached to the request; handlers take it from there and never from client input (tenant
 * isolation).
 */
import { type AuthenticatedPartner, type AuthenticatePartnerRequest, Subjects, unauthorized } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { type CanActivate, createParamDecorator, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { basicCredentials } from './basic-auth.js';
import { RPC } from './tokens.js';

type PartnerRequest = Request & { partner?: AuthenticatedPartner };

@Injectable()
export class PartnerGuard implements CanActivate {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<PartnerRequest>();
    const credentials = basicCredentials(req);
    if (!credentials) throw unauthorized('partner credentials required (HTTP Basic)');
    const request: AuthenticatePartnerRequest = { ...credentials, address: req.ip ?? req.socket.remoteAddress ?? '' };
    req.partner = await this.rpc.call<AuthenticatedPartner>(Subjects.accounts.authenticatePartner, request);
    return true;
  }
}

/** The authenticated partner's id. */
export const PartnerId = createParamDecorator((_data: unknown, ctx: ExecutionContext) => {
  const partner = ctx.switchToHttp().getRequest<PartnerRequest>().partner;
  if (!partner) throw unauthorized();
  return partner.partnerId;
});
