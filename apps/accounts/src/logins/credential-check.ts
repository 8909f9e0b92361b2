/**
 * Checking a login name and password, the one way for every kind of login (partner API logins,
 * user storage logins): the failed-login throttle first, then the password against the account's
 * current hash as the read models hold it, with a dummy hash for unknown names so timing does not
 * reveal which exist. A verified credential is cached under a keyed hash of (name, password,
 * stored hash): a password change misses the cache at once, and a cached credential still passes
 * the throttle. The hash is SHA-256 of the credential after a random key of this instance (made at
 * start, never stored or sent: the cache is the process's own), one one-shot digest per request,
 * where an HMAC under the deployment's secret, made twice, cost ~10 µs of every interface A request.
 *
 * The hash comes from the read models, not the event store (issue 39): logins, and with them every
 * read, keep working while the event store is down. A password changed a moment ago through
 * another replica is still in force at once: the change answers only once the service's read
 * models include it, and every replica reads the same read-model database (MongoDB, or the SQLite
 * files of one host). Read models private to the process (`BURROW_READ_MODELS=memory`) may lag
 * another replica's change by a moment: those first catch up with the event store's head
 * (`credentialsCurrent`), unless the event store does not answer, when nothing can change.
 */
import { unauthorized, unavailableDependencyOf } from '@burrow/contracts';
import { hash, randomBytes } from 'node:crypto';
import { verifyPassword } from './password-hash.js';
import type { AccountsContext } from '../context.js';

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
  /** the cache keys' key: random per instance, never leaves the process */
  private readonly cacheKey = randomBytes(32).toString('base64');

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
    await credentialsCurrent(this.ctx);
    const found = name ? await find() : null;
    const accounts = found === null ? [] : Array.isArray(found) ? found : [found];
    // an unknown name is checked against the dummy hash, so timing does not tell it apart
    const candidates = accounts.length
      ? await Promise.all(accounts.map(async ({ id }) => ({ id, stored: (await hashOf(id)) ?? DUMMY_HASH })))
      : [{ id: null, stored: DUMMY_HASH }];
    // one digest per candidate, used to look the credential up and, once verified, to remember it
    const keys = candidates.map(({ stored }) =>
      hash('sha256', JSON.stringify([this.cacheKey, this.realm, name, String(credentials.password), stored]), 'base64'),
    );
    const cached = candidates.map((c, i) => c.id !== null && this.verified.get(keys[i]) === c.id);
    const attempt = await this.ctx.logins.begin(
      { realm: this.realm, account: name, address: credentials.address },
      { verified: cached.includes(true) },
    );
    const matches: { id: string; stored: string; key: string }[] = [];
    for (const [i, c] of candidates.entries()) {
      const ok =
        cached[i] ||
        (typeof credentials.password === 'string' && (await verifyPassword(credentials.password, c.stored)));
      if (ok && c.id !== null) matches.push({ id: c.id, stored: c.stored, key: keys[i] });
    }
    if (matches.length !== 1) {
      await attempt.failed();
      throw unauthorized(this.refusal);
    }
    const [{ id, stored, key }] = matches;
    await attempt.succeeded();
    if (this.verified.size >= CACHE_LIMIT) this.verified.clear();
    this.verified.set(key, id);
    return { id, hash: stored };
  }
}

/**
 * Makes sure the read models hold every credential change made so far, by any replica, before one
 * is checked against them: a no-op when they are shared by every replica (the replica that made a
 * change answered only once they held it); read models private to this process first catch up
 * with the event store's head, or stay as they are while the event store does not answer.
 */
export async function credentialsCurrent(ctx: AccountsContext): Promise<void> {
  if (!ctx.docs.privateToProcess) return;
  try {
    await ctx.runner.catchUp();
  } catch (error) {
    if (unavailableDependencyOf(error) !== 'event store') throw error;
  }
}
