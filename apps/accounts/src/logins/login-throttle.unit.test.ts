/**
 * The login throttle's policy, on the in-memory key-value store with a fake clock shared by the
 * store (its TTLs) and the throttle.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError, LOGIN_POLICY } from '@burrow/contracts';
import { type BucketOptions, type KeyValueStore, type KvBucket, MemoryKeyValueStore } from '@burrow/kv';
import { clientAddressKey, type Logger } from '@burrow/runtime';
import { type LoginAttempt, LoginThrottle } from './login-throttle.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const POLICY = LOGIN_POLICY;

async function setup(kv?: (now: () => number) => KeyValueStore) {
  const clock = { now: 1_800_000_000_000 };
  const now = () => clock.now;
  const store = kv ? kv(now) : new MemoryKeyValueStore({ now });
  const throttle = await LoginThrottle.open(store, { secret: 'unit-test-secret-0123456789abcdef', now });
  const login = (account: string, address: string, options: { verified?: boolean } = {}) =>
    throttle.begin({ realm: 'partner', account, address }, options);
  /** One attempt that ends as given; resolves with the HTTP status the caller would send. */
  const attempt = async (
    account: string,
    address: string,
    outcome: 'fail' | 'succeed',
    options: { verified?: boolean } = {},
  ) => {
    let admitted: LoginAttempt;
    try {
      admitted = await login(account, address, options);
    } catch (error) {
      if (error instanceof DomainError)
        return { status: error.status, retryAfter: error.body.retry_after, reason: error.body.reason };
      throw error;
    }
    if (outcome === 'fail') {
      await admitted.failed();
      return { status: 401 };
    }
    await admitted.succeeded();
    return { status: 200 };
  };
  const advance = (ms: number) => {
    clock.now += ms;
  };
  return { throttle, attempt, advance, store };
}

let n = 0;
const addr = () => {
  n += 1;
  return `198.51.${Math.floor(n / 250)}.${n % 250}`;
};

describe('LoginThrottle: per account', () => {
  it(`locks an account after ${POLICY.account.threshold} failures from addresses it is not known at, with Retry-After`, async () => {
    const { attempt } = await setup();
    for (let i = 0; i < POLICY.account.threshold; i++)
      assert.equal((await attempt('acme', addr(), 'fail')).status, 401, `failure ${i + 1}`);
    const refused = await attempt('acme', addr(), 'succeed');
    assert.deepEqual(refused, {
      status: 429,
      retryAfter: 60,
      reason: 'too many failed logins for this account; retry later',
    });
    assert.equal((await attempt('other', addr(), 'fail')).status, 401, 'other accounts unaffected');
    assert.equal((await attempt('ACME', addr(), 'fail')).status, 429, 'names compare case-insensitively');
  });

  it('counts failures within a window: fewer than the threshold per window never lock', async () => {
    const { attempt, advance } = await setup();
    for (let i = 0; i < POLICY.account.threshold - 1; i++) await attempt('acme', addr(), 'fail');
    advance(POLICY.account.windowMs);
    for (let i = 0; i < POLICY.account.threshold - 1; i++)
      assert.equal((await attempt('acme', addr(), 'fail')).status, 401);
  });

  it('each further lockout doubles the lock, up to an hour: one attempt is let through after each lock', async () => {
    const { attempt, advance } = await setup();
    for (let i = 0; i < POLICY.account.threshold; i++) await attempt('acme', addr(), 'fail');
    const locks: number[] = [];
    for (let lockout = 1; lockout <= 8; lockout++) {
      const refused = await attempt('acme', addr(), 'fail');
      assert.equal(refused.status, 429);
      locks.push(refused.retryAfter!);
      advance(refused.retryAfter! * SECOND - 1);
      assert.equal((await attempt('acme', addr(), 'fail')).status, 429, 'still locked a moment before the end');
      advance(1);
      assert.equal((await attempt('acme', addr(), 'fail')).status, 401, 'one attempt after the lock');
    }
    assert.deepEqual(locks, [60, 120, 240, 480, 960, 1920, 3600, 3600]);
  });

  it('a success resets the account: count and lockouts start again', async () => {
    const { attempt, advance } = await setup();
    for (let i = 0; i < POLICY.account.threshold; i++) await attempt('acme', addr(), 'fail');
    advance(MINUTE);
    assert.equal((await attempt('acme', addr(), 'succeed')).status, 200, 'the attempt after the lock may succeed');
    for (let i = 0; i < POLICY.account.threshold - 1; i++)
      assert.equal((await attempt('acme', addr(), 'fail')).status, 401, `failure ${i + 1}`);
    assert.equal((await attempt('acme', addr(), 'fail')).status, 401);
    assert.equal((await attempt('acme', addr(), 'fail')).retryAfter, 60, 'the first lock again, not a doubled one');
  });

  it('lockouts are forgotten after a quiet day', async () => {
    const { attempt, advance } = await setup();
    for (let i = 0; i < POLICY.account.threshold; i++) await attempt('acme', addr(), 'fail');
    advance(MINUTE);
    await attempt('acme', addr(), 'fail'); // second lockout: 2 minutes
    advance(DAY);
    for (let i = 0; i < POLICY.account.threshold; i++)
      assert.equal((await attempt('acme', addr(), 'fail')).status, 401);
    assert.equal((await attempt('acme', addr(), 'fail')).retryAfter, 60);
  });

  it('concurrent attempts cannot overshoot the budget: each is counted before its password is checked', async () => {
    const { throttle } = await setup();
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () => throttle.begin({ realm: 'partner', account: 'acme', address: addr() })),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, POLICY.account.threshold);
    for (const r of results) if (r.status === 'rejected') assert.equal((r.reason as DomainError).status, 429);
  });
});

