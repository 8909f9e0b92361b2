/**
 * Storage interface authentication. The user named in the URL (`/storage/<b32 username or
 * email>/...`) must be the one who logged in, by one of:
 * - HTTP Basic (username or email, and password) on the request;
 * - the session cookie of the login flow (`POST .../login`), refused once logged out, once the
 *   password changed, or after its 12 hours;
 * - a session extension (`?se=`, made by `?format=session_extension&ip=`): that one file (never a
 *   folder of the same path), GET only, from that one address, until it expires, and only while the
 *   file is the one it was made for (the catalog checks the life the extension names), and while
 *   the partner lets its users share (`sharing_enabled`).
 * Nothing valid is a 401 with the Basic challenge `realm="burrow/<b32>"`; a bad session extension a
 * 403; another user's storage a 404 (its existence is not revealed); a disabled user, or one whose
 * group has the web interface off, a 403 with the reason. The user is attached to the request.
 */
import {
  type AuthenticatedUser,
  DomainError,
  type FileIncarnation,
  forbidden,
  notFound,
  type SessionUserRequest,
  Subjects,
  unauthorized,
} from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { type CanActivate, createParamDecorator, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { b32decode } from './b32.js';
import { basicCredentials } from '../http/basic-auth.js';
import { clientAddress } from '../http/client-address.js';
import { claimedIncarnation } from './links.js';
import { STORAGE_MOUNT } from './mounts.js';
import { queryValue } from '../http/query.js';
import { type ExtensionClaims, extensionResource } from './session-extensions.js';
import type { Sessions } from './sessions.js';
import type { TokenSigner } from './signed-tokens.js';
import { admitStorageUser, basicStorageLogin } from './storage-login.js';
import { parseMountedPath } from './storage-path.js';
import { RPC, SESSIONS, SIGNER } from '../http/tokens.js';

/** How the request was authenticated. */
export type StorageAuth = 'basic' | 'cookie' | 'extension';

export type StorageRequest = Request & {
  storageUser?: AuthenticatedUser;
  storageAuth?: StorageAuth;
  /** a session extension's request: the life of the file it was made for (reads must pass it on) */
  storageExtension?: FileIncarnation;
};

/** The Basic challenge of a storage resource (the spec's `<service>/<id>` realm form). */
export const storageRealm = (b32: string) => `Basic realm="burrow/${b32.replace(/[^A-Za-z0-9]/g, '')}"`;

@Injectable()
export class StorageUserGuard implements CanActivate {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(SESSIONS) private readonly sessions: Sessions,
    @Inject(SIGNER) private readonly signer: TokenSigner,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    await this.authenticate(
      context.switchToHttp().getRequest<StorageRequest>(),
      context.switchToHttp().getResponse<Response>(),
    );
    return true;
  }

  /** What `canActivate` does, for a request Nest does not route (a fast route, a page middleware): the user, attached to the request. */
  async authenticate(req: StorageRequest, res: Response): Promise<AuthenticatedUser> {
    const { segments, folder } = parseMountedPath(req, STORAGE_MOUNT);
    const [b32] = segments;
    const named = b32 ? b32decode(b32) : null;
    if (!b32 || named === null) throw notFound('no such storage');
    const challenge = () => res.setHeader('WWW-Authenticate', storageRealm(b32));
    const user = await this.identify(req, segments, folder, challenge);
    admitStorageUser(named, user);
    // an extension is a share: it stops while the partner has sharing turned off
    if (req.storageAuth === 'extension' && !user.sharing_enabled)
      throw forbidden('sharing is turned off for this account');
    req.storageUser = user;
    return user;
  }

  private async identify(
    req: StorageRequest,
    segments: string[],
    folder: boolean,
    challenge: () => void,
  ): Promise<AuthenticatedUser> {
    const extension = queryValue(req, 'se');
    if (extension !== undefined && (req.method === 'GET' || req.method === 'HEAD')) {
      const claims = this.signer.verify<ExtensionClaims>('extension', extension);
      const life = claims && claimedIncarnation(claims);
      // a file's extension opens that file only: a folder of the same path (listing, zip) is another resource
      if (
        !claims ||
        !life ||
        claims.k !== 'file' ||
        folder ||
        claims.r !== extensionResource(segments) ||
        claims.ip !== clientAddress(req)
      ) {
        throw forbidden(
          'this session extension is not valid: expired, altered, for another resource or for another address',
        );
      }
      req.storageAuth = 'extension';
      req.storageExtension = life;
      return this.sessionUser({ userId: claims.u, stamp: claims.st }, () =>
        forbidden('this session extension has ended'),
      );
    }
    const credentials = basicCredentials(req);
    if (credentials) {
      req.storageAuth = 'basic';
      return basicStorageLogin(this.rpc, req, credentials, challenge, this.sessions.memo);
    }
    const loginRequired = () => {
      challenge();
      return unauthorized(
        'login required (HTTP Basic with your username or email and password, or the session cookie of POST .../login)',
      );
    };
    const session = this.sessions.claims(req);
    if (!session) throw loginRequired();
    req.storageAuth = 'cookie';
    // a logged-out cookie is no session at all; one whose stamp is no longer the user's has ended
    return this.sessionUser(
      { userId: session.u, stamp: session.st },
      () => {
        challenge();
        return unauthorized('your session has ended: log in again');
      },
      { sid: session.sid, loggedOut: loginRequired },
    );
  }

  /**
   * The user of a session (or extension), as this replica remembers accounts confirming it, or
   * asked of accounts (`accounts.users.session`) and, for a cookie, the shared list of logouts.
   */
  private async sessionUser(
    request: SessionUserRequest,
    ended: () => DomainError,
    cookie?: { sid: string; loggedOut: () => DomainError },
  ): Promise<AuthenticatedUser> {
    return this.sessions.memo.session({ sid: cookie?.sid, userId: request.userId, stamp: request.stamp }, async () => {
      const [user, loggedOut] = await Promise.all([
        this.rpc.call<AuthenticatedUser>(Subjects.accounts.sessionUser, request).catch((error: unknown) => {
          throw error instanceof DomainError && error.status === 401 ? ended() : error;
        }),
        cookie ? this.sessions.hasEnded(cookie.sid) : false,
      ]);
      if (loggedOut) throw cookie!.loggedOut();
      return user;
    });
  }
}

/** The authenticated storage user. */
export const StorageUser = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthenticatedUser => {
  const user = ctx.switchToHttp().getRequest<StorageRequest>().storageUser;
  if (!user) throw unauthorized();
  return user;
});
