/**
 * The activation / set-password email, per partner: the partner's company name is the sender's
 * display name and appears in the subject and text, its brand identifier in a header and the
 * footer; its support address, when set, is the Reply-To. `set_password` (the default, what the
 * management appliance sends for new users and for resets) and `activation` differ only in their
 * wording. Plain text and HTML, every value escaped in the HTML; never a password.
 */
import type { MailMessage } from '@burrow/mailer';

export interface ActivationMailInput {
  templateName?: string;
  user: { name: string; username: string; email: string };
  partner: { company_name: string; brand_identifier: string; support_email: string | null };
  link: string;
  /** unix seconds */
  expiresAt: number;
}

interface Wording {
  subject(company: string): string;
  intro(company: string): string;
}

export const ACTIVATION_TEMPLATES: Record<string, Wording> = {
  set_password: {
    subject: (company) => `Set your password for ${company}`,
    intro: (company) => `Please choose a password for your ${company} backup account.`,
  },
  activation: {
    subject: (company) => `Your ${company} backup account is ready`,
    intro: (company) => `${company} has set up a backup account for you. To start, choose your password.`,
  },
};
export const DEFAULT_TEMPLATE = 'set_password';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** Header values: one line, no control characters (a name cannot add headers). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point here
const oneLine = (s: string) => s.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();

export function activationMail(input: ActivationMailInput): MailMessage {
  const wording =
    ACTIVATION_TEMPLATES[input.templateName ?? DEFAULT_TEMPLATE] ?? ACTIVATION_TEMPLATES[DEFAULT_TEMPLATE];
  const company = oneLine(input.partner.company_name) || 'Backup';
  const brand = oneLine(input.partner.brand_identifier);
  const expires = new Date(input.expiresAt * 1000).toUTCString();
  const greeting = `Hello ${input.user.name || input.user.username},`;
  const ignore = 'If you did not expect this message, ignore it: nothing changes until the link is used.';
  const text = [
    greeting,
    '',
    wording.intro(company),
    '',
    `Your username: ${input.user.username}`,
    '',
    `Set your password here (the link works once, until ${expires}):`,
    input.link,
    '',
    ignore,
    '',
    `-- ${company}${brand ? ` (${brand})` : ''}`,
    '',
  ].join('\n');
  const html = [
    '<!DOCTYPE html><html><body>',
    `<p>${escapeHtml(greeting)}</p>`,
    `<p>${escapeHtml(wording.intro(company))}</p>`,
    `<p>Your username: <strong>${escapeHtml(input.user.username)}</strong></p>`,
    `<p><a href="${escapeHtml(input.link)}">Set your password</a> (the link works once, until ${escapeHtml(expires)}).</p>`,
    `<p>${escapeHtml(ignore)}</p>`,
    `<p>${escapeHtml(company)}${brand ? ` (${escapeHtml(brand)})` : ''}</p>`,
    '</body></html>',
  ].join('\n');
  return {
    to: { name: oneLine(input.user.name), address: input.user.email },
    fromName: company,
    ...(input.partner.support_email ? { replyTo: { name: company, address: input.partner.support_email } } : {}),
    subject: wording.subject(company),
    text,
    html,
    headers: brand ? { 'X-Burrow-Brand': brand } : {},
  };
}
