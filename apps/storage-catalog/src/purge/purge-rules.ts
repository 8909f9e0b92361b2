/**
 * When data may be purged, as pure functions of a partner's purge settings and the clock (unix
 * seconds), so the rules read in one place (docs/decisions.md "Purging"):
 * - a partner whose latest deletion (of a file, a folder or a device, by any of its users) is
 *   less than `purgehold_duration` seconds ago purges nothing;
 * - a deleted file is due `autopurge_interval` days after its deletion (0 or null: never);
 * - an old version of a live file is due `versionpurge_interval` days after a newer version
 *   replaced it (0 or null: kept).
 */

export const DAY_SECONDS = 86_400;

/** What the purger knows of a partner (its settings and the latest deletion in the enterprise). */
export interface PurgePolicy {
  autopurge_interval: number | null;
  purgehold_duration: number | null;
  versionpurge_interval: number | null;
  /** the latest deletion anywhere in the enterprise, unix seconds (null: none yet) */
  last_deletion_at: number | null;
}

/**
 * The settings a partner has before changing any: as `apps/accounts/src/partners/settings.ts`
 * (`DEFAULT_SETTINGS`) declares them. An app cannot import another app, so they are repeated here.
 */
export const DEFAULT_PURGE_POLICY: PurgePolicy = {
  autopurge_interval: 0,
  purgehold_duration: 0,
  versionpurge_interval: null,
  last_deletion_at: null,
};

const positive = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n) && n > 0;

/** True while a deletion in the enterprise is within `purgehold_duration` seconds of `now`. */
export function partnerOnHold(policy: PurgePolicy, now: number): boolean {
  if (!positive(policy.purgehold_duration) || policy.last_deletion_at === null) return false;
  return now < policy.last_deletion_at + policy.purgehold_duration;
}

/** Files deleted at or before this time are due; null when autopurge is off. */
export function autopurgeCutoff(policy: PurgePolicy, now: number): number | null {
  return positive(policy.autopurge_interval) ? now - policy.autopurge_interval * DAY_SECONDS : null;
}

/** Old versions superseded at or before this time are due; null when old versions are kept. */
export function versionpurgeCutoff(policy: PurgePolicy, now: number): number | null {
  return positive(policy.versionpurge_interval) ? now - policy.versionpurge_interval * DAY_SECONDS : null;
}
