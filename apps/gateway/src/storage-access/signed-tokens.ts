/**
 * Signed, expiring tokens: sessions, single-file links, session extensions, share room cookies. Every gateway replica
 * verifies them with the shared key set alone (no shared memory). A token is
 * `<base64url JSON payload>.<key id>.<base64url HMAC-SHA256>`; the MAC covers the token's kind as
 * well, so a token of one kind is never accepted as another.
 *
 * The key set rotates: the first key signs, every key verifies (BURROW_SECRET holds several keys
 * separated by commas, newest first); a key removed from the set stops verifying at once.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export type TokenKind = 'session' | 'link' | 'extension' | 'set-password' | 'csrf' | 'room';

/** verified tokens remembered per signer (the longest remembered are forgotten first), each at most this long */
const VERIFIED_TOKENS = 10_000;
const VERIFIED_TOKEN_MAX_LENGTH = 1024;

interface Key {
  id: string;
  secret: Buffer;
}

/** Every token carries its expiry (unix seconds). */
export interface TokenBody {
  exp: number;
}

/** The keys of a BURROW_SECRET value: comma-separated, newest first. */
export function keySet(secret: string): string[] {
  const keys = secret
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k.length > 0);
  if (keys.length === 0) throw new RangeError('the signing key set is empty');
  return keys;
}

export class TokenSigner {
  private readonly keys: Key[];

  constructor(
    secrets: string[],
    /** milliseconds since the epoch; injectable for expiry tests */
    private readonly now: () => number = Date.now,
  ) {
    this.keys = secrets.map((s) => ({
      id: createHash('sha256').update(s).digest('base64url').slice(0, 6),
      secret: Buffer.from(s, 'utf8'),
    }));
    if (this.keys.length === 0) throw new RangeError('the signing key set is empty');
  }

  /** Seconds since the epoch, by the signer's clock. */
  seconds(): number {
    return Math.floor(this.now() / 1000);
  }

  private mac(key: Key, kind: TokenKind, body: string): Buffer {
    return createHmac('sha256', key.secret).update(kind).update('.').update(body).digest();
  }

  /** A token of `kind` holding `payload`, valid for `ttlSeconds` from now. */
  sign<T extends object>(kind: TokenKind, payload: T, ttlSeconds: number): string {
    const body = Buffer.from(
      JSON.stringify({ ...payload, exp: this.seconds() + Math.max(1, Math.floor(ttlSeconds)) }),
    ).toString('base64url');
    const key = this.keys[0];
    return `${body}.${key.id}.${this.mac(key, kind, body).toString('base64url')}`;
  }

  /**
   * The payload of a genuine, unexpired token of `kind`; null for anything else. A token that
   * verified is remembered with its kind (its text is what the MAC covers, and the keys do not
   * change while the process runs): a browser sends its session cookie with every request, and the
   * HMAC took a measurable share of a download's fixed cost. The payload is shared (frozen); the
   * expiry is checked on every call.
   */
  verify<T extends object>(kind: TokenKind, token: string | undefined | null): (T & TokenBody) | null {
    if (typeof token !== 'string' || token.length > 4096) return null;
    const memo = `${kind}.${token}`;
    let payload: Readonly<TokenBody> | null | undefined = this.verified.get(memo);
    if (!payload) {
      payload = this.genuine(kind, token);
      if (!payload) return null;
      if (token.length <= VERIFIED_TOKEN_MAX_LENGTH) {
        if (this.verified.size >= VERIFIED_TOKENS) this.verified.delete(this.verified.keys().next().value!);
        this.verified.set(memo, payload);
      }
    }
    const exp = payload.exp;
    if (!Number.isInteger(exp) || exp <= this.seconds()) {
      this.verified.delete(memo);
      return null;
    }
    return payload as T & TokenBody;
  }

  private readonly verified = new Map<string, Readonly<TokenBody>>();

  /** The frozen payload of a token of `kind` whose MAC is right under one of the keys (expired or not); null otherwise. */
  private genuine(kind: TokenKind, token: string): Readonly<TokenBody> | null {
    const parts = token.split('.');
    if (parts.length !== 3) return null;
    const [body, keyId, mac] = parts;
    const key = this.keys.find((k) => k.id === keyId);
    if (!key) return null;
    const given = Buffer.from(mac, 'base64url');
    // one spelling per MAC: base64url decoding ignores a last character's low bits (and stray
    // characters), so an altered token could otherwise pass as the same MAC
    if (given.toString('base64url') !== mac) return null;
    const expected = this.mac(key, kind, body);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
    if (!payload || typeof payload !== 'object') return null;
    return Object.freeze(payload as TokenBody);
  }
}
