/**
 * Interface A authentication: HTTP Basic with the partner's username and API password, checked by
 * the accounts service on every request, together with the client's address (`req.ip`: the socket
 * address, or X-Forwarded-For from the proxies BURROW_TRUST_PROXY trusts), which accounts uses for
 * failed-login throttling in the store every replica shares. The authenticated partner id is
 * attached to the request; handlers take it from there and never from client input (tenant
 * isolation). On a route marked `@AuthenticatedInCall()` the credentials are instead checked by
 * accounts with the handler's own call (partner-in-call.ts): one bus round trip instead of two.
 */
import { type AuthenticatedPartner, type AuthenticatePartnerRequest, Subjects, unauthorized } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { type CanActivate, createParamDecorator, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { basicCredentials } from '../http/basic-auth.js';
import { clientAddress } from '../http/client-address.js';
import { IN_CALL_KEY, PartnerInCall } from './partner-in-call.js';
import { RPC } from '../http/tokens.js';

type PartnerRequest = Request & { partner?: AuthenticatedPartner; partnerInCall?: PartnerInCall };

@Injectable()
export class PartnerGuard implements CanActivate {
  private readonly authenticate = (request: AuthenticatePartnerRequest) =>
    this.rpc.call<AuthenticatedPartner>(Subjects.accounts.authenticatePartner, request);

  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<PartnerRequest>();
    const request = partnerCredentials(req);
    if (
      this.reflector.getAllAndOverride<boolean | undefined>(IN_CALL_KEY, [context.getHandler(), context.getClass()])
    ) {
      req.partnerInCall = new PartnerInCall(request, this.authenticate);
      return true;
    }
    req.partner = await this.authenticate(request);
    return true;
  }

  /**
   * What this guard gives an `@AuthenticatedInCall()` route's request, for a caller that runs the
   * route without Nest (a fast route): its `PartnerInCall`; 401 without well-formed credentials.
   */
  inCall(req: Request): PartnerInCall {
    return new PartnerInCall(partnerCredentials(req), this.authenticate);
  }
}

/** The request's partner credentials with the client's address; 401 without a well-formed Authorization header. */
function partnerCredentials(req: Request): AuthenticatePartnerRequest {
  const credentials = basicCredentials(req);
  if (!credentials) throw unauthorized('partner credentials required (HTTP Basic)');
  return { ...credentials, address: clientAddress(req) };
}

/**
 * The stamp of the credentials the guard checked (`AuthenticatedPartner.stamp`), for a request that
 * outlives them (the feed's SSE stream); undefined on an `@AuthenticatedInCall()` route.
 */
export const partnerStamp = (req: Request): string | undefined => (req as PartnerRequest).partner?.stamp;

/**
 * The authenticated partner's id; on an `@AuthenticatedInCall()` route, the request's
 * `PartnerInCall`, which stands for it in the payloads the handler sends (`PartnerRpcClient`).
 */
export const PartnerId = createParamDecorator((_data: unknown, ctx: ExecutionContext) => {
  const req = ctx.switchToHttp().getRequest<PartnerRequest>();
  if (req.partnerInCall) return req.partnerInCall;
  if (!req.partner) throw unauthorized();
  return req.partner.partnerId;
});
