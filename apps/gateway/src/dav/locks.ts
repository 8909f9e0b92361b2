/**
 * WebDAV locks (class 2), kept where every gateway replica sees them alike (a JetStream bucket on
 * NATS, memory in one process), in two parts:
 * - the user's **lock index**, one entry per user: each live lock's token, resource, depth, scope
 *   and expiry, but not its owner. Every WebDAV request that needs locks reads this and only this,
 *   so it is kept small: at most `LOCKS_PER_USER_MAX` locks and `LOCK_INDEX_MAX_BYTES` of JSON.
 *   It changes by compare-and-set, so two replicas granting at once cannot both win;
 * - each lock's **owner** (the client's `<owner>` XML, at most `LOCK_OWNER_MAX_BYTES`), in an
 *   entry of its own, read only to show that lock (lockdiscovery, a LOCK's answer).
 * A grant writes the owner first and then the index; a grant refused (a conflict, a limit) leaves
 * the index as it was, so it never takes other locks with it. Locks are short lived by nature (a
 * timeout the client refreshes, an UNLOCK when it is done); entries expire a while after their
 * last write, so nothing outlives the longest lock.
 *
 * What a lock covers: its own resource, and with Depth: infinity everything below it. A write is
 * refused (423) unless the request submits (in its `If` header) the token of every lock covering
 * what it changes.
 */
import { DomainError, forbidden } from '@burrow/contracts';
import { type KeyValueStore, type KvBucket, modify } from '@burrow/kv';
import { randomUUID } from 'node:crypto';

export interface DavLock {
  /** `opaquelocktoken:<uuid>` */
  token: string;
  /** `<device>/<path>` without a trailing slash; '' is the user's root */
  path: string;
  /** the locked resource is a collection (its href ends with `/`) */
  collection: boolean;
  depth: '0' | 'infinity';
  scope: 'exclusive' | 'shared';
  /** the client gave an `<owner>` (kept in its own entry) */
  owned: boolean;
  /** seconds, as granted */
  timeout: number;
  /** when it lapses (milliseconds since the epoch) */
  expires: number;
}

interface LockIndex {
  locks: DavLock[];
}

interface LockOwner {
  owner: string;
}

/** The longest a lock is granted for (clients refresh long before). */
export const LOCK_TIMEOUT_MAX = 24 * 60 * 60;
export const LOCK_TIMEOUT_DEFAULT = 60 * 60;
/**
 * Live locks per user. A desktop client locks the files it has open and unlocks them when done;
 * a copy locks one file at a time. 100 is far above that, and keeps the index every request
 * reads to a few kilobytes.
 */
export const LOCKS_PER_USER_MAX = 100;
/** Locks on one resource (shared ones: one user's clients sharing a file). */
export const LOCKS_PER_RESOURCE_MAX = 10;
/** The lock index's JSON, whatever the paths' lengths (a path may take 4 KiB). */
export const LOCK_INDEX_MAX_BYTES = 64 * 1024;
/**
 * A lock's `<owner>`, as XML. Clients send a name or a URL (`<D:href>DOMAIN\user</D:href>`,
 * `<D:href>http://www.apple.com/webdav_fs/</D:href>`): tens of bytes.
 */
export const LOCK_OWNER_MAX_BYTES = 4 * 1024;
const INDEX_BUCKET = 'burrow-dav-lock-index';
const OWNER_BUCKET = 'burrow-dav-lock-owners';
const TTL_MS = (LOCK_TIMEOUT_MAX + 300) * 1000;

export const locked = (reason: string) => new DomainError(423, { reason });

/** Is `path` the lock's resource, or below it under a Depth: infinity lock? */
export const covers = (lock: DavLock, path: string) =>
  lock.path === path || (lock.depth === 'infinity' && (lock.path === '' || path.startsWith(`${lock.path}/`)));
/** Is the lock's resource below `path`? */
export const below = (lock: DavLock, path: string) =>
  lock.path !== path && (path === '' || lock.path.startsWith(`${path}/`));

const uuidOf = (token: string) => token.replace(/^opaquelocktoken:/, '');

export class DavLocks {
  private buckets?: Promise<{ index: KvBucket<LockIndex>; owners: KvBucket<LockOwner> }>;

  constructor(
    private readonly keyValues: () => Promise<KeyValueStore>,
    private readonly now: () => number = Date.now,
  ) {}

  private open(): Promise<{ index: KvBucket<LockIndex>; owners: KvBucket<LockOwner> }> {
    if (!this.buckets) {
      this.buckets = this.keyValues().then(async (kv) => ({
        index: await kv.bucket<LockIndex>(INDEX_BUCKET, { ttlMs: TTL_MS }),
        owners: await kv.bucket<LockOwner>(OWNER_BUCKET, { ttlMs: TTL_MS }),
      }));
      this.buckets.catch(() => (this.buckets = undefined));
    }
    return this.buckets;
  }

