/**
 * Changing a user, with the allocation ledger kept exact. A change that moves no bytes and takes
 * no new email is one append. Otherwise it is a multi-step write (`ChangeUser` process): reserve
 * the new email (a login name: refused when it is any user's username too, name-reservations.ts),
 * append the allocation delta, then append the user's events expecting the revision read (the
 * commit point), then release the old email (unless it is still the user's username). If the user changed in between,
 * the steps are undone and the whole change is redone on the new state. Recovery claims that
 * revision with `UserChangeAbandoned` when the commit never happened.
 */
import { notFound, Streams, type UserChangeAbandoned } from '@burrow/contracts';
import {
  appendEvents,
  claimRevision,
  defineWorkflow,
  type DomainEvent,
  loadAggregate,
  releaseName,
  retryOnConflict,
} from '@burrow/eventsourcing';
import { planMap } from '../plans/plans.projection.js';
import { allocationOf, allocationRevision, ensureAllocation, undoAllocation } from '../quota/allocation.js';
import type { AccountsContext } from '../context.js';
import { emailReservation, reserveEmail, sameLoginName } from './name-reservations.js';
import { type ResolvedUserChanges, userCommands, userDecider, type UserState } from './user.js';
import { decideAll } from '@burrow/contracts';

export interface ChangeUserOptions {
  /** refuse with 402 when the change would allocate more than this (null: unlimited; undefined: never refuse) */
  limit?: number | null;
  reason: string;
  refusal?: string;
}

export interface ChangeUserProcess {
  userId: string;
  partnerId: string;
  /** the user stream's revision the change was decided on */
  revision: number;
  delta: number;
  ledgerFrom: number | null;
  newEmail: string | null;
  oldEmail: string | null;
  reason: string;
}

/** What only the request has: the user's events it decided, and the limit to refuse past. */
export interface ChangeUserInput {
  events: DomainEvent[];
  limit?: number | null;
  refusal?: string;
}

/**
 * Frees the user's hold on an email stream they no longer need. The user's current username or
 * email may be that same name (an email changed back, or a username with `@` that is the old
 * email, which holds that stream as a login name): then it stays held.
 */
async function releaseUnlessHeld(ctx: AccountsContext, stream: string, userId: string, name: string): Promise<void> {
  const { state } = await loadAggregate(ctx.store, Streams.user(userId), userDecider);
  if (state.exists && !state.deleted && sameLoginName(name, state.username, state.email)) return;
  await releaseName(ctx.store, stream, userId);
}

export const changeUserProcess = (ctx: AccountsContext) =>
  defineWorkflow<ChangeUserProcess, ChangeUserInput>({
    kind: 'ChangeUser',
    // the callers compose writes (join a group, then take its plan; every member of a group) and wait once
    readYourWrites: false,
    steps: [
      {
        name: 'reserve-email',
        when: (data) => data.newEmail !== null,
        run: ({ data }) => reserveEmail(ctx.store, data.newEmail!, data.userId),
        undo: (data) => releaseUnlessHeld(ctx, emailReservation(data.newEmail!), data.userId, data.newEmail!),
      },
      {
        name: 'allocate',
        run: ({ id, data, input }) =>
          ensureAllocation(ctx.store, {
            partnerId: data.partnerId,
            delta: data.delta,
            ref: id,
            reason: data.reason,
            after: data.ledgerFrom,
            limit: input.limit,
            refusal: input.refusal,
          }),
        undo: (data, processId) => undoAllocation(ctx.store, data.partnerId, processId, data.ledgerFrom),
      },
    ],
    async commit({ id, data, input }) {
      return (await appendEvents(ctx.store, Streams.user(data.userId), input.events, data.revision, { processId: id }))
        .position;
    },
    settle(data, processId) {
      const marker: UserChangeAbandoned = { type: 'UserChangeAbandoned', data: { processId, at: ctx.clock.now() } };
      return claimRevision(ctx.store, Streams.user(data.userId), data.revision, processId, marker);
    },
    async complete(data) {
      if (data.oldEmail) await releaseUnlessHeld(ctx, emailReservation(data.oldEmail), data.userId, data.oldEmail);
    },
  });

/**
 * Applies the changes `resolve` works out from the user's current state; the position written,
 * or null when nothing changed. 404 for a user of another partner or none.
 */
export function changeUser(
  ctx: AccountsContext,
  partnerId: string,
  userId: string,
  resolve: (state: UserState) => Promise<ResolvedUserChanges> | ResolvedUserChanges,
  options: ChangeUserOptions,
): Promise<number | null> {
  const stream = Streams.user(userId);
  const definition = changeUserProcess(ctx);
  return retryOnConflict('user', async () => {
    const { state, revision } = await loadAggregate(ctx.store, stream, userDecider);
    if (!state.exists || state.deleted || state.partnerId !== partnerId || revision === null)
      throw notFound('no such user');
    const events = decideAll(userDecider, userCommands(await resolve(state)), state);
    if (events.length === 0) return null;
    const next = events.reduce(userDecider.evolve, state);
    const plans = await planMap(ctx.docs);
    const delta =
      allocationOf(plans.get(next.plan_id), next.bonus_bytes) -
      allocationOf(plans.get(state.plan_id), state.bonus_bytes);
    const emailChanged = next.email.toLowerCase() !== state.email.toLowerCase();
    if (delta === 0 && !emailChanged) return (await appendEvents(ctx.store, stream, events, revision)).position;

    // a lost race on the user stream (the commit point) undoes the steps and is retried from the top
    const { position } = await ctx.processes.run(
      definition,
      {
        userId,
        partnerId,
        revision,
        delta,
        ledgerFrom: await allocationRevision(ctx.store, partnerId),
        newEmail: emailChanged ? next.email : null,
        oldEmail: emailChanged ? state.email : null,
        reason: options.reason,
      },
      { events, limit: options.limit, refusal: options.refusal },
    );
    return position;
  });
}
