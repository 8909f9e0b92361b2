/**
 * Storage interface authentication: the user named in the URL (`/storage/<b32 username>/...`)
 * must be the one who logged in, by HTTP Basic (username or email, and password) on the request.
 * Anything else is a 401 with the Basic challenge `realm="burrow/<b32>"`; another user's storage is
 * a 404 (its existence is not revealed); a disabled user, or one whose group has the web
 * interface off, is a 403 with the reason. The authenticated user is attached to the request.
 */
import { type AuthenticatedUser, type AuthenticateUserRequest, DomainError, forbidden, notFound, Subjects, unauthorized } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { type CanActivate, createParamDecorator, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { b32decode } from './b32.js';
import { basicCredentials } from './basic-auth.js';
import { parseMountedPath } from './storage-path.js';
import { RPC } from './tokens.js';

export const STORAGE_MOUNT = 'storage';

export type StorageRequest = Request & { storageUser?: AuthenticatedUser };

/** The Basic challenge of a storage resource (the spec's `<service>/<id>` realm form). */
export const storageRealm = (b32: string) => `Basic realm="burrow/${b32.replace(/[^A-Za-z0-9]/g, '')}"`;

/** The policy of the storage interface: who may use it at all. */
export function checkStoragePolicy(user: AuthenticatedUser): void {
  if (!user.enabled) throw forbidden('this account is disabled');
  if (!user.webapi_enable) throw forbidden("the web interface is turned off for this user's group");
}

@Injectable()
export class StorageUserGuard implements CanActivate {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<StorageRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    const [b32] = parseMountedPath(req, STORAGE_MOUNT).segments;
    const named = b32 ? b32decode(b32) : null;
    if (!b32 || named === null) throw notFound('no such storage');
    const credentials = basicCredentials(req);
    const challenge = () => res.setHeader('WWW-Authenticate', storageRealm(b32));
    if (!credentials) {
      challenge();
      throw unauthorized('login required (HTTP Basic with your username or email and password)');
    }
    const request: AuthenticateUserRequest = { login: credentials.username, password: credentials.password, address: req.ip ?? req.socket.remoteAddress ?? '' };
    let user: AuthenticatedUser;
    try {
      user = await this.rpc.call<AuthenticatedUser>(Subjects.accounts.authenticateUser, request);
    } catch (error) {
      if (error instanceof DomainError && error.status === 401) challenge();
      throw error;
    }
    const key = named.toLowerCase();
    if (key !== user.username.toLowerCase() && key !== user.email.toLowerCase()) throw notFound('no such storage');
    checkStoragePolicy(user);
    req.storageUser = user;
    return true;
  }
}

/** The authenticated storage user. */
export const StorageUser = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthenticatedUser => {
  const user = ctx.switchToHttp().getRequest<StorageRequest>().storageUser;
  if (!user) throw unauthorized();
  return user;
});