  private live(value: LockIndex | null): DavLock[] {
    const at = this.now();
    return (value?.locks ?? []).filter((l) => l.expires > at);
  }

  private ownerKey(userId: string, token: string): string {
    return `${userId}.${uuidOf(token)}`;
  }

  /** The user's live locks (the index: no owners). */
  async list(userId: string): Promise<DavLock[]> {
    return this.live((await (await this.open()).index.get(userId))?.value ?? null);
  }

  /** The owners of these locks (for lockdiscovery), by token; a lock without one is left out. */
  async owners(userId: string, locks: DavLock[]): Promise<Map<string, string>> {
    const { owners } = await this.open();
    const out = new Map<string, string>();
    for (const lock of locks) {
      if (!lock.owned || out.has(lock.token)) continue;
      const entry = await owners.get(this.ownerKey(userId, lock.token));
      if (entry) out.set(lock.token, entry.value.owner);
    }
    return out;
  }

  /**
   * Grants a new lock unless one in the way conflicts (423): any lock for an exclusive one, an
   * exclusive one for a shared one; or a limit would be passed (423 for the resource's, 403 for
   * the user's). A refusal changes nothing.
   */
  async grant(
    userId: string,
    lock: Omit<DavLock, 'token' | 'expires' | 'owned'> & { owner: string },
  ): Promise<DavLock> {
    const { owner, ...rest } = lock;
    const granted: DavLock = {
      ...rest,
      owned: owner !== '',
      token: `opaquelocktoken:${randomUUID()}`,
      expires: this.now() + lock.timeout * 1000,
    };
    const { index, owners } = await this.open();
    const ownerKey = this.ownerKey(userId, granted.token);
    // the owner first: a lock in the index always has its owner to show
    if (granted.owned) await owners.create(ownerKey, { owner });
    try {
      await modify(index, userId, (current) => {
        const locks = this.live(current);
        const inTheWay = locks.filter(
          (l) => covers(l, lock.path) || (lock.depth === 'infinity' && below(l, lock.path)),
        );
        if (inTheWay.some((l) => l.scope === 'exclusive' || lock.scope === 'exclusive'))
          throw locked('the resource is locked');
        if (locks.filter((l) => l.path === lock.path).length >= LOCKS_PER_RESOURCE_MAX) {
          throw locked(`a resource takes at most ${LOCKS_PER_RESOURCE_MAX} locks: unlock one first`);
        }
        if (locks.length >= LOCKS_PER_USER_MAX)
          throw forbidden(`a user holds at most ${LOCKS_PER_USER_MAX} locks: unlock some first`);
        const next = { locks: [...locks, granted] };
        if (Buffer.byteLength(JSON.stringify(next)) > LOCK_INDEX_MAX_BYTES) {
          throw forbidden(`a user's locks take at most ${LOCK_INDEX_MAX_BYTES} bytes (their paths): unlock some first`);
        }
        return next;
      });
    } catch (error) {
      if (granted.owned) await owners.delete(ownerKey).catch(() => undefined);
      throw error;
    }
    return granted;
  }

  /** Extends a lock (LOCK without a body): null when there is no such live lock. */
  async refresh(userId: string, token: string, timeout: number): Promise<DavLock | null> {
    const { index, owners } = await this.open();
    let refreshed: DavLock | null = null;
    await modify(index, userId, (current) => {
      const locks = this.live(current);
      const lock = locks.find((l) => l.token === token);
      if (!lock) return undefined;
      refreshed = { ...lock, timeout, expires: this.now() + timeout * 1000 };
      return { locks: locks.map((l) => (l.token === token ? refreshed! : l)) };
    });
    // the owner's entry lives as long as its last write: written again, it outlives the lock
    if ((refreshed as DavLock | null)?.owned)
      await modify(owners, this.ownerKey(userId, token), (current) => (current ? { ...current } : undefined));
    return refreshed;
  }

  /** Removes a lock: false when there was no such live lock. */
  async release(userId: string, token: string): Promise<boolean> {
    const { index, owners } = await this.open();
    let found = false;
    await modify(index, userId, (current) => {
      const locks = this.live(current);
      found = locks.some((l) => l.token === token);
      return found ? { locks: locks.filter((l) => l.token !== token) } : undefined;
    });
    if (found) await owners.delete(this.ownerKey(userId, token));
    return found;
  }

  /** Forgets the locks on `path` and below it (the resource was deleted or moved away). */
  async forget(userId: string, path: string): Promise<void> {
    const { index, owners } = await this.open();
    let gone: DavLock[] = [];
    await modify(index, userId, (current) => {
      const locks = this.live(current);
      gone = locks.filter((l) => l.path === path || below(l, path));
      return gone.length ? { locks: locks.filter((l) => !gone.includes(l)) } : undefined;
    });
    for (const lock of gone) if (lock.owned) await owners.delete(this.ownerKey(userId, lock.token));
  }
}
