/**
 * Creating a user spans streams: the username and email reservations, the partner's allocation
 * ledger, and the new `user-<id>` stream. `UserCreated` (appended expecting no stream) is the
 * commit point; recovery claims it with `UserCreationAbandoned` when it never happened.
 */
import { Streams, type UserCreationAbandoned } from '@burrow/contracts';
import { claimNewStream, type ProcessDefinition, releaseName } from '@burrow/eventsourcing';
import { adoptGroupPlan } from '../groups/member-plan.js';
import { undoAllocation } from '../quota/allocation.js';
import type { AccountsContext } from '../shared/context.js';
import { emailReservation, usernameReservation } from './name-reservations.js';

export interface CreateUserProcess {
  userId: string;
  partnerId: string;
  username: string;
  email: string;
  /** the allocation ledger's revision before the write */
  ledgerFrom: number | null;
  /** the group whose plan the user takes (it may change while the user is created), or null */
  adoptPlanOf: number | null;
}

export const createUserProcess = (ctx: AccountsContext): ProcessDefinition<CreateUserProcess> => ({
  kind: 'CreateUser',
  // bulk imports create users one after another: one fsync per create, not one per step
  deferDurability: true,
  settle(data) {
    const marker: UserCreationAbandoned = { type: 'UserCreationAbandoned', data: { at: ctx.clock.now() } };
    return claimNewStream(ctx.store, Streams.user(data.userId), marker, 'UserCreated');
  },
  async complete(data) {
    // The group's plan may have changed since it was read (member-plan.ts).
    if (data.adoptPlanOf !== null) await adoptGroupPlan(ctx, data.partnerId, data.userId, data.adoptPlanOf, `create ${data.userId}`);
    // A new account starts clean: failed logins counted against a deleted account of the same
    // username or email are not its own (best effort: when the throttle store is down, logins are too).
    await ctx.logins.unlock('user', data.username).catch(() => undefined);
    await ctx.logins.unlock('user', data.email).catch(() => undefined);
  },
  async compensate(data, processId) {
    await undoAllocation(ctx.store, data.partnerId, processId, data.ledgerFrom);
    await releaseName(ctx.store, emailReservation(data.email), data.userId);
    await releaseName(ctx.store, usernameReservation(data.username), data.userId);
  },
});
