/**
 * A group member's plan follows the group's plan. Whoever writes membership or a group plan calls
 * `adoptGroupPlan` after its own append: it reads the group stream (not the read model) and puts
 * the member on the plan found there. A plan change pages members only once its own event is in
 * the read model, so for every member either the member's writer sees the new plan or the plan
 * change sees the member: concurrent joins, creates and plan changes converge.
 */
import { Streams } from '@burrow/contracts';
import { loadAggregate } from '@burrow/eventsourcing';
import type { AccountsContext } from '../shared/context.js';
import { changeUser } from '../users/change-user.js';
import { groupDecider } from './group.js';

/** Puts the user on the group's current plan if still a member; the position written, or null. */
export function adoptGroupPlan(ctx: AccountsContext, partnerId: string, userId: string, groupId: number, reason: string): Promise<number | null> {
  return changeUser(
    ctx,
    partnerId,
    userId,
    async (state) => {
      if (state.group_id !== groupId) return {};
      const { state: group } = await loadAggregate(ctx.store, Streams.group(groupId), groupDecider);
      return group.exists && !group.deleted ? { plan_id: group.plan_id } : {};
    },
    { reason },
  );
}
