/**
 * Storage logins, each written once: HTTP Basic on a storage request (the storage user guard and
 * WebDAV: `basicStorageLogin`, then `admitStorageUser` for the storage the URL names), and the
 * login form of the text login flow (storage-api) and the login page (web): the form as browsers
 * and clients send it, the credentials against the accounts service, and where a logged-in user's
 * storage lives.
 */
import {
  type AuthenticatedUser,
  type AuthenticateUserRequest,
  badRequest,
  DomainError,
  forbidden,
  notFound,
  Subjects,
} from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import type { Request } from 'express';
import { b32encode } from './b32.js';
import type { BasicCredentials } from '../http/basic-auth.js';
import { clientAddress } from '../http/client-address.js';
import { FORM_BODY_LIMIT } from '../http/form-body.js';
import { readBoundedBody } from '../http/json-body.js';
import type { SessionMemo } from './session-memo.js';
import { checkStoragePolicy, namesUser } from './storage-access.js';

/**
 * HTTP Basic credentials checked by accounts, like every storage login (the same failed-login
 * throttling per account and per address), or remembered by this replica from accounts confirming
 * them a moment ago (`memo`: session-memo.ts; refusals are never remembered, so every failure is
 * counted). A refusal (401) first calls `challenge`, which sets the door's WWW-Authenticate
 * header; a throttled login (429) or an outage passes through unchanged.
 */
export async function basicStorageLogin(
  rpc: RpcClient,
  req: Request,
  credentials: BasicCredentials,
  challenge: () => void,
  memo?: SessionMemo,
): Promise<AuthenticatedUser> {
  const request: AuthenticateUserRequest = {
    login: credentials.username,
    password: credentials.password,
    address: clientAddress(req),
  };
  const check = () => rpc.call<AuthenticatedUser>(Subjects.accounts.authenticateUser, request);
  try {
    return await (memo
      ? memo.basic(credentials.username, credentials.password, request.address ?? '', check)
      : check());
  } catch (error) {
    if (error instanceof DomainError && error.status === 401) challenge();
    throw error;
  }
}

/**
 * Lets a logged-in user into the storage the URL names (`named`: a username or email, any case):
 * anyone else's storage, or none, is a 404 (its existence is not revealed); then the storage
 * policy (a disabled user, or a group with the web interface off, is a 403 with the reason).
 */
export function admitStorageUser(named: string | null, user: AuthenticatedUser): void {
  if (!named || !namesUser(named, user)) throw notFound('no such storage');
  checkStoragePolicy(user);
}

/** A login form: urlencoded (browsers, clients) or JSON; small (413 past `FORM_BODY_LIMIT`). */
export async function readLoginForm(req: Request): Promise<Record<string, string>> {
  const text = (await readBoundedBody(req, FORM_BODY_LIMIT)).toString('utf8').trim();
  const form: Record<string, string> = {};
  if (text.startsWith('{')) {
    try {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      for (const key of ['username', 'password']) if (typeof parsed[key] === 'string') form[key] = parsed[key];
    } catch {
      throw badRequest('the login form is neither form-encoded nor JSON');
    }
    return form;
  }
  for (const [key, value] of new URLSearchParams(text)) if (!(key in form)) form[key] = value;
  return form;
}

/**
 * Checks a login (username or email, and password) for the storage interface: bad credentials are
 * a 403 (no Basic challenge), a refused policy a 403 with its reason, too many failures a 429.
 * Shared by the text login flow and the login page.
 */
export async function loginUser(
  rpc: RpcClient,
  req: Request,
  login: string | undefined,
  password: string | undefined,
): Promise<AuthenticatedUser> {
  const missing = [...(login ? [] : ['username']), ...(password ? [] : ['password'])];
  if (missing.length) throw badRequest(`${missing.join(' and ')} required`, missing);
  try {
    const user = await rpc.call<AuthenticatedUser>(Subjects.accounts.authenticateUser, {
      login,
      password,
      address: clientAddress(req),
    });
    checkStoragePolicy(user);
    return user;
  } catch (error) {
    if (error instanceof DomainError && error.status === 401) throw forbidden('invalid username or password');
    throw error;
  }
}

/** The storage URL of a user: always by the internal username. */
export const storageHome = (user: AuthenticatedUser) => `/storage/${b32encode(user.username)}/`;
