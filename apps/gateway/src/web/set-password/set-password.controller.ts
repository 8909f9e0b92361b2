/**
 * The set-password page an activation email links to: `GET /set-password/<token>` shows the form
 * (it never uses the link: mail scanners fetch links), `POST` (a browser form) sets the password
 * with the password rule and spends the link. The token is the only credential; accounts checks
 * it, and its single use. Every answer is an HTML page (see set-password.page.ts for its headers),
 * except to a form another site's page posts: the gateway refuses it first (http/cross-site.ts, a
 * JSON 403).
 */
import {
  DomainError,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  SetPasswordForm,
  type SetPasswordLinkInfo,
  Subjects,
} from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { Controller, Inject, Param, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { readFormBody } from '../../http/form-body.js';
import { Route } from '../../http/route.js';
import { RPC } from '../../http/tokens.js';
import { donePage, formPage, problemPage, sendPage } from './set-password.page.js';
import { SET_PASSWORD_ROUTES } from './set-password.routes.js';

/** What the form says about a refused password (the same rule as every password: contracts `Password`). */
function formError(issues: { code: string; path: PropertyKey[]; message: string }[]): string {
  const issue = issues.find((i) => i.path[0] === 'password') ?? issues[0];
  if (issue?.code === 'too_small' || issue?.code === 'too_big' || issue?.code === 'invalid_type') {
    return `The password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long.`;
  }
  return issue?.path[0] === 'password'
    ? `This password cannot be used: ${issue.message}.`
    : 'Repeat the password in the second field.';
}

@Controller()
export class SetPasswordController {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  /** A domain error as the page it shows (404, 410, 413; anything else: try later). */
  private problem(res: Response, error: unknown): void {
    const status = error instanceof DomainError && [404, 410, 413].includes(error.status) ? error.status : 503;
    sendPage(res, status, problemPage(status));
  }

  @Route(SET_PASSWORD_ROUTES.page)
  async show(@Param('token') token: string, @Res() res: Response): Promise<void> {
    try {
      const info = await this.rpc.call<SetPasswordLinkInfo>(Subjects.accounts.checkSetPasswordLink, { token });
      sendPage(res, 200, formPage(info));
    } catch (error) {
      this.problem(res, error);
    }
  }

  /** The new password the form posts, or why it cannot be used (what the form then says). */
  private async postedPassword(req: Request): Promise<{ password: string } | { error: string }> {
    let fields: Record<string, string>;
    try {
      fields = await readFormBody(req);
    } catch (error) {
      // a field holding NUL is a password that cannot be used (the form again, 400); a body too long stays the 413 page
      if (error instanceof DomainError && error.status === 400) return { error: `${error.body.reason}.` };
      throw error;
    }
    const form = SetPasswordForm.safeParse(fields);
    if (!form.success) return { error: formError(form.error.issues) };
    if (form.data.password !== form.data.confirm) return { error: 'The two passwords do not match.' };
    return { password: form.data.password };
  }

  @Route(SET_PASSWORD_ROUTES.submit)
  async set(@Param('token') token: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    try {
      const posted = await this.postedPassword(req);
      if ('error' in posted) {
        // the form again, with the reason (the link is checked first: a dead link says so instead)
        const info = await this.rpc.call<SetPasswordLinkInfo>(Subjects.accounts.checkSetPasswordLink, { token });
        sendPage(res, 400, formPage({ ...info, error: posted.error }));
        return;
      }
      const { username } = await this.rpc.call<{ username: string }>(Subjects.accounts.setPasswordByLink, {
        token,
        password: posted.password,
      });
      sendPage(res, 200, donePage(username));
    } catch (error) {
      this.problem(res, error);
    }
  }
}
