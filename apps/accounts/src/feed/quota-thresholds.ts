/**
 * Which quota threshold a user's stored bytes are at, and what a change of it is worth telling the
 * partner: the highest of 80/90/100 percent reached (0: under all of them), and the crossings from
 * one level to another (a jump over several reports each threshold, in the order crossed).
 */
import { QUOTA_THRESHOLDS, UNLIMITED_BYTES } from '@burrow/contracts';

export type QuotaLevel = 0 | (typeof QUOTA_THRESHOLDS)[number];
export type Threshold = (typeof QUOTA_THRESHOLDS)[number];

export function quotaLevel(bytesStored: number, storageBytes: number): QuotaLevel {
  // an unlimited plan has no thresholds
  if (storageBytes >= UNLIMITED_BYTES) return 0;
  if (storageBytes <= 0) return bytesStored > 0 ? 100 : 0;
  let level: QuotaLevel = 0;
  for (const t of QUOTA_THRESHOLDS) if (bytesStored * 100 >= t * storageBytes) level = t;
  return level;
}

export interface Crossing {
  threshold: Threshold;
  direction: 'up' | 'down';
}

/** Every threshold between two levels, in the order the bytes crossed them: up the ones reached, down the ones fallen under. */
export function crossings(from: QuotaLevel, to: QuotaLevel): Crossing[] {
  if (to > from)
    return QUOTA_THRESHOLDS.filter((t) => t > from && t <= to).map((threshold) => ({
      threshold,
      direction: 'up' as const,
    }));
  return QUOTA_THRESHOLDS.filter((t) => t > to && t <= from)
    .reverse()
    .map((threshold) => ({ threshold, direction: 'down' as const }));
}
