/**
 * Work over a group's members, a page at a time so a huge group is never loaded whole: putting
 * every member on the group's plan, and moving every member out of a deleted group. Both are
 * convergent and safe to run again, which is what lets recovery redo them after a crash.
 */
import { Streams } from '@burrow/contracts';
import { loadAggregate } from '@burrow/eventsourcing';
import type { AccountsContext } from '../context.js';
import { changeUser } from '../users/change-user.js';
import { type UserDoc, usersCollection } from '../read-models/users.projection.js';
import { groupDecider } from './group.js';
import { adoptGroupPlan } from './member-plan.js';

export const MEMBER_PAGE = 1000;

export async function* groupMembers(ctx: AccountsContext, partnerId: string, groupId: number): AsyncGenerator<UserDoc> {
  for (let skip = 0; ; skip += MEMBER_PAGE) {
    const page = await usersCollection(ctx.docs).find(
      { partnerId, group_id: groupId },
      { sort: { username: 1 }, skip, limit: MEMBER_PAGE },
    );
    yield* page;
    if (page.length < MEMBER_PAGE) return;
  }
}

/**
 * Sets every member's plan to the group's plan as it stands when that member is written. Each
 * member write re-reads the group after reading the user, and appends with the user's expected
 * revision, so concurrent plan changes on one group converge on the group's final plan.
 */
export async function reconcileMemberPlans(
  ctx: AccountsContext,
  partnerId: string,
  groupId: number,
): Promise<number | null> {
  let position: number | null = null;
  for await (const member of groupMembers(ctx, partnerId, groupId)) {
    position = (await adoptGroupPlan(ctx, partnerId, member._id, groupId, `group ${groupId} plan`)) ?? position;
  }
  return position;
}

/** Moves every member of a deleted group into `targetId`, on the target's plan. */
export async function moveMembers(
  ctx: AccountsContext,
  partnerId: string,
  groupId: number,
  targetId: number,
): Promise<number | null> {
  let position: number | null = null;
  // Moving members shrinks the set we page over, so always take the first page again, after
  // waiting for the read model to show the moves already made: by anyone, not only by us. Two
  // replicas recovering one DeleteGroup at once move the same members; a member another one
  // moved is a no-op here (no position), and waiting only for our own writes would re-read the
  // same stale page at once, forever: every await in that loop settles without giving the event
  // loop a turn, so the projection runner (a timer) never gets to apply the other replica's moves.
  // Waiting for the store's head covers both, and yields to the runner.
  for (;;) {
    const page = await usersCollection(ctx.docs).find(
      { partnerId, group_id: groupId },
      { sort: { username: 1 }, limit: MEMBER_PAGE },
    );
    if (page.length === 0) return position;
    for (const member of page) {
      const moved = await changeUser(
        ctx,
        partnerId,
        member._id,
        async (state) => {
          if (state.group_id !== groupId) return {};
          const { state: target } = await loadAggregate(ctx.store, Streams.group(targetId), groupDecider);
          return { group_id: targetId, plan_id: target.exists && !target.deleted ? target.plan_id : undefined };
        },
        { reason: `group ${groupId} deleted` },
      );
      position =
        (await adoptGroupPlan(ctx, partnerId, member._id, targetId, `group ${groupId} deleted`)) ?? moved ?? position;
    }
    await ctx.runner.waitFor(Math.max(position ?? 0, await ctx.store.headPosition()));
  }
}
