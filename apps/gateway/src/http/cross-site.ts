/**
 * No page of another site may change anything in Burrow, whatever credentials the browser adds to
 * its request. A browser attaches on its own both the session cookie (SameSite=Lax keeps it off
 * most cross-site requests, but not all: a sibling subdomain is "same-site", older browsers, a
 * top-level POST within Chrome's two-minute Lax+POST window) and HTTP Basic credentials it cached
 * after a Basic prompt (Burrow asks for them on interface A, on WebDAV, and on a storage file, zip
 * or version URL opened without a session): a `text/plain` form or a no-cors `fetch` of another
 * site then reaches Burrow with them, and Burrow parses JSON whatever the content type. So the
 * gateway checks what the browser says about where a request comes from, before any route or
 * authentication (issue 33, item 2; issue 18, item 4 did it for the cookie alone).
 *
 * A state-changing request (any method but GET, HEAD, OPTIONS and PROPFIND) is refused with 403
 * `{"reason"}`, whatever it authenticates with (the session cookie, HTTP Basic, a set-password
 * link's token, nothing, as for a login form: login CSRF), when:
 * - `Sec-Fetch-Site` is `cross-site` or `same-site` (the browser itself says another site sent it), or
 * - `Origin` is present and is neither the request's own origin (scheme and Host as the gateway
 *   sees them; behind a trusted proxy, `X-Forwarded-Proto` / `X-Forwarded-Host`) nor the origin of
 *   BURROW_PUBLIC_URL (`null`, a sandboxed or privacy-stripped origin, is refused too, unless
 *   `Sec-Fetch-Site` says `same-origin`). Burrow's pages send `Referrer-Policy: same-origin`, under
 *   which browsers put the real origin on the pages' own form posts.
 * Clients without a browser's headers (netkes, backup clients, the mobile app, rclone, curl) send
 * neither and are not affected; nor are Burrow's own same-origin pages.
 */
import type { NextFunction, Request, Response } from 'express';

/** Methods that change nothing: reads, CORS preflights, WebDAV's PROPFIND. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'PROPFIND']);

/** The reason of the 403, given why (the browser's words). */
export const crossSiteRefusal = (why: string) =>
  `${why}: a change must come from Burrow's own pages or from a client that is not a browser, whatever credentials it carries`;

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

/** Why this request is a write sent by another site's page, or null when it is not one. */
export function crossSiteWrite(req: Request, publicOrigin: string | null): string | null {
  if (SAFE_METHODS.has(req.method)) return null;
  const site = req.get('sec-fetch-site')?.toLowerCase();
  if (site === 'cross-site' || site === 'same-site')
    return `this request came from another site (Sec-Fetch-Site: ${site})`;
  const origin = req.get('origin');
  if (origin === undefined) return null;
  // a page under `Referrer-Policy: no-referrer` posts with `Origin: null`; the browser's own word
  // that it is same-origin settles it (Burrow's pages use `same-origin`, so they send a real Origin)
  if (origin === 'null' && site === 'same-origin') return null;
  const given = normalOrigin(origin);
  if (given && (given === ownOrigin(req) || given === publicOrigin)) return null;
  return `this request came from another origin (${origin.slice(0, 200)})`;
}

/** Express middleware: 403 for a write sent by another site's page (see the file comment). */
export function refuseCrossSiteWrites(publicUrl: string | undefined) {
  const publicOrigin = publicUrl ? normalOrigin(publicUrl) : null;
  return (req: Request, res: Response, next: NextFunction): void => {
    const why = crossSiteWrite(req, publicOrigin);
    if (why) {
      res.status(403).json({ reason: crossSiteRefusal(why) });
      return;
    }
    next();
  };
}
