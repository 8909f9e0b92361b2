/**
 * A group member's plan follows the group's plan. Whoever writes membership or a group plan calls
 * `adoptGroupPlan` after its own append: it reads the group stream (not the read model) and puts
 * the member on the plan found there. A plan change pages members only once its own event is in
 * the read model, so for every member either the member's writer sees the new plan or the plan
 * change sees the member: concurrent joins, creates and plan changes converge.
 *
 * One interleaving needs more: a writer that read the group before its latest plan change, and
 * the latest change's own pass that finds the member already on the new plan and so writes
 * nothing. The user stream's expected revision cannot catch that (nothing was appended to it), and
 * the stale writer would then put the member back on the old plan. So a writer checks the group
 * again after its own write and adopts again while the group has changed since it read it.
 */
import { Streams } from '@burrow/contracts';
import { loadAggregate } from '@burrow/eventsourcing';
import type { AccountsContext } from '../context.js';
import { changeUser } from '../users/change-user.js';
import { groupDecider } from './group.js';

/** Puts the user on the group's current plan if still a member; the last position written, or null. */
export async function adoptGroupPlan(
  ctx: AccountsContext,
  partnerId: string,
  userId: string,
  groupId: number,
  reason: string,
): Promise<number | null> {
  const stream = Streams.group(groupId);
  let position: number | null = null;
  for (;;) {
    let read: number | null = null;
    const written = await changeUser(
      ctx,
      partnerId,
      userId,
      async (state) => {
        read = null;
        if (state.group_id !== groupId) return {};
        const { state: group, revision } = await loadAggregate(ctx.store, stream, groupDecider);
        read = revision;
        return group.exists && !group.deleted ? { plan_id: group.plan_id } : {};
      },
      { reason },
    );
    position = written ?? position;
    // nothing written, or the group unchanged since the plan was read: the member is on it
    if (written === null || read === null || (await ctx.store.streamRevision(stream)) === read) return position;
  }
}
