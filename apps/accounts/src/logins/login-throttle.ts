/**
 * Failed-login throttling shared by every replica: the policy of `login-policy.ts` over counters in
 * the key-value store (NATS JetStream in distributed mode, memory standalone). One instance serves
 * every kind of login (`realm`: partner API logins today, user logins later); an address's budget
 * covers all of them.
 *
 * Keys are keyed hashes (HMAC with a key derived from the secret): the store holds no username and
 * no address in clear. Refusals are `tooManyRequests` (429 with Retry-After) and say nothing about
 * whether the account exists: unknown names are counted and locked exactly like known ones.
 * If the store cannot be reached, logins fail with 503 rather than go unthrottled.
 */
import { DomainError, LOGIN_POLICY, type LoginPolicy, serviceUnavailable, tooManyRequests } from '@burrow/contracts';
import { type KeyValueStore, type KvBucket, modify } from '@burrow/kv';
import { clientAddressKey, type Logger } from '@burrow/runtime';
import { createHmac } from 'node:crypto';
import {
  type AccountRecord,
  accountWait,
  type AddressRecord,
  addressWait,
  isKnown,
  knownAddressWait,
  knownAfterSuccess,
  type KnownAddressRecord,
  releaseAddress,
  reserveAccount,
  reserveAddress,
  reserveKnownAddress,
} from './login-policy.js';

/** The buckets, shared by every replica of a deployment. */
export const LOGIN_BUCKETS = {
  accounts: 'burrow-login-accounts',
  addresses: 'burrow-login-addresses',
  known: 'burrow-login-known',
} as const;

export interface LoginThrottleOptions {
  /** the deployment's secret (BURROW_SECRET): keys are keyed hashes */
  secret: string;
  policy?: LoginPolicy;
  /** milliseconds */
  now?: () => number;
  log?: Logger;
}

export interface Login {
  /** what kind of account: `partner`, `user` */
  realm: string;
  /** the login name as given (compared case-insensitively) */
  account: string;
  /** the client's address as the gateway saw it */
  address: string | undefined;
}

/** One admitted login attempt: report how it ended. */
export interface LoginAttempt {
  succeeded(): Promise<void>;
  /** The attempt was counted as a failure when it began: nothing more to store (logs a lock it caused). */
  failed(): Promise<void>;
}

const ACCOUNT_REFUSED = 'too many failed logins for this account; retry later';
const ADDRESS_REFUSED = 'too many failed logins from this address; retry later';
const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

interface LoginKeys {
  account: string;
  address: string;
  known: string;
}
const KEYS_REMEMBERED = 10_000;

export class LoginThrottle {
  private readonly key: Buffer;
  private readonly policy: LoginPolicy;
  private readonly now: () => number;
  private readonly keys = new Map<string, LoginKeys>();
  /** store failures are logged once per 10 s at most, with how many were not */
  private readonly storeErrors = { loggedAt: -Infinity, suppressed: 0 };

  private constructor(
    private readonly accounts: KvBucket<AccountRecord>,
    private readonly addresses: KvBucket<AddressRecord>,
    private readonly known: KvBucket<KnownAddressRecord>,
    private readonly options: LoginThrottleOptions,
  ) {
    this.key = createHmac('sha256', options.secret).update('burrow login throttle keys').digest();
    this.policy = options.policy ?? LOGIN_POLICY;
    this.now = options.now ?? Date.now;
  }

  /** Opens (creating when missing) the three buckets, with TTLs that outlive what they count. */
  static async open(kv: KeyValueStore, options: LoginThrottleOptions): Promise<LoginThrottle> {
    const policy = options.policy ?? LOGIN_POLICY;
    const atLeastSecond = (ms: number) => Math.max(1000, ms);
    const [accounts, addresses, known] = await Promise.all([
      kv.bucket<AccountRecord>(LOGIN_BUCKETS.accounts, {
        ttlMs: atLeastSecond(Math.max(policy.account.windowMs, policy.account.maxLockMs)),
      }),
      kv.bucket<AddressRecord>(LOGIN_BUCKETS.addresses, { ttlMs: atLeastSecond(policy.address.windowMs) }),
      kv.bucket<KnownAddressRecord>(LOGIN_BUCKETS.known, { ttlMs: atLeastSecond(policy.knownAddress.rememberMs) }),
    ]);
    return new LoginThrottle(accounts, addresses, known, options);
  }

