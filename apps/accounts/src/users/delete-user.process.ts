/**
 * Deleting a user: `UserDeleted` is the first step and the commit point; what follows (giving the
 * user's allocation back to the partner, freeing the username and email) is redone by recovery if
 * the process dies after it. Nothing before the commit point needs undoing.
 */
import { Streams } from '@burrow/contracts';
import { defineWorkflow, handleCommand, loadAggregate, toDomainEvent } from '@burrow/eventsourcing';
import { planMap } from '../plans/plans.projection.js';
import { allocationOf, ensureAllocation } from '../quota/allocation.js';
import type { AccountsContext } from '../context.js';
import { releaseLoginNames } from './name-reservations.js';
import { userDecider, type UserState } from './user.js';
import type { UserEvent } from '@burrow/contracts';

export interface DeleteUserProcess {
  userId: string;
  partnerId: string;
  ledgerFrom: number | null;
}

/** The user as they were just before `UserDeleted` (what they held is what goes back). */
async function stateBeforeDeletion(ctx: AccountsContext, userId: string): Promise<UserState | null> {
  const recorded = await ctx.store.readStream(Streams.user(userId));
  let state = userDecider.initialState;
  for (const e of recorded) {
    if (e.type === 'UserDeleted') return state;
    state = userDecider.evolve(state, toDomainEvent<UserEvent>(e));
  }
  return null;
}

export const deleteUserProcess = (ctx: AccountsContext) =>
  defineWorkflow<DeleteUserProcess>({
    kind: 'DeleteUser',
    // the first step: an abandoned delete changed nothing, there is nothing to undo
    async commit({ id, data }) {
      const command = { type: 'DeleteUser' as const, at: ctx.clock.now() };
      return (
        await handleCommand(ctx.store, Streams.user(data.userId), userDecider, command, { metadata: { processId: id } })
      ).position;
    },
    async settle(data) {
      const { state } = await loadAggregate(ctx.store, Streams.user(data.userId), userDecider);
      return state.deleted ? 'committed' : 'abandoned';
    },
    async complete(data, processId) {
      const held = await stateBeforeDeletion(ctx, data.userId);
      if (!held) return;
      const plans = await planMap(ctx.docs);
      await ensureAllocation(ctx.store, {
        partnerId: data.partnerId,
        delta: -allocationOf(plans.get(held.plan_id), held.bonus_bytes),
        ref: processId,
        reason: `delete ${data.userId}`,
        after: data.ledgerFrom,
      });
      await releaseLoginNames(ctx.store, data.userId, held.username, held.email);
    },
  });
