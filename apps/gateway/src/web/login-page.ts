/**
 * The login page. `GET /browse/login` shows the form (its route); a browser's form post (urlencoded
 * AND preferring `text/html`) logs in and is redirected (303) to the storage browser with the
 * session cookie set; bad credentials show the form again with the error, too many failures (429)
 * a throttling message. The post is a middleware on `POST /browse/login` (WebModule), run before
 * routing: every other post (programmatic clients: no Accept, `*`/`*`, or text first) goes on to
 * the route, the text contract (`login:` / `location:`) of the storage interface.
 *
 * Login CSRF: the form carries a random token also set as a SameSite=Strict cookie on the form's
 * path; a post whose two values differ is refused (another site cannot read or set the cookie).
 */
import { DomainError } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, Inject, Injectable, type NestMiddleware, Req, Res } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { cookieValue, type Sessions } from '../storage-access/sessions.js';
import { queryValue } from '../http/query.js';
import { Route } from '../http/route.js';
import { RPC, SESSIONS } from '../http/tokens.js';
import { loginUser, readLoginForm, storageHome } from '../storage-access/storage-login.js';
import { html } from './html.js';
import { isFormPost, prefersHtml, sendPage } from './page.js';
import { WEB_ROUTES } from './web.routes.js';

export const LOGIN_PAGE = '/browse/login';
const LOGIN_CSRF_COOKIE = 'burrow_login_form';

const sameToken = (a: string | undefined, b: string | undefined) =>
  !!a && !!b && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

@Controller()
export class LoginPageController {
  @Route(WEB_ROUTES.loginPage)
  form(@Req() req: Request, @Res() res: Response): void {
    const notice = queryValue(req, 'logged_out') !== undefined ? 'You are logged out.' : undefined;
    renderLoginPage(req, res, { notice });
  }
}

/** A browser's post of the form; any other `POST /browse/login` goes on to the route. */
@Injectable()
export class LoginFormPost implements NestMiddleware {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(SESSIONS) private readonly sessions: Sessions,
  ) {}

  async use(req: Request, res: Response, next: NextFunction): Promise<void> {
    if (!isFormPost(req) || !prefersHtml(req)) return next();
    let username = '';
    try {
      const form = await readLoginForm(req);
      username = form.username?.trim() ?? '';
      if (!sameToken(form.form_token, cookieValue(req, LOGIN_CSRF_COOKIE))) {
        return renderLoginPage(req, res, {
          username,
          error: 'This form has expired: please log in again.',
          status: 403,
        });
      }
      const user = await loginUser(this.rpc, req, username, form.password);
      this.sessions.open(req, res, user.userId, user.sessionStamp);
      res.clearCookie(LOGIN_CSRF_COOKIE, { path: LOGIN_PAGE });
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(303, storageHome(user));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const retry = error.body.retry_after ?? res.getHeader('Retry-After');
      const message =
        error.status === 429
          ? `Too many failed logins. Wait ${retry ?? 'a while'}${retry ? ' seconds' : ''} and try again.`
          : error.status === 403 || error.status === 400
            ? `Login failed: ${error.message}.`
            : error.message;
      renderLoginPage(req, res, { username, error: message, status: error.status });
    }
  }
}

/** The form (again, with the error or a notice): its token cookie set when missing. */
function renderLoginPage(
  req: Request,
  res: Response,
  state: { username?: string; error?: string; notice?: string; status?: number },
): void {
  let token = cookieValue(req, LOGIN_CSRF_COOKIE);
  if (!token || !/^[A-Za-z0-9_-]{22,64}$/.test(token)) {
    token = randomBytes(18).toString('base64url');
    res.cookie(LOGIN_CSRF_COOKIE, token, {
      httpOnly: true,
      sameSite: 'strict',
      secure: req.secure,
      path: LOGIN_PAGE,
      maxAge: 3600_000,
    });
  }
  const body = html`<h1>Log in</h1>
${state.notice ? html`<p class="notice" role="status">${state.notice}</p>` : ''}
${state.error ? html`<p class="error" role="alert" id="login-error">${state.error}</p>` : ''}
<form method="post" action="${LOGIN_PAGE}" class="card">
<input type="hidden" name="form_token" value="${token}">
<label for="username">Username or email</label>
<input type="text" id="username" name="username" autocomplete="username" required value="${state.username ?? ''}"${state.error ? html` aria-describedby="login-error"` : ''}>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<p><button type="submit">Log in</button></p>
</form>`;
  sendPage(res, body, { title: 'Log in', private: true, status: state.status });
}
