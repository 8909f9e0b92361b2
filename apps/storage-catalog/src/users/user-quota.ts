/**
 * A user's quota as a write checks it: plan + bonus bytes (null: unlimited), waiting for the read
 * model once if the user is brand new (created a moment ago through accounts).
 */
import type { StorageContext } from '../shared/context.js';
import { quotaOf, requireUser } from './users.projection.js';

export async function userQuota(ctx: StorageContext, userId: string): Promise<number | null> {
  try {
    return await quotaOf(ctx.docs, await requireUser(ctx.docs, userId));
  } catch {
    await ctx.runner.catchUp();
    return quotaOf(ctx.docs, await requireUser(ctx.docs, userId));
  }
}
