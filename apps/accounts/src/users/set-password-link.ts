/**
 * The set-password link's token: `<userId>.<nonce>.<expiresAt>.<mac>`, the MAC an HMAC-SHA256
 * over the rest under a key derived from the service secret. Every accounts replica checks it
 * without shared state, and nobody without the secret can make one. The token is never stored or
 * logged; what makes a link single-use is the user's stream (user.ts: only the latest link's nonce
 * is live, and using it spends it), so it holds across replicas and restarts.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface LinkClaims {
  userId: string;
  nonce: string;
  /** unix seconds */
  expiresAt: number;
}

const TOKEN = /^([0-9a-f-]{36})\.([A-Za-z0-9_-]{22})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

const keyOf = (secret: string) => createHmac('sha256', secret).update('burrow set-password link v1').digest();
const macOf = (secret: string, payload: string) => createHmac('sha256', keyOf(secret)).update(payload).digest();

/** 128 random bits, base64url: what the user's stream records of a link. */
export const newLinkNonce = () => randomBytes(16).toString('base64url');

export function signLink(secret: string, { userId, nonce, expiresAt }: LinkClaims): string {
  const payload = `${userId}.${nonce}.${expiresAt}`;
  return `${payload}.${macOf(secret, payload).toString('base64url')}`;
}

/** The claims of a token this service signed, or null (malformed or forged). Expiry is the caller's. */
export function readLink(secret: string, token: unknown): LinkClaims | null {
  if (typeof token !== 'string') return null;
  const m = TOKEN.exec(token);
  if (!m) return null;
  const [, userId, nonce, expiresAt, mac] = m;
  const expected = macOf(secret, `${userId}.${nonce}.${expiresAt}`);
  const given = Buffer.from(mac, 'base64url');
  // one spelling per MAC: decoding ignores the last character's low bits
  if (given.toString('base64url') !== mac) return null;
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return { userId, nonce, expiresAt: Number(expiresAt) };
}
