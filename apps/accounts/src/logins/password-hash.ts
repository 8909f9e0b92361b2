/**
 * Password hashing with node:crypto scrypt (memory-hard). Stored form:
 * `scrypt2$N$r$p$<salt b64>$<hash b64>`, so parameters can be raised later without breaking old hashes.
 *
 * Why `scrypt2`: scrypt feeds the password to PBKDF2-HMAC-SHA256 as the HMAC key, and HMAC pads a
 * short key with zero bytes (and hashes a key over 64 bytes), so `secret` and `secret\0` gave the
 * same hash. `scrypt2` gives scrypt HMAC-SHA256(salt, password) instead: always 32 bytes, so no
 * two passwords share a key. Hashes of the first scheme (`scrypt$...`) still verify; since their
 * trailing-NUL ambiguity is in the stored hash itself, verification refuses any password holding
 * NUL, which no password may contain anyway (refused when set).
 *
 * Secrets Burrow generates itself (a user's temporary password) are not passwords a person chose:
 * 128 random bits, which no search can cover, so a memory-hard KDF adds nothing but ~50 ms of CPU
 * per user. They are stored as `random1$<salt b64>$<HMAC-SHA256(salt, secret) b64>`, made only by
 * `generateSecret()`, which draws the secret itself: no caller can hand it a chosen password.
 * Verifying one still runs one scrypt (discarded), so a login takes as long whatever kind of hash
 * the account has: timing does not tell which accounts still have a temporary password.
 */
import { createHmac, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (pw: string | Buffer, salt: Buffer, len: number, opts: object) => Promise<Buffer>;
/** scrypt's cost for new hashes unless configured: 2^14, ~50 ms of CPU on a current core. */
export const DEFAULT_SCRYPT_N = 16384;
const R = 8;
const P = 1;
const KEY_LEN = 32;
let N = DEFAULT_SCRYPT_N;
/** scrypt needs 128 * N * r bytes; twice that is allowed */
const maxmem = (n: number, r: number) => 256 * n * r;

/**
 * The cost (N, a power of two) of the hashes made from now on (BURROW_PASSWORD_SCRYPT_N, checked by
 * the configuration). Stored hashes keep the cost they were made with, so it can be raised at any
 * time; the test suites lower it, since they hash thousands of passwords.
 */
export function setPasswordHashCost(n: number): void {
  if (!Number.isInteger(n) || n < 1024 || n > 65536 || (n & (n - 1)) !== 0)
    throw new Error(`scrypt N must be a power of two from 1024 to 65536 (got ${n})`);
  N = n;
}

export const containsNul = (password: string): boolean => password.includes('\0');

/** What scrypt is given: the password as such in the first scheme, a fixed-length MAC of it in scrypt2. */
function scryptInput(scheme: string, password: string, salt: Buffer): string | Buffer {
  return scheme === 'scrypt2' ? createHmac('sha256', salt).update(password, 'utf8').digest() : password;
}

export async function hashPassword(password: string): Promise<string> {
  if (containsNul(password)) throw new Error('a password must not contain NUL characters');
  const salt = randomBytes(16);
  const hash = await scrypt(scryptInput('scrypt2', password, salt), salt, KEY_LEN, {
    N,
    r: R,
    p: P,
    maxmem: maxmem(N, R),
  });
  return `scrypt2$${N}$${R}$${P}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

const GENERATED_SCHEME = 'random1';
const TIMING_SALT = Buffer.alloc(16);
const GENERATED_BYTES = 16;

/** A new random secret (128 bits, base64url) and its stored form; see the module comment. */
export function generateSecret(): { secret: string; hash: string } {
  const secret = randomBytes(GENERATED_BYTES).toString('base64url');
  const salt = randomBytes(16);
  const mac = createHmac('sha256', salt).update(secret, 'utf8').digest();
  return { secret, hash: `${GENERATED_SCHEME}$${salt.toString('base64')}$${mac.toString('base64')}` };
}

async function verifyGenerated(password: string, parts: string[]): Promise<boolean> {
  // the cost of a scrypt verification, for uniform timing (module comment)
  await scrypt(scryptInput('scrypt2', password, TIMING_SALT), TIMING_SALT, KEY_LEN, {
    N,
    r: R,
    p: P,
    maxmem: maxmem(N, R),
  });
  const salt = Buffer.from(parts[1], 'base64');
  const expected = Buffer.from(parts[2], 'base64');
  const actual = createHmac('sha256', salt).update(password, 'utf8').digest();
  return expected.length === actual.length && timingSafeEqual(actual, expected);
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length === 3 && parts[0] === GENERATED_SCHEME) return verifyGenerated(password, parts);
  if (parts.length !== 6 || (parts[0] !== 'scrypt' && parts[0] !== 'scrypt2')) return false;
  if (containsNul(password)) return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  // a stored hash names its own cost; one beyond what Burrow ever makes is refused, not computed
  if (!(n >= 2 && n <= 65536 && r >= 1 && r <= 32 && p >= 1 && p <= 16)) return false;
  const salt = Buffer.from(parts[4], 'base64');
  const expected = Buffer.from(parts[5], 'base64');
  const actual = await scrypt(scryptInput(parts[0], password, salt), salt, expected.length, {
    N: n,
    r,
    p,
    maxmem: maxmem(n, r) * p,
  });
  return timingSafeEqual(actual, expected);
}
