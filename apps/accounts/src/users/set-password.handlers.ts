/**
 * Activation / set-password email and the page its link opens:
 * - `sendActivationEmail` (partner-scoped): mails the user a link to the gateway's set-password
 *   page, then records the link's nonce on the user's stream (`SetPasswordLinkIssued`): the link
 *   just sent replaces any earlier one. Mail that cannot be sent is a 409 and records nothing, so
 *   an earlier link keeps working; past the activation-mail limits (per user, per partner) a 429;
 * - `checkSetPasswordLink`: what the page shows for a live link (404 for a token this service did
 *   not sign, 410 once it is spent, replaced or expired);
 * - `setPasswordByLink`: sets the password (scrypt) and spends the link in one append at the
 *   user's expected revision, so across replicas and restarts one request wins.
 */
import {
  type ActivationEmailSent,
  conflict,
  gone,
  notFound,
  type SendActivationEmailRequest,
  type SetPasswordByLinkRequest,
  type SetPasswordLinkInfo,
  type SetPasswordLinkRef,
  Streams,
  Subjects,
} from '@burrow/contracts';
import { handleCommand, loadAggregate } from '@burrow/eventsourcing';
import { MailNotSentError } from '@burrow/mailer';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { hashPassword } from '../logins/password-hash.js';
import { requirePartner } from '../partners/partners.projection.js';
import { ACCOUNTS_CONTEXT, type AccountsContext } from '../context.js';
import { activationMail } from './activation-mail.js';
import { type LinkClaims, newLinkNonce, readLink, signLink } from './set-password-link.js';
import { isLiveLink, LINK_GONE, userDecider, type UserState } from './user.js';
import { findPartnerUser } from '../read-models/users.projection.js';

/** The gateway's page for a link (apps/gateway/src/web/set-password). */
export const SET_PASSWORD_PATH = '/set-password/';

@Controller()
export class SetPasswordHandlers {
  constructor(@Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext) {}

  @MessagePattern(Subjects.accounts.sendActivationEmail)
  async send(@Payload() req: SendActivationEmailRequest): Promise<ActivationEmailSent> {
    const user = await findPartnerUser(this.ctx.docs, req.partnerId, req.user);
    const partner = await requirePartner(this.ctx.docs, req.partnerId);
    const base = this.ctx.setPasswordLinks.publicUrl ?? req.origin;
    if (!base)
      throw conflict('cannot send the activation email: no public URL for its link (set BURROW_PUBLIC_URL)', ['email']);
    await this.ctx.setPasswordLinks.limit.take(partner._id, user._id);
    const now = this.ctx.clock.now();
    const claims: LinkClaims = {
      userId: user._id,
      nonce: newLinkNonce(),
      expiresAt: now + this.ctx.setPasswordLinks.ttlSeconds,
    };
    const link = new URL(`${SET_PASSWORD_PATH}${signLink(this.ctx.secret, claims)}`, base).toString();
    const message = activationMail({
      templateName: req.template_name,
      user: { name: user.name, username: user.username, email: user.email },
      partner: {
        company_name: partner.company_name,
        brand_identifier: partner.brand_identifier,
        support_email: partner.settings.support_email,
      },
      link,
      expiresAt: claims.expiresAt,
    });
    try {
      await this.ctx.mailer.send(message);
    } catch (error) {
      const reason = error instanceof MailNotSentError ? error.reason : 'the mail could not be sent';
      this.ctx.log.warn({ userId: user._id, reason }, 'activation email not sent');
      throw conflict(`the activation email could not be sent: ${reason}`, ['email']);
    }
    // recorded once sent: a mail that failed leaves the earlier link live
    await handleCommand(this.ctx.store, Streams.user(user._id), userDecider, {
      type: 'IssueSetPasswordLink',
      nonce: claims.nonce,
      expiresAt: claims.expiresAt,
      at: now,
    });
    this.ctx.log.info(
      { userId: user._id, template: req.template_name ?? null, expiresAt: claims.expiresAt },
      'activation email sent',
    );
    return { email: user.email, expires_at: claims.expiresAt };
  }

  /** The claims of a live link and the user's state; 404 for a forged token, 410 for a dead link. */
  private async live(token: unknown): Promise<{ claims: LinkClaims; state: UserState }> {
    const claims = readLink(this.ctx.secret, token);
    if (!claims) throw notFound('no such link');
    const { state } = await loadAggregate(this.ctx.store, Streams.user(claims.userId), userDecider);
    if (!isLiveLink(state, claims.nonce, this.ctx.clock.now())) throw gone(LINK_GONE);
    return { claims, state };
  }

  @MessagePattern(Subjects.accounts.checkSetPasswordLink)
  async check(@Payload() { token }: SetPasswordLinkRef): Promise<SetPasswordLinkInfo> {
    const { claims, state } = await this.live(token);
    const partner = await requirePartner(this.ctx.docs, state.partnerId).catch(() => null);
    return {
      username: state.username,
      name: state.name,
      company_name: partner?.company_name ?? '',
      expires_at: claims.expiresAt,
    };
  }

  @MessagePattern(Subjects.accounts.setPasswordByLink)
  async set(@Payload() { token, password }: SetPasswordByLinkRequest): Promise<{ username: string }> {
    const { claims, state } = await this.live(token);
    const passwordHash = await hashPassword(password);
    // the decider checks the link again at the revision it appends to: one use wins
    const { position } = await handleCommand(this.ctx.store, Streams.user(claims.userId), userDecider, {
      type: 'SetPasswordByLink',
      nonce: claims.nonce,
      passwordHash,
      at: this.ctx.clock.now(),
    });
    // logins are checked against the read models (user-credentials.projection.ts): the new password
    // works, and the old one is refused, once this answers
    await this.ctx.runner.waitFor(position);
    this.ctx.log.info({ userId: claims.userId }, 'password set through a set-password link');
    return { username: state.username };
  }
}