describe('LoginThrottle: known addresses', () => {
  it('an address the account logged in from is not held by a lock other addresses caused; new addresses are', async () => {
    const { attempt } = await setup();
    const home = addr();
    assert.equal((await attempt('acme', home, 'succeed')).status, 200);
    const attacker = addr();
    for (let i = 0; i < POLICY.account.threshold; i++) await attempt('acme', attacker, 'fail');
    assert.equal(
      (await attempt('acme', attacker, 'succeed')).status,
      429,
      'the attacker cannot continue, even with the right password',
    );
    assert.equal((await attempt('acme', addr(), 'succeed')).status, 429, 'a brand-new address waits too');
    assert.equal((await attempt('acme', home, 'succeed')).status, 200, 'the owner logs in from home');
    assert.equal(
      (await attempt('acme', home, 'succeed', { verified: true })).status,
      200,
      'also with cached credentials',
    );
    assert.equal(
      (await attempt('acme', addr(), 'succeed')).status,
      429,
      "the owner's success at home does not lift the lock for others",
    );
  });

  it(`a known address has its own budget: ${POLICY.knownAddress.threshold} failures per ${POLICY.knownAddress.windowMs / MINUTE} minutes, not counted against the account`, async () => {
    const { attempt, advance } = await setup();
    const home = addr();
    const office = addr();
    await attempt('acme', home, 'succeed');
    await attempt('acme', office, 'succeed');
    for (let i = 0; i < POLICY.knownAddress.threshold; i++)
      assert.equal((await attempt('acme', home, 'fail')).status, 401);
    const refused = await attempt('acme', home, 'succeed');
    assert.equal(refused.status, 429);
    assert.equal(refused.retryAfter, POLICY.knownAddress.windowMs / SECOND);
    assert.equal((await attempt('acme', office, 'succeed')).status, 200, 'another known address is unaffected');
    for (let i = 0; i < POLICY.account.threshold - 1; i++)
      assert.equal((await attempt('acme', addr(), 'fail')).status, 401, 'home failures did not count for the account');
    advance(POLICY.knownAddress.windowMs);
    assert.equal((await attempt('acme', home, 'fail')).status, 401, 'a new window');
    assert.equal((await attempt('acme', home, 'succeed')).status, 200);
    for (let i = 0; i < POLICY.knownAddress.threshold; i++)
      assert.equal((await attempt('acme', home, 'fail')).status, 401, 'a success reset the budget');
  });

  it('an address is known for 30 days after its last successful login', async () => {
    const { attempt, advance } = await setup();
    const home = addr();
    await attempt('acme', home, 'succeed');
    advance(POLICY.knownAddress.rememberMs - DAY);
    await attempt('acme', home, 'succeed', { verified: true }); // refreshes (older than a day)
    advance(POLICY.knownAddress.rememberMs - HOUR);
    for (let i = 0; i < POLICY.account.threshold; i++) await attempt('acme', addr(), 'fail');
    assert.equal((await attempt('acme', home, 'succeed')).status, 200, 'still known: last login under 30 days ago');
    advance(POLICY.knownAddress.rememberMs);
    for (let i = 0; i < POLICY.account.threshold; i++) await attempt('acme', addr(), 'fail');
    assert.equal((await attempt('acme', home, 'succeed')).status, 429, 'forgotten after 30 days');
  });

  it('known addresses are per account: home for one account is a new address for another', async () => {
    const { attempt } = await setup();
    const home = addr();
    await attempt('acme', home, 'succeed');
    for (let i = 0; i < POLICY.account.threshold; i++) await attempt('globex', addr(), 'fail');
    assert.equal((await attempt('globex', home, 'succeed')).status, 429);
  });
});

