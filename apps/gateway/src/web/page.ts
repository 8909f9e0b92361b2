/**
 * The frame of every page (landmarks, skip link, the one stylesheet) and how pages are sent:
 * a Content-Security-Policy with no inline script or style (`script-src 'self'`, `style-src
 * 'self'`), no referrer (room keys and link tokens live in URLs), and `Cache-Control: no-store` on
 * private pages so that, after logout, the back button and a refresh show nothing private.
 * Also: Accept negotiation (who gets a page rather than JSON or text) and the CSRF tokens of forms.
 */
import { DomainError } from '@burrow/contracts';
import type { Request, Response } from 'express';
import { humanSize } from '../transfers/catalog-views.js';
import type { SessionClaims } from '../storage-access/sessions.js';
import { SESSION_TTL_SECONDS } from '../storage-access/sessions.js';
import type { TokenSigner } from '../storage-access/signed-tokens.js';
import { html, type SafeHtml } from './html.js';

export const ASSET_MOUNT = 'browse/static';
export const CSP =
  "default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/**
 * Does the request prefer a page? Browsers navigating send `text/html` first; a client sending no
 * Accept, `*` / `*`, or JSON (or plain text) first keeps the JSON and text contracts.
 */
export const prefersHtml = (req: Request): boolean =>
  req.accepts(['application/json', 'text/plain', 'text/html']) === 'text/html';

/** Is the body an HTML form post (urlencoded)? */
export const isFormPost = (req: Request): boolean =>
  /^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '');

export interface PageOptions {
  title: string;
  /** private pages are never stored by the browser (no-store) */
  private: boolean;
  /** the header's navigation (e.g. the logout form) */
  nav?: SafeHtml;
  /** external scripts of this origin (`/browse/static/<name>`) */
  scripts?: string[];
  status?: number;
}

export function sendPage(res: Response, body: SafeHtml, options: PageOptions): void {
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${options.title} · Burrow</title>
<link rel="stylesheet" href="/${ASSET_MOUNT}/style.css">
${(options.scripts ?? []).map((s) => html`<script src="/${ASSET_MOUNT}/${s}" defer></script>`)}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><span class="brand">Burrow</span>${options.nav ?? ''}</header>
<main id="main">
${body}
</main>
<footer class="foot"><p>Burrow</p></footer>
</body>
</html>
`;
  res.status(options.status ?? 200);
  res.set({
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': CSP,
    'X-Content-Type-Options': 'nosniff',
    // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` on the page's
    // own form posts, which the cross-site check (http/cross-site.ts) cannot tell from another site's
    'Referrer-Policy': 'same-origin',
    'X-Frame-Options': 'DENY',
    'Cache-Control': options.private ? 'no-store' : 'no-cache',
    Vary: 'Accept',
  });
  res.send(page.text);
}

/** An error as a page: the reason the services gave (never internals: those are 500s without detail). */
export function sendErrorPage(res: Response, error: unknown, options: { private: boolean; nav?: SafeHtml }): void {
  if (!(error instanceof DomainError)) throw error;
  const retry = error.body.retry_after ?? res.getHeader('Retry-After');
  const title =
    error.status === 404 ? 'Not found' : error.status === 429 ? 'Too many attempts' : 'Something is not right';
  sendPage(
    res,
    html`<h1>${title}</h1><p class="error" role="alert">${error.message}</p>${retry ? html`<p>Try again in ${String(retry)} seconds.</p>` : ''}`,
    {
      title,
      private: options.private,
      nav: options.nav,
      status: error.status,
    },
  );
}

/** A date for people: `2024-05-01 14:03 UTC` in a <time> element. */
export function when(unixSeconds: number | null | undefined): SafeHtml {
  if (!unixSeconds) return html`<span class="muted">never</span>`;
  const iso = new Date(unixSeconds * 1000).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

export const size = (bytes: number): string => humanSize(bytes);

/** The CSRF token of a session: a signed statement naming the session id, checked on every POST. */
export const csrfToken = (signer: TokenSigner, session: SessionClaims): string =>
  signer.sign('csrf', { s: session.sid }, SESSION_TTL_SECONDS);

export function validCsrf(signer: TokenSigner, session: SessionClaims | null, token: string | undefined): boolean {
  const claims = signer.verify<{ s: string }>('csrf', token);
  return !!session && !!claims && claims.s === session.sid;
}

export const csrfField = (token: string): SafeHtml => html`<input type="hidden" name="csrf" value="${token}">`;
