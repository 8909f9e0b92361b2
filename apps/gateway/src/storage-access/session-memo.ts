/**
 * What this gateway replica remembers of the logins accounts confirmed (issue 38: one bus round
 * trip per download, the catalog's). A storage request carries HTTP Basic credentials (every
 * WebDAV request, every Basic client's) or a session cookie (or a session extension, or a link,
 * which name a user and a credential stamp as a cookie does); accounts checks them
 * (`accounts.users.authenticate`, `accounts.users.session`) and this keeps what it answered for at
 * most `SESSION_MEMO_TTL_MS`:
 * - a session's check by (session id, user, stamp): that it was not logged out and that the stamp
 *   is the user's current one, with the user as accounts described them;
 * - a Basic login by a keyed hash of (login, password, client address), under a key this process
 *   drew at random and never shows: the password itself is never kept.
 * Only confirmations are remembered: a refused password goes to accounts every time, so the
 * failed-login throttle counts every failure (a remembered login passes, as accounts' own memory of
 * verified credentials lets it pass the throttle).
 *
 * What makes them stale is forgotten on every replica before the write that does it answers
 * (`SessionForgets`, libs/runtime): accounts' writes to a user (password, disable, delete, names),
 * a group or a partner (web interface, sharing), and a logout. A check under way when a forget
 * arrives is not remembered (it may have read what was there before). A replica starts
 * remembering only once its replica reports have had time to reach accounts (`activeAfterMs`), so
 * no write answers without waiting for it.
 */
import {
  type AuthenticatedUser,
  SESSION_FORGET_SUBJECT,
  SESSION_FORGOTTEN_SUBJECT,
  type SessionForget,
  type SessionForgotten,
} from '@burrow/contracts';
import { type Broadcasts, replicaId, SESSION_MEMO_TTL_MS } from '@burrow/runtime';
import { hash, randomBytes } from 'node:crypto';

/** at most this many remembered (the oldest forgotten first) */
const LIMIT = 10_000;

interface Remembered {
  user: AuthenticatedUser;
  /** a cookie session's id (a logout forgets it) */
  sid?: string;
  until: number;
}

export interface SessionMemoOptions {
  /** how long a confirmation is remembered (0: never; default SESSION_MEMO_TTL_MS) */
  ttlMs?: number;
  now?: () => number;
}

export class SessionMemo {
  private readonly entries = new Map<string, Remembered>();
  private readonly key = randomBytes(32).toString('base64');
  private readonly ttlMs: number;
  private readonly now: () => number;
  /** bumped by every forget: a check begun before one is not remembered */
  private epoch = 0;
  /** remembers nothing before this (ms since the epoch): until accounts knows this replica */
  private activeFrom = Infinity;

  constructor(options: SessionMemoOptions = {}) {
    this.ttlMs = options.ttlMs ?? SESSION_MEMO_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  /** Starts remembering `afterMs` from now (once this replica's reports have reached the writers). */
  activate(afterMs: number): void {
    this.activeFrom = this.now() + afterMs;
  }

  /** Hears forgets on the bus and acknowledges each as this replica; returns the stop. */
  listen(broadcasts: Broadcasts, replica = replicaId()): () => void {
    return broadcasts.subscribe(SESSION_FORGET_SUBJECT, (data) => {
      const message = data as SessionForget;
      if (typeof message !== 'object' || message === null || typeof message.id !== 'string') return;
      this.forget(message);
      broadcasts.publish(SESSION_FORGOTTEN_SUBJECT, { id: message.id, replica } satisfies SessionForgotten);
    });
  }

  /** Forgets what names these users or sessions, or everything. */
  forget({ users, sessions, all }: Omit<SessionForget, 'id'>): void {
    this.epoch += 1;
    if (all) {
      this.entries.clear();
      return;
    }
    const userSet = new Set(Array.isArray(users) ? users : []);
    const sessionSet = new Set(Array.isArray(sessions) ? sessions : []);
    if (userSet.size === 0 && sessionSet.size === 0) return;
    for (const [key, entry] of this.entries) {
      if (userSet.has(entry.user.userId) || (entry.sid !== undefined && sessionSet.has(entry.sid)))
        this.entries.delete(key);
    }
  }

  /** A cookie session's (or link's, extension's: `sid` absent) user: remembered, or `check`ed and remembered. */
  session(
    claims: { sid?: string; userId: string; stamp: string },
    check: () => Promise<AuthenticatedUser>,
  ): Promise<AuthenticatedUser> {
    return this.remembered(`s\0${claims.sid ?? ''}\0${claims.userId}\0${claims.stamp}`, claims.sid, check);
  }

  /**
   * A Basic login's user: remembered under a keyed hash of the login, password and client address
   * (a login confirmed from one address does not pass for another, which the throttle may have
   * locked), or `check`ed and remembered.
   */
  basic(
    login: string,
    password: string,
    address: string,
    check: () => Promise<AuthenticatedUser>,
  ): Promise<AuthenticatedUser> {
    // one SHA-256 of an unambiguous encoding under this process's random key (an HMAC cost two;
    // as accounts' credential cache): the key is never shown, so a digest tells nobody anything
    const key = `b\0${hash('sha256', JSON.stringify([this.key, login, address, password]), 'base64url')}`;
    return this.remembered(key, undefined, check);
  }

  /** how many are remembered (tests, metrics) */
  get size(): number {
    return this.entries.size;
  }

  private async remembered(
    key: string,
    sid: string | undefined,
    check: () => Promise<AuthenticatedUser>,
  ): Promise<AuthenticatedUser> {
    const now = this.now();
    const entry = this.entries.get(key);
    if (entry && entry.until > now) return entry.user;
    if (entry) this.entries.delete(key);
    const epoch = this.epoch;
    const user = Object.freeze(await check());
    const at = this.now();
    if (this.ttlMs > 0 && at >= this.activeFrom && this.epoch === epoch) {
      if (this.entries.size >= LIMIT) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { user, ...(sid !== undefined ? { sid } : {}), until: at + this.ttlMs });
    }
    return user;
  }
}
