/**
 * Webhook secrets and signatures.
 *
 * A secret is never stored: it is `whsec_` + HMAC-SHA256(service key, endpoint id + nonce), and the
 * endpoint's stream records only the nonce and the id of the service key (BURROW_SECRET holds one
 * or more keys, comma-separated, newest first). Every replica derives the same secret; the event
 * log alone reveals nothing; an operator rotating BURROW_SECRET keeps the old key in the list until
 * partners have rotated their webhook secrets (a secret whose key is gone cannot sign).
 *
 * A delivery is signed over `<timestamp>.<body>` with HMAC-SHA256 under each live secret (the
 * current one and, for a while after a rotation, the previous one):
 * `Burrow-Signature: v1=<hex>[,v1=<hex>]`, `Burrow-Timestamp: <unix seconds>`. A receiver accepts
 * the delivery when any v1 matches its secret and the timestamp is recent.
 */
import type { SecretRef } from '@burrow/contracts';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The keys of a BURROW_SECRET value: comma-separated, newest first. */
const serviceKeys = (secret: string) =>
  secret
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);

/** A short public id of a key (which key a secret was derived under), not the key. */
const keyIdOf = (key: string) => createHash('sha256').update(`burrow key id\n${key}`).digest('hex').slice(0, 12);

/** A new secret's reference: a random nonce under the newest service key. */
export function newSecretRef(serviceSecret: string): SecretRef {
  return { nonce: randomBytes(18).toString('base64url'), keyId: keyIdOf(serviceKeys(serviceSecret)[0]) };
}

/** The secret a reference stands for, or null when its service key is no longer configured. */
export function webhookSecret(serviceSecret: string, endpointId: string, ref: SecretRef): string | null {
  const key = serviceKeys(serviceSecret).find((k) => keyIdOf(k) === ref.keyId);
  if (!key) return null;
  return `whsec_${createHmac('sha256', key).update(`burrow webhook secret v1\n${endpointId}\n${ref.nonce}`).digest('base64url')}`;
}

const mac = (secret: string, timestamp: number, body: string) =>
  createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');

/** The `Burrow-Signature` value: one `v1=` per secret. */
export function signatureHeader(secrets: string[], timestamp: number, body: string): string {
  return secrets.map((s) => `v1=${mac(s, timestamp, body)}`).join(',');
}

/** What a receiver does (and the tests and docs show): does any v1 of the header match this secret? */
export function verifySignature(secret: string, timestamp: number, body: string, header: string): boolean {
  const expected = Buffer.from(mac(secret, timestamp, body), 'hex');
  return header.split(',').some((part) => {
    const [scheme, value] = part.trim().split('=', 2);
    if (scheme !== 'v1' || !value || !/^[0-9a-f]{64}$/.test(value)) return false;
    return timingSafeEqual(Buffer.from(value, 'hex'), expected);
  });
}
