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
import { notFound } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, HttpCode, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { b32decode } from '../storage-access/b32.js';
import type { Sessions } from '../storage-access/sessions.js';
import { loginUser, readLoginForm, storageHome } from '../storage-access/storage-login.js';
import { namesUser } from '../storage-access/storage-access.js';
import { RPC, SESSIONS } from '../http/tokens.js';
import { Route } from '../http/route.js';
import { STORAGE_SESSION_ROUTES } from './storage-read.routes.js';

@Controller()
export class StorageSessionController {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(SESSIONS) private readonly sessions: Sessions,
  ) {}

  @Route(STORAGE_SESSION_ROUTES.browseLogin)
  @HttpCode(200)
  async browseLogin(@Req() req: Request, @Res() res: Response): Promise<void> {
    const form = await readLoginForm(req);
    const user = await loginUser(this.rpc, req, form.username?.trim(), form.password);
    res.type('text/plain').send(`login:${storageHome(user)}login`);
  }

  @Route(STORAGE_SESSION_ROUTES.login)
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

  @Route(STORAGE_SESSION_ROUTES.logout)
  async logoutGet(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.logout(req, res);
  }

  @Route(STORAGE_SESSION_ROUTES.logoutPost)
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
