/**
 * The failed-login policy as pure decisions over small counter records (no I/O, time passed in,
 * milliseconds). `LoginThrottle` stores the records in the key-value store and applies these.
 *
 * Every attempt is counted *before* its password is checked, as if it were going to fail, and
 * uncounted when it succeeds: so concurrent attempts cannot all slip past a nearly spent budget.
 *
 * - Per account: failures from addresses the account has not logged in from are counted in a
 *   window. The attempt that reaches the threshold locks the account (unless it succeeds). After a
 *   lock ends one attempt is let through; if it fails, the account is locked again for twice as
 *   long, up to a cap. A success resets it all; so does a window without failures (the record
 *   expires).
 * - Per address: failures from one address over every account, in a short window.
 * - A known address (the account logged in from it recently) is not held by the account's lock,
 *   which other addresses cause; it has its own small budget for this account instead.
 *
 * The numbers are `LOGIN_POLICY` (libs/contracts), which the OpenAPI document quotes.
 */
import type { LoginPolicy } from '@burrow/contracts';

const DAY = 24 * 60 * 60_000;

/** Failures of one account from addresses it is not known at. */
export interface AccountRecord {
  failures: number;
  /** start of the counting window */
  since: number;
  /** locks so far (forgotten with the record, or reset by a success) */
  lockouts: number;
  lockedUntil: number;
}

/** Failures from one address, over every account. */
export interface AddressRecord {
  failures: number;
  since: number;
}

/** One account's memory of one address: when it last logged in from there, and its failures since. */
export interface KnownAddressRecord {
  seenAt: number;
  failures: number;
  since: number;
}

/** A decision: go ahead (with the record to store, if any), or wait `waitMs`. */
export type Reservation<R> = { ok: true; next: R } | { ok: false; waitMs: number };

export const lockDuration = (policy: LoginPolicy, lockout: number) =>
  Math.min(policy.account.firstLockMs * 2 ** (lockout - 1), policy.account.maxLockMs);

/** Reserve one attempt against an account. */
export function reserveAccount(
  policy: LoginPolicy,
  record: AccountRecord | null,
  now: number,
): Reservation<AccountRecord> {
  const r = record ?? { failures: 0, since: now, lockouts: 0, lockedUntil: 0 };
  if (r.lockedUntil > now) return { ok: false, waitMs: r.lockedUntil - now };
  if (r.lockouts > 0) {
    // after a lock: this one attempt may try; unless it succeeds, the next, longer lock has begun
    const lockouts = r.lockouts + 1;
    return { ok: true, next: { failures: 0, since: now, lockouts, lockedUntil: now + lockDuration(policy, lockouts) } };
  }
  const current = now - r.since >= policy.account.windowMs ? { ...r, failures: 0, since: now } : r;
  const failures = current.failures + 1;
  if (failures >= policy.account.threshold) {
    return { ok: true, next: { failures: 0, since: now, lockouts: 1, lockedUntil: now + lockDuration(policy, 1) } };
  }
  return { ok: true, next: { ...current, failures } };
}

/** Whether an account is locked now, for an attempt that would not count (credentials already verified). */
export function accountWait(record: AccountRecord | null, now: number): number {
  return record && record.lockedUntil > now ? record.lockedUntil - now : 0;
}

/** A budget of `threshold` failures per fixed window, for an address or a known address. */
function reserveInWindow<R extends { failures: number; since: number }>(
  record: R,
  limit: { threshold: number; windowMs: number },
  now: number,
): Reservation<R> {
  const current = now - record.since >= limit.windowMs ? { ...record, failures: 0, since: now } : record;
  if (current.failures >= limit.threshold) return { ok: false, waitMs: current.since + limit.windowMs - now };
  return { ok: true, next: { ...current, failures: current.failures + 1 } };
}

function windowWait(
  record: { failures: number; since: number } | null,
  limit: { threshold: number; windowMs: number },
  now: number,
): number {
  if (!record || now - record.since >= limit.windowMs || record.failures < limit.threshold) return 0;
  return record.since + limit.windowMs - now;
}

export const reserveAddress = (policy: LoginPolicy, record: AddressRecord | null, now: number) =>
  reserveInWindow(record ?? { failures: 0, since: now }, policy.address, now);

export const addressWait = (policy: LoginPolicy, record: AddressRecord | null, now: number) =>
  windowWait(record, policy.address, now);

/** Gives back an address reservation (the attempt succeeded, or was refused for another reason). */
export function releaseAddress(record: AddressRecord | null, reservedSince: number): AddressRecord | undefined {
  if (!record || record.since !== reservedSince || record.failures === 0) return undefined;
  return { ...record, failures: record.failures - 1 };
}

export const isKnown = (
  policy: LoginPolicy,
  record: KnownAddressRecord | null,
  now: number,
): record is KnownAddressRecord => record !== null && now - record.seenAt < policy.knownAddress.rememberMs;

export const reserveKnownAddress = (policy: LoginPolicy, record: KnownAddressRecord, now: number) =>
  reserveInWindow(record, policy.knownAddress, now);

export const knownAddressWait = (policy: LoginPolicy, record: KnownAddressRecord, now: number) =>
  windowWait(record, policy.knownAddress, now);

/** How long a known address is not refreshed on every login (saves a write per request). */
export const KNOWN_REFRESH_MS = DAY;

/** The record after a successful login from this address, or undefined when the stored one will do. */
export function knownAfterSuccess(
  policy: LoginPolicy,
  record: KnownAddressRecord | null,
  now: number,
): KnownAddressRecord | undefined {
  if (isKnown(policy, record, now) && record.failures === 0 && now - record.seenAt < KNOWN_REFRESH_MS) return undefined;
  return { seenAt: now, failures: 0, since: now };
}
