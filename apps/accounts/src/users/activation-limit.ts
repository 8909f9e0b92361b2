/**
 * How many activation / set-password emails may be sent: at most `perUser` to one user and
 * `perPartner` for one partner within `windowSeconds` (BURROW_ACTIVATION_MAIL_PER_USER,
 * BURROW_ACTIVATION_MAIL_PER_PARTNER, BURROW_ACTIVATION_MAIL_WINDOW_SECONDS), so that no one can
 * have Burrow mail a mailbox endlessly. Past either, the request is a 429 with Retry-After and a
 * reason naming which limit. Counters live in the key-value store every replica shares (NATS
 * JetStream; memory in one process), one fixed window per user and per partner.
 */
import { tooManyRequests } from '@burrow/contracts';
import { type KeyValueStore, type KvBucket, modify } from '@burrow/kv';

export interface ActivationLimitOptions {
  perUser: number;
  perPartner: number;
  windowSeconds: number;
  /** milliseconds since the epoch */
  now?: () => number;
}

interface Window {
  /** when the window began (ms) */
  since: number;
  count: number;
}

const BUCKET = 'burrow-activation-mail';

export class ActivationMailLimit {
  private constructor(
    private readonly bucket: KvBucket<Window>,
    private readonly options: ActivationLimitOptions,
  ) {}

  static async open(kv: KeyValueStore, options: ActivationLimitOptions): Promise<ActivationMailLimit> {
    const bucket = await kv.bucket<Window>(BUCKET, { ttlMs: Math.max(1, options.windowSeconds) * 1000 + 60_000 });
    return new ActivationMailLimit(bucket, options);
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Counts one email to `userId` of `partnerId`, or throws 429 (counting nothing) when a limit is reached. */
  async take(partnerId: string, userId: string): Promise<void> {
    const windowMs = this.options.windowSeconds * 1000;
    const check = async (key: string, limit: number, what: string) => {
      const now = this.now();
      const entry = await this.bucket.get(key);
      const live = entry && now - entry.value.since < windowMs ? entry.value : null;
      if (live && live.count >= limit) {
        const retryAfter = Math.max(1, Math.ceil((live.since + windowMs - now) / 1000));
        throw tooManyRequests(
          `too many activation emails ${what}: at most ${limit} per ${this.options.windowSeconds} s; retry in ${retryAfter} s`,
          retryAfter,
        );
      }
    };
    await check(`user.${userId}`, this.options.perUser, 'to this user');
    await check(`partner.${partnerId}`, this.options.perPartner, 'for this partner');
    const count = (key: string) =>
      modify(this.bucket, key, (current) => {
        const now = this.now();
        return current && now - current.since < windowMs
          ? { since: current.since, count: current.count + 1 }
          : { since: now, count: 1 };
      });
    await count(`user.${userId}`);
    await count(`partner.${partnerId}`);
  }
}
