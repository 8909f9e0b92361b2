/**
 * Cross-site writes with the session cookie are refused. SameSite=Lax keeps the cookie off most
 * cross-site requests, but not all (a sibling subdomain is "same-site"; older browsers; top-level
 * POSTs within Chrome's two-minute Lax+POST window), so the gateway checks what the browser says
 * about where a request comes from.
 *
 * A state-changing request (any method but GET, HEAD, OPTIONS) that carries the session cookie and
 * no HTTP Basic credentials is refused with 403 `{"reason"}` when:
 * - `Sec-Fetch-Site` is `cross-site` or `same-site` (the browser itself says another origin sent it), or
 * - `Origin` is present and is neither the request's own origin (scheme and Host as the gateway
 *   sees them; behind a trusted proxy, `X-Forwarded-Proto` / `X-Forwarded-Host`) nor the origin of
 *   BURROW_PUBLIC_URL (`null`, a sandboxed or privacy-stripped origin, is refused too, unless
 *   `Sec-Fetch-Site` says `same-origin`). Burrow's pages send `Referrer-Policy: same-origin`, under
 *   which browsers put the real origin on the pages' own form posts.
 * Requests without a browser's headers (backup clients, the mobile app, curl), requests
 * authenticated by Basic, and the web client's own same-origin pages are not affected.
 */
import type { NextFunction, Request, Response } from 'express';
import { basicCredentials } from './basic-auth.js';
import { cookieValue, SESSION_COOKIE } from './sessions.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `scheme://host[:port]` in lower case, the default port dropped; null for anything else. */
export function normalOrigin(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.origin.toLowerCase();
  } catch {
    return null;
  }
}

/** The origin of the request itself, as the browser addressed it. */
function ownOrigin(req: Request): string | null {
  // Express's req.host and req.protocol believe X-Forwarded-Host/-Proto only from a trusted proxy
  return req.host ? normalOrigin(`${req.protocol}://${req.host}`) : null;
}

/** Why this request is a cross-site write with the session cookie, or null when it is not one. */
export function crossSiteWrite(req: Request, publicOrigin: string | null): string | null {
  if (SAFE_METHODS.has(req.method)) return null;
  if (cookieValue(req, SESSION_COOKIE) === undefined || basicCredentials(req)) return null;
  const site = req.get('sec-fetch-site')?.toLowerCase();
  if (site === 'cross-site' || site === 'same-site') return `this request came from another site (Sec-Fetch-Site: ${site})`;
  const origin = req.get('origin');
  if (origin === undefined) return null;
  // a page under `Referrer-Policy: no-referrer` posts with `Origin: null`; the browser's own word
  // that it is same-origin settles it (Burrow's pages use `same-origin`, so they send a real Origin)
  if (origin === 'null' && site === 'same-origin') return null;
  const given = normalOrigin(origin);
  if (given && (given === ownOrigin(req) || given === publicOrigin)) return null;
  return `this request came from another origin (${origin.slice(0, 200)})`;
}

/** Express middleware: 403 for a cross-site write with the session cookie (see the file comment). */
export function refuseCrossSiteWrites(publicUrl: string | undefined) {
  const publicOrigin = publicUrl ? normalOrigin(publicUrl) : null;
  return (req: Request, res: Response, next: NextFunction): void => {
    const why = crossSiteWrite(req, publicOrigin);
    if (why) {
      res.status(403).json({ reason: `${why}: a change made with the session cookie must come from Burrow's own pages (or use HTTP Basic)` });
      return;
    }
    next();
  };
}