  private hash(...parts: string[]): string {
    return createHmac('sha256', this.key).update(parts.join('\0')).digest('base64url');
  }

  /**
   * The bucket keys of a login: three HMACs, the same for every request of one partner from one
   * address, so the last ones are remembered (a pure function of the login; bounded).
   */
  private keysOf(login: Login): LoginKeys {
    const realm = login.realm.replace(/[^A-Za-z0-9_-]/g, '_');
    const account = String(login.account).toLowerCase();
    const address = clientAddressKey(login.address);
    const memo = JSON.stringify([realm, account, address]);
    const known = this.keys.get(memo);
    if (known) return known;
    const keys = {
      account: `${realm}.${this.hash('account', realm, account)}`,
      address: this.hash('address', address),
      known: `${realm}.${this.hash('known', realm, account, address)}`,
    };
    if (this.keys.size >= KEYS_REMEMBERED) this.keys.clear();
    this.keys.set(memo, keys);
    return keys;
  }

  /**
   * Admits one login attempt or throws 429. `verified`: the caller already knows the credentials
   * are right (a cached verification): nothing is counted, but a lock still refuses it, so a locked
   * account cannot be probed with a password that happens to be cached.
   */
  async begin(login: Login, options: { verified?: boolean } = {}): Promise<LoginAttempt> {
    try {
      return options.verified ? await this.admitVerified(login) : await this.reserve(login);
    } catch (error) {
      throw this.storeFailure(error);
    }
  }

  /**
   * Whether the buckets answer (readiness): a read of each, so a key-value store that does not
   * answer (JetStream not back yet after NATS restarted) fails readiness rather than every login.
   */
  async ping(): Promise<void> {
    await Promise.all([this.accounts.get('ping'), this.addresses.get('ping'), this.known.get('ping')]);
  }

  /** Forgets an account's failures and locks (operator action). Known addresses stay known. */
  async unlock(realm: string, account: string): Promise<void> {
    try {
      await this.accounts.delete(this.keysOf({ realm, account, address: undefined }).account);
    } catch (error) {
      throw this.storeFailure(error);
    }
  }

  private storeFailure(error: unknown): unknown {
    if (error instanceof DomainError) return error;
    const now = this.now();
    if (now - this.storeErrors.loggedAt >= 10_000) {
      this.options.log?.error(
        { err: { message: (error as Error).message }, suppressed: this.storeErrors.suppressed },
        'login throttle store unavailable: logins refused',
      );
      this.storeErrors.loggedAt = now;
      this.storeErrors.suppressed = 0;
    } else {
      this.storeErrors.suppressed += 1;
    }
    return serviceUnavailable('login throttling is unavailable; retry later');
  }

  private async reserve(login: Login): Promise<LoginAttempt> {
    const keys = this.keysOf(login);
    const now = this.now();
    const [knownEntry, address] = await Promise.all([
      this.known.get(keys.known),
      modify(this.addresses, keys.address, (r) => {
        const decision = reserveAddress(this.policy, r, now);
        return decision.ok ? decision.next : undefined;
      }),
    ]);
    if (!address.written) throw tooManyRequests(ADDRESS_REFUSED, seconds(addressWait(this.policy, address.value, now)));
    const reservedAddress = address.value!;
    const releaseAddressSlot = () =>
      modify(this.addresses, keys.address, (r) => releaseAddress(r, reservedAddress.since)).then(() => undefined);
    const known = knownEntry?.value ?? null;
    let waitMs = 0;

    if (isKnown(this.policy, known, now)) {
      const reserved = await modify(this.known, keys.known, (r) => {
        if (!isKnown(this.policy, r, now)) return undefined;
        const decision = reserveKnownAddress(this.policy, r, now);
        waitMs = decision.ok ? 0 : decision.waitMs;
        return decision.ok ? decision.next : undefined;
      });
      if (!reserved.written) {
        await releaseAddressSlot();
        // forgotten in the meantime (expired): go the way of an unknown address
        if (waitMs === 0) return this.reserve(login);
        throw tooManyRequests(ACCOUNT_REFUSED, seconds(waitMs));
      }
      return this.attempt(login, keys, { viaKnown: true, reservedAddress, releaseAddress: releaseAddressSlot });
    }

    const reserved = await modify(this.accounts, keys.account, (r) => {
      const decision = reserveAccount(this.policy, r, now);
      waitMs = decision.ok ? 0 : decision.waitMs;
      return decision.ok ? decision.next : undefined;
    });
    if (!reserved.written) {
      await releaseAddressSlot();
      throw tooManyRequests(ACCOUNT_REFUSED, seconds(waitMs));
    }
    const lock = reserved.value!.lockedUntil > now ? reserved.value! : undefined;
    return this.attempt(login, keys, { viaKnown: false, reservedAddress, releaseAddress: releaseAddressSlot, lock });
  }

