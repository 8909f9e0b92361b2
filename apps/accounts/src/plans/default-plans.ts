/**
 * The plans created at first start: from BURROW_PLANS_FILE (a JSON list of
 * {name, storage_bytes, promo?}) when set, else these defaults. An unlimited plan is always present,
 * because clients expect one.
 */
import { UNLIMITED_BYTES } from '@burrow/contracts';
import { readFile } from 'node:fs/promises';
import type { PlanDefinition } from './plan-catalogue.js';

const GB = 1_000_000_000;

export const DEFAULT_PLANS: PlanDefinition[] = [
  { name: '100 GB', storage_bytes: 100 * GB, promo: false },
  { name: '1 TB', storage_bytes: 1000 * GB, promo: false },
  { name: '5 TB', storage_bytes: 5000 * GB, promo: false },
  { name: '2 TB promotion', storage_bytes: 2000 * GB, promo: true },
  { name: 'Unlimited', storage_bytes: UNLIMITED_BYTES, promo: false },
];

export async function loadInitialPlans(file?: string): Promise<PlanDefinition[]> {
  if (!file) return DEFAULT_PLANS;
  const parsed = JSON.parse(await readFile(file, 'utf8')) as unknown;
  if (!Array.isArray(parsed) || parsed.length === 0)
    throw new Error(`BURROW_PLANS_FILE ${file}: expected a non-empty JSON list`);
  const plans = parsed.map((p, i) => {
    const ok =
      (p && typeof p.name === 'string' && Number.isSafeInteger(p.storage_bytes)) ||
      p?.storage_bytes === UNLIMITED_BYTES;
    if (!ok || p.storage_bytes < 0)
      throw new Error(`BURROW_PLANS_FILE ${file}: entry ${i} needs a name and a non-negative integer storage_bytes`);
    return { name: p.name as string, storage_bytes: p.storage_bytes as number, promo: Boolean(p.promo) };
  });
  if (!plans.some((p) => p.storage_bytes === UNLIMITED_BYTES)) plans.push(DEFAULT_PLANS[DEFAULT_PLANS.length - 1]);
  return plans;
}
