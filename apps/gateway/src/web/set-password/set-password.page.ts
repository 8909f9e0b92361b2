/**
 * The set-password page's HTML: a small form that works without any script, every value escaped,
 * and the headers every such page gets (a Content-Security-Policy that allows no script at all and
 * only this page's own inline style, by hash; no framing, no referrer, no caching).
 */
import { createHash } from 'node:crypto';
import type { Response } from 'express';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@burrow/contracts';

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f4f5f7;color:#1d2330;line-height:1.5}
main{max-width:26rem;margin:4rem auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 4px rgba(0,0,0,.12)}
h1{font-size:1.4rem;margin-top:0}
label{display:block;font-weight:600;margin-top:1rem}
input{box-sizing:border-box;width:100%;padding:.6rem;font-size:1rem;border:1px solid #767b85;border-radius:4px}
input:focus{outline:3px solid #1a5fb4;outline-offset:1px}
.hint{font-size:.9rem;color:#4a505c;margin:.25rem 0 0}
.error{background:#fdecea;border:1px solid #b3261e;color:#7a1a14;padding:.75rem;border-radius:4px}
button{margin-top:1.5rem;padding:.7rem 1.2rem;font-size:1rem;border:0;border-radius:4px;background:#1a5fb4;color:#fff;cursor:pointer}
button:focus{outline:3px solid #1d2330;outline-offset:2px}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`.trim();

export const PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

function layout(title: string, body: string): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="robots" content="noindex">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<main>\n${body}\n</main>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

export interface FormView {
  username: string;
  name: string;
  company_name: string;
  /** what was wrong with the last attempt */
  error?: string;
}

export function formPage(view: FormView): string {
  const who = view.company_name ? `your ${view.company_name} account` : 'your account';
  const rules = `At least ${PASSWORD_MIN_LENGTH} characters.`;
  const invalid = view.error ? ' aria-invalid="true"' : '';
  return layout(
    'Choose your password',
    [
      '<h1>Choose your password</h1>',
      `<p>Hello ${escapeHtml(view.name || view.username)}, choose the password for ${escapeHtml(who)}. This link works once.</p>`,
      view.error ? `<p class="error" id="form-error" role="alert">${escapeHtml(view.error)}</p>` : '',
      '<form method="post" action="" autocomplete="on">',
      // for password managers: the account this password belongs to
      `<label class="visually-hidden" for="username">Username</label>`,
      `<input class="visually-hidden" id="username" name="username" type="text" autocomplete="username" value="${escapeHtml(view.username)}" readonly tabindex="-1">`,
      '<label for="password">New password</label>',
      `<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="${PASSWORD_MAX_LENGTH}" aria-describedby="password-rules${view.error ? ' form-error' : ''}"${invalid}>`,
      `<p class="hint" id="password-rules">${escapeHtml(rules)}</p>`,
      '<label for="confirm">Repeat the new password</label>',
      `<input id="confirm" name="confirm" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="${PASSWORD_MAX_LENGTH}"${invalid}>`,
      '<button type="submit">Set password</button>',
      '</form>',
    ].join('\n'),
  );
}

export function donePage(username: string): string {
  return layout(
    'Password set',
    [
      '<h1>Your password is set</h1>',
      `<p>You can now sign in as <strong>${escapeHtml(username)}</strong> with your new password.</p>`,
    ].join('\n'),
  );
}

/** What a dead or unknown link, or a service that does not answer, shows. */
export function problemPage(status: number): string {
  if (status === 410) {
    return layout(
      'Link expired',
      '<h1>This link has expired or has already been used</h1>\n<p>Ask your administrator to send you a new one.</p>',
    );
  }
  if (status === 404)
    return layout(
      'Link not valid',
      '<h1>This link is not valid</h1>\n<p>Check that you opened the whole link from your email, or ask for a new one.</p>',
    );
  if (status === 413)
    return layout(
      'Too long',
      '<h1>That was too long</h1>\n<p>Go back and choose a password of at most ' +
        PASSWORD_MAX_LENGTH +
        ' characters.</p>',
    );
  return layout(
    'Try again later',
    '<h1>Something went wrong</h1>\n<p>The password could not be set just now. Please try again in a few minutes.</p>',
  );
}

export function sendPage(res: Response, status: number, html: string): void {
  res.status(status);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  // never to another site (the token is in the URL); to this origin, so its form post has an Origin
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'no-store');
  res.end(html);
}
