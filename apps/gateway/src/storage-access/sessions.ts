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
 *
 * What accounts confirmed is remembered briefly by this replica (`memo`, session-memo.ts), so a
 * request with a cookie costs no bus round trip of its own; a logout forgets the session on every
 * replica before it answers (`forgets`), as accounts' writes forget what they change.
 */
import type { KeyValueStore, KvBucket } from '@burrow/kv';
import type { Request, Response } from 'express';
import { randomBytes } from 'node:crypto';
import { SessionMemo } from './session-memo.js';
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

/** Tells every gateway replica to forget something remembered, waiting for them (`SessionForgets`, libs/runtime). */
export interface ForgetEverywhere {
  forget(what: { sessions: string[] }): Promise<unknown>;
}

export class Sessions {
  private ended?: Promise<KvBucket<{ at: number }>>;
  /** set once the bus is there (gateway.service.ts); without it a logout forgets on this replica only */
  forgets?: ForgetEverywhere;

  constructor(
    private readonly signer: TokenSigner,
    private readonly keyValues: () => Promise<KeyValueStore>,
    /** what accounts confirmed, remembered briefly by this replica */
    readonly memo: SessionMemo = new SessionMemo(),
  ) {}

  private endedBucket(): Promise<KvBucket<{ at: number }>> {
    if (!this.ended) {
      this.ended = this.keyValues().then((kv) =>
        kv.bucket<{ at: number }>(ENDED_BUCKET, { ttlMs: (SESSION_TTL_SECONDS + 300) * 1000 }),
      );
      this.ended.catch(() => (this.ended = undefined));
    }
    return this.ended;
  }

  /** Opens a session for the user: sets the cookie (Secure when the request came over TLS). */
  open(req: Request, res: Response, userId: string, stamp: string): void {
    const token = this.signer.sign<SessionClaims>(
      'session',
      { u: userId, st: stamp, sid: randomBytes(16).toString('base64url') },
      SESSION_TTL_SECONDS,
    );
    res.cookie(SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'lax',
      secure: req.secure,
      path: '/',
      maxAge: SESSION_TTL_SECONDS * 1000,
    });
  }

  /** The request's session if its cookie is genuine, unexpired and not logged out. */
  async current(req: Request): Promise<SessionClaims | null> {
    const claims = this.claims(req);
    if (!claims) return null;
    return (await this.hasEnded(claims.sid)) ? null : claims;
  }

  /** The request's session if its cookie is genuine and unexpired (logged out or not: `hasEnded`). */
  claims(req: Request): SessionClaims | null {
    const claims = this.signer.verify<SessionClaims>('session', cookieValue(req, SESSION_COOKIE));
    if (
      !claims ||
      typeof claims.u !== 'string' ||
      typeof claims.st !== 'string' ||
      typeof claims.sid !== 'string' ||
      !/^[A-Za-z0-9_-]{1,64}$/.test(claims.sid)
    )
      return null;
    return claims;
  }

  /** Was this session logged out (on any replica)? */
  async hasEnded(sid: string): Promise<boolean> {
    return (await (await this.endedBucket()).get(sid)) !== null;
  }

  /** Ends the request's session (if any) for every replica, and clears the cookie. */
  async close(req: Request, res: Response): Promise<void> {
    const claims = this.signer.verify<SessionClaims>('session', cookieValue(req, SESSION_COOKIE));
    if (claims && typeof claims.sid === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(claims.sid)) {
      await (await this.endedBucket()).create(claims.sid, { at: this.signer.seconds() });
      // the shared list is what every replica asks once its memory of the session is gone: forget it now, everywhere
      this.memo.forget({ sessions: [claims.sid] });
      await this.forgets?.forget({ sessions: [claims.sid] });
    }
    res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure: req.secure, path: '/' });
  }
}