describe('LoginThrottle: per address', () => {
  it(`refuses an address after ${POLICY.address.threshold} failures in a minute over any accounts; successes do not count`, async () => {
    const { attempt, advance } = await setup();
    const address = addr();
    for (let i = 0; i < 30; i++) assert.equal((await attempt(`user${i}`, address, 'succeed')).status, 200);
    for (let i = 0; i < POLICY.address.threshold; i++)
      assert.equal((await attempt(`name${i}`, address, 'fail')).status, 401, `failure ${i + 1}`);
    const refused = await attempt('someone', address, 'succeed');
    assert.deepEqual(refused, {
      status: 429,
      retryAfter: 60,
      reason: 'too many failed logins from this address; retry later',
    });
    assert.equal(
      (await attempt('user0', address, 'succeed', { verified: true })).status,
      429,
      'even cached credentials from that address',
    );
    assert.equal((await attempt('someone', addr(), 'fail')).status, 401, 'other addresses unaffected');
    advance(MINUTE);
    assert.equal((await attempt('someone', address, 'fail')).status, 401);
  });

  it('an IPv6 client is counted by its /64, and IPv4-mapped addresses as IPv4', async () => {
    const { attempt } = await setup();
    for (let i = 0; i < POLICY.address.threshold; i++)
      await attempt(`name${i}`, `2001:db8:7:7::${(i + 1).toString(16)}`, 'fail');
    assert.equal((await attempt('x', '2001:db8:7:7:ffff::1', 'fail')).status, 429);
    assert.equal((await attempt('x', '2001:db8:7:8::1', 'fail')).status, 401, 'another /64');
    assert.equal(clientAddressKey('::ffff:192.0.2.1'), '192.0.2.1');
    assert.equal(clientAddressKey('2001:DB8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
    assert.equal(clientAddressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(clientAddressKey('::1'), '0:0:0:0::/64');
    assert.equal(clientAddressKey('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64');
    assert.equal(clientAddressKey(undefined), 'unknown');
  });
});

describe('LoginThrottle: verified credentials and the store', () => {
  it('verified (cached) credentials are not counted, but a locked account refuses them from addresses it is not known at', async () => {
    const { attempt } = await setup();
    const laptop = addr();
    for (let i = 0; i < 3 * POLICY.account.threshold; i++)
      assert.equal((await attempt('acme', laptop, 'succeed', { verified: true })).status, 200);
    for (let i = 0; i < POLICY.account.threshold; i++) await attempt('acme', addr(), 'fail');
    assert.equal(
      (await attempt('acme', addr(), 'succeed', { verified: true })).status,
      429,
      'no probing a lock with a cached password',
    );
    assert.equal(
      (await attempt('acme', laptop, 'succeed', { verified: true })).status,
      200,
      'the laptop became known by its logins',
    );
  });

  it('keeps neither usernames nor addresses in clear, and stores only what a login changes', async () => {
    const written: string[] = [];
    const recording = (now: () => number): KeyValueStore => {
      const inner = new MemoryKeyValueStore({ now });
      return {
        close: () => inner.close(),
        bucket: async <T>(name: string, options: BucketOptions) => {
          const b = await inner.bucket<T>(name, options);
          const wrapped: KvBucket<T> = {
            name: b.name,
            get: (key) => b.get(key),
            create: (key, value) => (written.push(`${name} ${key} ${JSON.stringify(value)}`), b.create(key, value)),
            update: (key, value, revision) => (
              written.push(`${name} ${key} ${JSON.stringify(value)}`),
              b.update(key, value, revision)
            ),
            delete: (key) => (written.push(`${name} ${key} deleted`), b.delete(key)),
          };
          return wrapped;
        },
      };
    };
    const { attempt } = await setup(recording);
    await attempt('Wile.E.Coyote', '192.0.2.44', 'succeed');
    await attempt('Wile.E.Coyote', '192.0.2.45', 'fail');
    assert.ok(written.length > 0);
    for (const line of written) assert.doesNotMatch(line, /coyote|192\.0\.2/i);
    written.length = 0;
    for (let i = 0; i < 10; i++) await attempt('Wile.E.Coyote', '192.0.2.44', 'succeed', { verified: true });
    assert.deepEqual(written, [], 'a known address logging in with cached credentials writes nothing');
  });

  it('refuses logins with 503 when the store cannot be reached', async () => {
    const broken = (): KeyValueStore => ({
      close: async () => undefined,
      bucket: async (name: string) => {
        const fail = async (): Promise<never> => {
          throw new Error('no responders available for request');
        };
        return { name, get: fail, create: fail, update: fail, delete: fail };
      },
    });
    const { attempt } = await setup(broken);
    assert.equal((await attempt('acme', addr(), 'succeed')).status, 503);
    assert.equal((await attempt('acme', addr(), 'succeed', { verified: true })).status, 503);
  });

  it('logs store failures once per 10 seconds at most, with the count in between', async () => {
    const lines: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
    const log = Object.fromEntries(
      ['error', 'warn', 'info', 'debug'].map((level) => [
        level,
        (fields: Record<string, unknown>, msg: string) => lines.push({ level, fields, msg }),
      ]),
    ) as unknown as Logger;
    let now = 0;
    const fail = async (): Promise<never> => {
      throw new Error('timeout');
    };
    const store: KeyValueStore = {
      close: async () => undefined,
      bucket: async (name: string) => ({ name, get: fail, create: fail, update: fail, delete: fail }),
    };
    const throttle = await LoginThrottle.open(store, {
      secret: 'unit-test-secret-0123456789abcdef',
      now: () => now,
      log,
    });
    for (let i = 0; i < 5; i++)
      await throttle.begin({ realm: 'partner', account: 'a', address: '192.0.2.9' }).catch(() => undefined);
    now += 10_000;
    await throttle.begin({ realm: 'partner', account: 'a', address: '192.0.2.9' }).catch(() => undefined);
    assert.deepEqual(
      lines.map((l) => [l.level, l.msg, l.fields.suppressed]),
      [
        ['error', 'login throttle store unavailable: logins refused', 0],
        ['error', 'login throttle store unavailable: logins refused', 4],
      ],
    );
  });

  it('unlock forgets an account’s failures and locks', async () => {
    const { attempt, throttle } = await setup();
    for (let i = 0; i < POLICY.account.threshold; i++) await attempt('acme', addr(), 'fail');
    await throttle.unlock('partner', 'ACME');
    assert.equal((await attempt('acme', addr(), 'succeed')).status, 200);
  });
});
