/**
 * WebDAV authentication: HTTP Basic with the user's login (username or email) and password, checked
 * by accounts like every storage-interface login (the same failed-login throttling per account
 * and per address), and the storage interface's policy (a disabled user, or a group with the web
 * interface off, is a 403). The URL's user must be the one who logged in: anyone else's storage is
 * a 404, so its existence is not revealed.
 */
import { type AuthenticatedUser, type AuthenticateUserRequest, DomainError, notFound, Subjects, unauthorized } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import type { Request, Response } from 'express';
import { basicCredentials } from '../http/basic-auth.js';
import { clientAddress } from '../http/client-address.js';
import { checkStoragePolicy, namesUser } from '../storage-access/storage-access.js';

/** The challenge: clients show the realm when they ask for a password. */
export const DAV_REALM = 'Basic realm="Burrow WebDAV", charset="UTF-8"';

export async function authenticate(rpc: RpcClient, req: Request, res: Response, named: string): Promise<AuthenticatedUser> {
  const credentials = basicCredentials(req);
  if (!credentials) {
    res.setHeader('WWW-Authenticate', DAV_REALM);
    throw unauthorized('login required: HTTP Basic with your username or email and password');
  }
  const request: AuthenticateUserRequest = { login: credentials.username, password: credentials.password, address: clientAddress(req) };
  let user: AuthenticatedUser;
  try {
    user = await rpc.call<AuthenticatedUser>(Subjects.accounts.authenticateUser, request);
  } catch (error) {
    if (error instanceof DomainError && error.status === 401) res.setHeader('WWW-Authenticate', DAV_REALM);
    throw error;
  }
  if (!named || !namesUser(named, user)) throw notFound('no such storage');
  checkStoragePolicy(user);
  return user;
}
