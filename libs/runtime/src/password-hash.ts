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
 */
import { createHmac, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (pw: string | Buffer, salt: Buffer, len: number, opts: object) => Promise<Buffer>;
const N = 16384;
const R = 8;
const P = 1;
const KEY_LEN = 32;
const MAXMEM = 64 * 1024 * 1024;

export const containsNul = (password: string): boolean => password.includes('\0');

/** What scrypt is given: the password as such in the first scheme, a fixed-length MAC of it in scrypt2. */
function scryptInput(scheme: string, password: string, salt: Buffer): string | Buffer {
  return scheme === 'scrypt2' ? createHmac('sha256', salt).update(password, 'utf8').digest() : password;
}

export async function hashPassword(password: string): Promise<string> {
  if (containsNul(password)) throw new Error('a password must not contain NUL characters');
  const salt = randomBytes(16);
  const hash = await scrypt(scryptInput('scrypt2', password, salt), salt, KEY_LEN, { N, r: R, p: P, maxmem: MAXMEM });
  return `scrypt2$${N}$${R}$${P}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || (parts[0] !== 'scrypt' && parts[0] !== 'scrypt2')) return false;
  if (containsNul(password)) return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'base64');
  const expected = Buffer.from(parts[5], 'base64');
  const actual = await scrypt(scryptInput(parts[0], password, salt), salt, expected.length, { N: n, r, p, maxmem: MAXMEM });
  return timingSafeEqual(actual, expected);
}
