/**
 * Checking a login name and password, the one way for every kind of login (partner API logins,
 * user storage logins): the failed-login throttle first, then the password against the hash read
 * from the account's own stream (so a password changed a moment ago through another replica is in
 * force at once), with a dummy hash for unknown names so timing does not reveal which exist. A
 * verified credential is cached under a keyed hash of (name, password, stored hash): a password
 * change misses the cache at once, and a cached credential still passes the throttle.
 */
import { unauthorized } from '@burrow/contracts';
import { verifyPassword } from '@burrow/runtime';
import { createHmac } from 'node:crypto';
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
   * the account for the name (null when unknown) and `hashOf` its current password hash.
   */
  async check(credentials: Credentials, find: () => Promise<{ id: string } | null>, hashOf: (id: string) => Promise<string | null>): Promise<string> {
    const name = credentials.name;
    const account = name ? await find() : null;
    const stored = (account && (await hashOf(account.id))) ?? DUMMY_HASH;
    const key = createHmac('sha256', this.ctx.secret).update(`${this.realm}\0${name}\0${String(credentials.password)}\0${stored}`).digest('base64');
    const cached = account !== null && this.verified.get(key) === account.id;
    const attempt = await this.ctx.logins.begin({ realm: this.realm, account: name, address: credentials.address }, { verified: cached });
    const ok = cached || (typeof credentials.password === 'string' && (await verifyPassword(credentials.password, stored)));
    if (!account || !ok) {
      await attempt.failed();
      throw unauthorized(this.refusal);
    }
    await attempt.succeeded();
    if (this.verified.size >= CACHE_LIMIT) this.verified.clear();
    this.verified.set(key, account.id);
    return account.id;
  }
}

/** The latest password hash in an account's stream (created or changed), or null. */
export async function latestPasswordHash(ctx: AccountsContext, stream: string, types: string[]): Promise<string | null> {
  const events = await ctx.store.readStream(stream, { direction: 'backwards' });
  const latest = events.find((e) => types.includes(e.type));
  return (latest?.data.passwordHash as string | undefined) ?? null;
}
