/**
 * Checking a login name and password, the one way for every kind of login (partner API logins,
 * user storage logins): the failed-login throttle first, then the password against the hash read
 * from the account's own stream (so a password changed a moment ago through another replica is in
 * force at once), with a dummy hash for unknown names so timing does not reveal which exist. A
 * verified credential is cached under a keyed hash of (name, password, stored hash): a password
 * change misses the cache at once, and a cached credential still passes the throttle.
 */
import { unauthorized } from '@burrow/contracts';
import { createHmac } from 'node:crypto';
import { verifyPassword } from '../logins/password-hash.js';
import type { AccountsContext } from './context.js';

const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
const CACHE_LIMIT = 10_000;

export interface Credentials {
  /** the name as typed (throttled as typed, lower-cased) */
  name: string;
  password: unknown;
  address?: string;
}

export class CredentialCheck {
  private readonly verified = new Map<string, string>();

  constructor(
    private readonly ctx: AccountsContext,
    private readonly realm: string,
    /** what a refused login says (401) */
    private readonly refusal: string,
  ) {}

  /**
   * The account's id when the password is right; 401 otherwise, 429 while throttled. `find` gives
   * the account for the name (null when unknown), or the accounts (a user login name a username of
   * one user and the email of another, made before one namespace held both: the password decides,
   * and a password right for more than one of them is refused), and `hashOf` each one's current
   * password hash.
   */
  async check(
    credentials: Credentials,
    find: () => Promise<{ id: string } | { id: string }[] | null>,
    hashOf: (id: string) => Promise<string | null>,
  ): Promise<string> {
    return (await this.verify(credentials, find, hashOf)).id;
  }

  /** `check`, and the stored hash the password was checked against. */
  async verify(
    credentials: Credentials,
    find: () => Promise<{ id: string } | { id: string }[] | null>,
    hashOf: (id: string) => Promise<string | null>,
  ): Promise<{ id: string; hash: string }> {
    const name = credentials.name;
    const found = name ? await find() : null;
    const accounts = found === null ? [] : Array.isArray(found) ? found : [found];
    // an unknown name is checked against the dummy hash, so timing does not tell it apart
    const candidates = accounts.length ? await Promise.all(accounts.map(async ({ id }) => ({ id, stored: (await hashOf(id)) ?? DUMMY_HASH }))) : [{ id: null, stored: DUMMY_HASH }];
    const keyOf = (stored: string) => createHmac('sha256', this.ctx.secret).update(`${this.realm}\0${name}\0${String(credentials.password)}\0${stored}`).digest('base64');
    const cached = candidates.map((c) => c.id !== null && this.verified.get(keyOf(c.stored)) === c.id);
    const attempt = await this.ctx.logins.begin({ realm: this.realm, account: name, address: credentials.address }, { verified: cached.includes(true) });
    const matches: { id: string; stored: string }[] = [];
    for (const [i, c] of candidates.entries()) {
      const ok = cached[i] || (typeof credentials.password === 'string' && (await verifyPassword(credentials.password, c.stored)));
      if (ok && c.id !== null) matches.push({ id: c.id, stored: c.stored });
    }
    if (matches.length !== 1) {
      await attempt.failed();
      throw unauthorized(this.refusal);
    }
    const [{ id, stored }] = matches;
    await attempt.succeeded();
    if (this.verified.size >= CACHE_LIMIT) this.verified.clear();
    this.verified.set(keyOf(stored), id);
    return { id, hash: stored };
  }
}

/** What the last read of a stream found: its password hash as of `revision`. */
interface KnownHash {
  revision: number;
  hash: string | null;
}
const knownHashes = new WeakMap<AccountsContext['store'], Map<string, KnownHash>>();
const KNOWN_LIMIT = 100_000;
const PAGE = 64;

/**
 * The latest password hash in an account's stream (created or changed), or null. Read from the
 * stream itself, so a change through another replica counts at once, but without reading the
 * whole stream each time (it grows with every change of the account): the stream's revision says
 * whether anything happened since the last look; only the events after it are read, newest first,
 * down to the first password event.
 */
export async function latestPasswordHash(ctx: AccountsContext, stream: string, types: string[]): Promise<string | null> {
  let known = knownHashes.get(ctx.store);
  if (!known) knownHashes.set(ctx.store, (known = new Map()));
  const top = await ctx.store.streamRevision(stream);
  if (top === null) return null;
  const seen = known.get(stream);
  // a stream now shorter than when it was seen (restored from a backup): what was seen is not used
  const cached = seen && seen.revision <= top ? seen : undefined;
  if (cached?.revision === top) return cached.hash;
  let from = top;
  let hash: string | null | undefined;
  while (hash === undefined) {
    const events = await ctx.store.readStream(stream, { direction: 'backwards', fromRevision: from, maxCount: PAGE });
    for (const e of events) {
      if (cached && e.revision <= cached.revision) {
        hash = cached.hash;
        break;
      }
      if (types.includes(e.type)) {
        hash = (e.data.passwordHash as string | undefined) ?? null;
        break;
      }
    }
    if (hash !== undefined) break;
    const last = events.at(-1);
    if (!last || last.revision === 0) hash = null;
    else from = last.revision - 1;
  }
  if (known.size >= KNOWN_LIMIT) known.clear();
  known.set(stream, { revision: top, hash });
  return hash;
}
