/**
 * WebDAV locks (class 2), kept where every gateway replica sees them alike: one key-value entry
 * per user (a JetStream bucket on NATS, memory in one process) holding the user's live locks,
 * changed by compare-and-set so two replicas granting at once cannot both win. Locks are short
 * lived by nature (a timeout the client refreshes, an UNLOCK when it is done); the entry expires
 * a while after its last write, so nothing outlives the longest lock.
 *
 * What a lock covers: its own resource, and with Depth: infinity everything below it. A write is
 * refused (423) unless the request submits (in its `If` header) the token of every lock covering
 * what it changes.
 */
import { DomainError, serviceUnavailable } from '@burrow/contracts';
import { type KeyValueStore, type KvBucket, modify } from '@burrow/kv';
import { randomUUID } from 'node:crypto';

export interface DavLock {
  /** `opaquelocktoken:<uuid>` */
  token: string;
  /** `<device>/<path>` without a trailing slash; '' is the user's root */
  path: string;
  /** the lock root's href, as lockdiscovery shows it */
  root: string;
  depth: '0' | 'infinity';
  scope: 'exclusive' | 'shared';
  /** the client's `<owner>` content, as XML */
  owner: string;
  /** seconds, as granted */
  timeout: number;
  /** when it lapses (milliseconds since the epoch) */
  expires: number;
}

interface UserLocks {
  locks: DavLock[];
}

/** The longest a lock is granted for (clients refresh long before). */
export const LOCK_TIMEOUT_MAX = 24 * 60 * 60;
export const LOCK_TIMEOUT_DEFAULT = 60 * 60;
/** Live locks per user: plenty for desktop clients, which unlock what they are done with. */
export const LOCKS_PER_USER_MAX = 1000;
const BUCKET = 'burrow-dav-locks';

export const locked = (reason: string) => new DomainError(423, { reason });

/** Is `path` the lock's resource, or below it under a Depth: infinity lock? */
export const covers = (lock: DavLock, path: string) =>
  lock.path === path || (lock.depth === 'infinity' && (lock.path === '' || path.startsWith(`${lock.path}/`)));
/** Is the lock's resource below `path`? */
export const below = (lock: DavLock, path: string) => lock.path !== path && (path === '' || lock.path.startsWith(`${path}/`));

export class DavLocks {
  private bucket?: Promise<KvBucket<UserLocks>>;

  constructor(
    private readonly keyValues: () => Promise<KeyValueStore>,
    private readonly now: () => number = Date.now,
  ) {}

  private open(): Promise<KvBucket<UserLocks>> {
    if (!this.bucket) {
      this.bucket = this.keyValues().then((kv) => kv.bucket<UserLocks>(BUCKET, { ttlMs: (LOCK_TIMEOUT_MAX + 300) * 1000 }));
      this.bucket.catch(() => (this.bucket = undefined));
    }
    return this.bucket;
  }

  private live(value: UserLocks | null): DavLock[] {
    const at = this.now();
    return (value?.locks ?? []).filter((l) => l.expires > at);
  }

  /** The user's live locks. */
  async list(userId: string): Promise<DavLock[]> {
    return this.live((await (await this.open()).get(userId))?.value ?? null);
  }

  /** Grants a new lock unless one in the way conflicts (423): any lock for an exclusive one, an exclusive one for a shared one. */
  async grant(userId: string, lock: Omit<DavLock, 'token' | 'expires'>): Promise<DavLock> {
    const granted: DavLock = { ...lock, token: `opaquelocktoken:${randomUUID()}`, expires: this.now() + lock.timeout * 1000 };
    await modify(await this.open(), userId, (current) => {
      const locks = this.live(current);
      const inTheWay = locks.filter((l) => covers(l, lock.path) || (lock.depth === 'infinity' && below(l, lock.path)));
      if (inTheWay.some((l) => l.scope === 'exclusive' || lock.scope === 'exclusive')) throw locked('the resource is locked');
      if (locks.length >= LOCKS_PER_USER_MAX) throw serviceUnavailable(`at most ${LOCKS_PER_USER_MAX} locks per user: unlock some first`);
      return { locks: [...locks, granted] };
    });
    return granted;
  }

  /** Extends a lock (LOCK without a body): null when there is no such live lock. */
  async refresh(userId: string, token: string, timeout: number): Promise<DavLock | null> {
    let refreshed: DavLock | null = null;
    await modify(await this.open(), userId, (current) => {
      const locks = this.live(current);
      const lock = locks.find((l) => l.token === token);
      if (!lock) return undefined;
      refreshed = { ...lock, timeout, expires: this.now() + timeout * 1000 };
      return { locks: locks.map((l) => (l.token === token ? refreshed! : l)) };
    });
    return refreshed;
  }

  /** Removes a lock: false when there was no such live lock. */
  async release(userId: string, token: string): Promise<boolean> {
    let found = false;
    await modify(await this.open(), userId, (current) => {
      const locks = this.live(current);
      found = locks.some((l) => l.token === token);
      return found ? { locks: locks.filter((l) => l.token !== token) } : undefined;
    });
    return found;
  }

  /** Forgets the locks on `path` and below it (the resource was deleted or moved away). */
  async forget(userId: string, path: string): Promise<void> {
    await modify(await this.open(), userId, (current) => {
      const locks = this.live(current);
      const kept = locks.filter((l) => l.path !== path && !below(l, path));
      return kept.length === locks.length ? undefined : { locks: kept };
    });
  }
}
