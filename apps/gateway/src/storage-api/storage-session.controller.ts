/**
 * Logging in to the storage interface (CLIENT-FACTS "Login"):
 * - `POST /browse/login` (form `username`, `password`): checks the credentials and answers
 *   `login:/storage/<b32 username>/login`, where the client repeats the POST;
 * - `POST /storage/<b32>/login` (form `password`; the URL names the user by username or email):
 *   opens a cookie session and answers `location:/storage/<b32 username>/`, always the internal
 *   username's b32 (so a login by email learns it);
 * - `GET|POST /storage/<b32>/logout`: ends the session on every replica and clears the cookie.
 * Replies are plain text matched by `^(login|location):(.+)$`, no space after the colon. Bad
 * credentials are a 403 here (no Basic challenge, so a browser shows no password dialog); too many
 * failures a 429 with Retry-After (per account and per client address, in the accounts service).
 */
import { type AuthenticatedUser, badRequest, DomainError, forbidden, notFound, Subjects } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, Get, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { b32decode, b32encode } from '../http/b32.js';
import { FORM_BODY_LIMIT } from '../http/form-body.js';
import { readBoundedBody } from '../http/json-body.js';
import type { Sessions } from '../http/sessions.js';
import { checkStoragePolicy, clientAddress, namesUser } from '../http/storage-user.guard.js';
import { RPC, SESSIONS } from '../http/tokens.js';

/** A login form: urlencoded (browsers, clients) or JSON; small (413 past `FORM_BODY_LIMIT`). */
export async function readLoginForm(req: Request): Promise<Record<string, string>> {
  const text = (await readBoundedBody(req, FORM_BODY_LIMIT)).toString('utf8').trim();
  const form: Record<string, string> = {};
  if (text.startsWith('{')) {
    try {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      for (const key of ['username', 'password']) if (typeof parsed[key] === 'string') form[key] = parsed[key] as string;
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
export async function loginUser(rpc: RpcClient, req: Request, login: string | undefined, password: string | undefined): Promise<AuthenticatedUser> {
  const missing = [...(login ? [] : ['username']), ...(password ? [] : ['password'])];
  if (missing.length) throw badRequest(`${missing.join(' and ')} required`, missing);
  try {
    const user = await rpc.call<AuthenticatedUser>(Subjects.accounts.authenticateUser, { login, password, address: clientAddress(req) });
    checkStoragePolicy(user);
    return user;
  } catch (error) {
    if (error instanceof DomainError && error.status === 401) throw forbidden('invalid username or password');
    throw error;
  }
}

/** The storage URL of a user: always by the internal username. */
export const storageHome = (user: AuthenticatedUser) => `/storage/${b32encode(user.username)}/`;

@Controller()
export class StorageSessionController {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(SESSIONS) private readonly sessions: Sessions,
  ) {}

  @Post('browse/login')
  @HttpCode(200)
  async browseLogin(@Req() req: Request, @Res() res: Response): Promise<void> {
    const form = await readLoginForm(req);
    const user = await loginUser(this.rpc, req, form.username?.trim(), form.password);
    res.type('text/plain').send(`login:${storageHome(user)}login`);
  }

  @Post('storage/:user/login')
  @HttpCode(200)
  async storageLogin(@Req() req: Request, @Res() res: Response): Promise<void> {
    const named = b32decode(String(req.params.user));
    if (named === null) throw notFound('no such storage');
    const form = await readLoginForm(req);
    const user = await loginUser(this.rpc, req, named, form.password);
    if (!namesUser(named, user)) throw notFound('no such storage');
    this.sessions.open(req, res, user.userId, user.sessionStamp);
    res.setHeader('Cache-Control', 'no-store');
    res.type('text/plain').send(`location:${storageHome(user)}`);
  }

  @Get('storage/:user/logout')
  async logoutGet(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.logout(req, res);
  }

  @Post('storage/:user/logout')
  @HttpCode(200)
  async logoutPost(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.logout(req, res);
  }

  private async logout(req: Request, res: Response): Promise<void> {
    await this.sessions.close(req, res);
    res.setHeader('Cache-Control', 'no-store');
    res.type('text/plain').send('logged out');
  }
}
