/**
 * Which quota threshold a user's stored bytes are at, and what a change of it is worth telling the
 * partner: the highest of 80/90/100 percent reached (0: under all of them), and the crossing from
 * one level to another (a jump over several reports the last threshold crossed).
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

export function crossing(from: QuotaLevel, to: QuotaLevel): { threshold: Threshold; direction: 'up' | 'down' } | null {
  if (from === to) return null;
  if (to > from) return { threshold: to as Threshold, direction: 'up' };
  // down: the lowest threshold the bytes fell under
  const under = QUOTA_THRESHOLDS.filter((t) => t > to && t <= from);
  return { threshold: under[0], direction: 'down' };
}
