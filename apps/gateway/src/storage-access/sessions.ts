/**
 * Storage-interface sessions: a signed cookie any gateway replica verifies with the key set alone,
 * plus a shared list of ended sessions so that a logged-out cookie, replayed, is refused on every
 * replica and after a restart (a JetStream key-value bucket on NATS, a SQLite file in the data
 * directory in one process; entries outlive the longest session, then expire by themselves).
 *
 * A session names the user and the stamp of their password at login; the accounts service refuses
 * the session once the password changes (`accounts.users.session`), so a password change ends
 * every session of that user; so does disabling the user (the stamp changes with each disable, so
 * re-enabling brings no old session back); a group without the web interface is refused on the
 * next request.
 */
import type { KeyValueStore, KvBucket } from '@burrow/kv';
import type { Request, Response } from 'express';
import { randomBytes } from 'node:crypto';
import type { TokenSigner } from './signed-tokens.js';

export const SESSION_COOKIE = 'burrow_session';
/** Twelve hours: a working day in the storage browser, then a new login. */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;
const ENDED_BUCKET = 'burrow-sessions-ended';

export interface SessionClaims {
  /** userId */
  u: string;
  /** the user's password stamp at login */
  st: string;
  /** the session's id (what logout records) */
  sid: string;
}

/** The value of one cookie from the Cookie header (RFC 6265 syntax; the first one wins). */
export function cookieValue(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    return value;
  }
  return undefined;
}

export class Sessions {
  private ended?: Promise<KvBucket<{ at: number }>>;

  constructor(
    private readonly signer: TokenSigner,
    private readonly keyValues: () => Promise<KeyValueStore>,
  ) {}

  private endedBucket(): Promise<KvBucket<{ at: number }>> {
    if (!this.ended) {
      this.ended = this.keyValues().then((kv) => kv.bucket<{ at: number }>(ENDED_BUCKET, { ttlMs: (SESSION_TTL_SECONDS + 300) * 1000 }));
      this.ended.catch(() => (this.ended = undefined));
    }
    return this.ended;
  }

  /** Opens a session for the user: sets the cookie (Secure when the request came over TLS). */
  open(req: Request, res: Response, userId: string, stamp: string): void {
    const token = this.signer.sign<SessionClaims>('session', { u: userId, st: stamp, sid: randomBytes(16).toString('base64url') }, SESSION_TTL_SECONDS);
    res.cookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure: req.secure, path: '/', maxAge: SESSION_TTL_SECONDS * 1000 });
  }

  /** The request's session if its cookie is genuine, unexpired and not logged out. */
  async current(req: Request): Promise<SessionClaims | null> {
    const claims = this.signer.verify<SessionClaims>('session', cookieValue(req, SESSION_COOKIE));
    if (!claims || typeof claims.u !== 'string' || typeof claims.st !== 'string' || typeof claims.sid !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(claims.sid)) return null;
    const ended = await (await this.endedBucket()).get(claims.sid);
    return ended ? null : claims;
  }

  /** Ends the request's session (if any) for every replica, and clears the cookie. */
  async close(req: Request, res: Response): Promise<void> {
    const claims = this.signer.verify<SessionClaims>('session', cookieValue(req, SESSION_COOKIE));
    if (claims && typeof claims.sid === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(claims.sid)) {
      await (await this.endedBucket()).create(claims.sid, { at: this.signer.seconds() });
    }
    res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure: req.secure, path: '/' });
  }
}
