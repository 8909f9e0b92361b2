/**
 * WebDAV authentication: HTTP Basic with the user's login (username or email) and password, checked
 * by accounts like every storage-interface login (the same failed-login throttling per account and
 * per address), and the storage interface's policy (a disabled user, or a group with the web
 * interface off, is a 403). The URL's user must be the one who logged in: anyone else's storage is
 * a 404, so its existence is not revealed. The login and the admission are the storage user
 * guard's own (storage-access/storage-login.ts); only the realm and the missing-credentials refusal
 * are WebDAV's.
 */
import { type AuthenticatedUser, unauthorized } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import type { Request, Response } from 'express';
import { basicCredentials } from '../http/basic-auth.js';
import type { SessionMemo } from '../storage-access/session-memo.js';
import { admitStorageUser, basicStorageLogin } from '../storage-access/storage-login.js';

/** The challenge: clients show the realm when they ask for a password. */
export const DAV_REALM = 'Basic realm="Burrow WebDAV", charset="UTF-8"';

export async function authenticate(
  rpc: RpcClient,
  req: Request,
  res: Response,
  named: string,
  memo?: SessionMemo,
): Promise<AuthenticatedUser> {
  const credentials = basicCredentials(req);
  if (!credentials) {
    res.setHeader('WWW-Authenticate', DAV_REALM);
    throw unauthorized('login required: HTTP Basic with your username or email and password');
  }
  const user = await basicStorageLogin(rpc, req, credentials, () => res.setHeader('WWW-Authenticate', DAV_REALM), memo);
  admitStorageUser(named, user);
  return user;
}