  private async admitVerified(login: Login): Promise<LoginAttempt> {
    const keys = this.keysOf(login);
    const now = this.now();
    const [knownEntry, addressEntry] = await Promise.all([
      this.known.get(keys.known),
      this.addresses.get(keys.address),
    ]);
    const addressWaitMs = addressWait(this.policy, addressEntry?.value ?? null, now);
    if (addressWaitMs > 0) throw tooManyRequests(ADDRESS_REFUSED, seconds(addressWaitMs));
    const known = knownEntry?.value ?? null;
    if (isKnown(this.policy, known, now)) {
      const wait = knownAddressWait(this.policy, known, now);
      if (wait > 0) throw tooManyRequests(ACCOUNT_REFUSED, seconds(wait));
      return this.attempt(login, keys, { viaKnown: true, known });
    }
    const accountEntry = await this.accounts.get(keys.account);
    const wait = accountWait(accountEntry?.value ?? null, now);
    if (wait > 0) throw tooManyRequests(ACCOUNT_REFUSED, seconds(wait));
    return this.attempt(login, keys, { viaKnown: false, known, accountRecorded: accountEntry !== null });
  }

  private attempt(
    login: Login,
    keys: ReturnType<LoginThrottle['keysOf']>,
    how: {
      viaKnown: boolean;
      /** the reservations this attempt holds (none for verified credentials) */
      reservedAddress?: AddressRecord;
      releaseAddress?: () => Promise<void>;
      /** the lock this attempt starts unless it succeeds */
      lock?: AccountRecord;
      /** verified credentials: what was read (so nothing is written when nothing changes) */
      known?: KnownAddressRecord | null;
      accountRecorded?: boolean;
    },
  ): LoginAttempt {
    return {
      failed: async () => {
        if (how.lock) {
          this.options.log?.warn(
            {
              realm: login.realm,
              account: login.account,
              address: login.address,
              lockouts: how.lock.lockouts,
              lockedForSeconds: seconds(how.lock.lockedUntil - this.now()),
            },
            'login locked: too many failed logins for this account (addresses it has logged in from are not affected)',
          );
        }
        if (how.reservedAddress?.failures === this.policy.address.threshold) {
          this.options.log?.warn(
            {
              realm: login.realm,
              address: login.address,
              refusedForSeconds: seconds(how.reservedAddress.since + this.policy.address.windowMs - this.now()),
            },
            'login refused from now on: too many failed logins from this address',
          );
        }
      },
      succeeded: async () => {
        const now = this.now();
        try {
          await Promise.all([
            how.releaseAddress?.(),
            // a success from an address not known for the account resets the account; one from a
            // known address does not lift a lock other addresses caused
            !how.viaKnown && how.accountRecorded !== false ? this.accounts.delete(keys.account) : undefined,
            how.known === undefined || knownAfterSuccess(this.policy, how.known, now)
              ? modify(this.known, keys.known, (r) => knownAfterSuccess(this.policy, r, now))
              : undefined,
          ]);
        } catch (error) {
          // the login itself succeeded: losing this bookkeeping only makes the next one stricter
          this.options.log?.warn(
            { err: { message: (error as Error).message }, realm: login.realm },
            'login throttle: could not record a successful login',
          );
        }
      },
    };
  }
}
