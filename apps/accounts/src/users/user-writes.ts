/**
 * Changing a user, with the allocation ledger kept exact: read the user, work out the changes,
 * append the allocation delta, then append the user's events expecting the revision read. If the
 * user changed in between, the delta is given back and the whole step is redone.
 */
import { notFound, serviceUnavailable, Streams } from '@burrow/contracts';
import { loadAggregate, SCHEMA_VERSION } from '@burrow/eventsourcing';
import { WrongExpectedRevisionError } from '@burrow/event-store';
import type { PartnerDoc } from '../partners/partners.projection.js';
import { planMap } from '../plans/plans.projection.js';
import { allocate } from '../reservations/allocation-ledger.js';
import type { AccountsContext } from '../shared/context.js';
import { type ResolvedUserChanges, userDecider, type UserState } from './user.js';
import { allocationOf } from './users.projection.js';

export interface ChangeUserOptions {
  /** refuse with 402 when the change would allocate more than the partner has */
  enforceQuota: boolean;
  reason: string;
  refusal?: string;
}

export async function changeUser(
  ctx: AccountsContext,
  partner: PartnerDoc,
  userId: string,
  resolve: (state: UserState) => Promise<ResolvedUserChanges> | ResolvedUserChanges,
  options: ChangeUserOptions,
): Promise<number | null> {
  const stream = Streams.user(userId);
  for (let attempt = 1; attempt <= 25; attempt++) {
    const { state, revision } = await loadAggregate(ctx.store, stream, userDecider);
    if (!state.exists || state.deleted || state.partnerId !== partner._id) throw notFound('no such user');
    const changes = await resolve(state);
    const events = userDecider.decide({ type: 'ChangeUser', changes }, state);
    if (events.length === 0) return null;
    const next = events.reduce(userDecider.evolve, state);
    const plans = await planMap(ctx.docs);
    const delta = allocationOf(plans.get(next.plan_id), next.bonus_bytes) - allocationOf(plans.get(state.plan_id), state.bonus_bytes);
    await allocate(ctx.store, partner._id, delta, { bytesAvailable: partner.bytes_available, enforce: options.enforceQuota, reason: options.reason, refusal: options.refusal });
    try {
      const result = await ctx.store.append(
        stream,
        events.map((e) => ({ type: e.type, data: e.data as Record<string, unknown>, metadata: { schemaVersion: SCHEMA_VERSION } })),
        revision ?? 'no_stream',
      );
      return result.position;
    } catch (error) {
      await allocate(ctx.store, partner._id, -delta, { bytesAvailable: partner.bytes_available, enforce: false, reason: 'retry' });
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(20, attempt)));
    }
  }
  throw serviceUnavailable('too much contention on this user; retry');
}
