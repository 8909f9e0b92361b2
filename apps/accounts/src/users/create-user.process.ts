/**
 * Creating a user spans streams: the login-name reservations (the username, the email, and a
 * username with `@` in the email streams too: name-reservations.ts), the partner's allocation
 * ledger, and the new `user-<id>` stream. `UserCreated` (appended expecting no stream) is the
 * commit point; recovery claims it with `UserCreationAbandoned` when it never happened.
 */
import { Streams, type UserCreated, type UserCreationAbandoned } from '@burrow/contracts';
import { claimNewStream, defineWorkflow, handleCommand, nextId, releaseName, reserveName } from '@burrow/eventsourcing';
import { adoptGroupPlan } from '../groups/member-plan.js';
import { ensureAllocation, undoAllocation } from '../quota/allocation.js';
import type { AccountsContext } from '../context.js';
import { emailReservation, mayBeEmail, reserveEmail, usernameReservation } from './name-reservations.js';
import { type CreateUser, userDecider } from './user.js';

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

/** What only the request knows (the password hash is never recorded in the process). */
export interface CreateUserInput {
  user: Pick<UserCreated['data'], 'name' | 'plan_id' | 'group_id' | 'bonus_bytes' | 'creation_time' | 'passwordHash'>;
  enabled: boolean;
  purgehold_active: boolean;
  /** the bytes the user's plan and bonus allocate, and the partner's limit (null: unlimited) */
  allocation: number;
  limit: number | null;
}

export const createUserProcess = (ctx: AccountsContext) =>
  defineWorkflow<CreateUserProcess, CreateUserInput>({
    kind: 'CreateUser',
    // bulk imports create users one after another: one fsync per create, not one per step
    // (the steps and the commit append through the deferred store; the end is durable)
    deferDurability: true,
    steps: [
      // one login namespace (name-reservations.ts): a username with @ holds its email stream too
      {
        name: 'reserve-username',
        run: ({ data, store }) => reserveName(store, usernameReservation(data.username), data.userId, 'username'),
        undo: (data) => releaseName(ctx.store, usernameReservation(data.username), data.userId),
      },
      {
        name: 'reserve-username-as-email',
        when: (data) => mayBeEmail(data.username),
        run: ({ data, store }) => reserveName(store, emailReservation(data.username), data.userId, 'username'),
        undo: (data) => releaseName(ctx.store, emailReservation(data.username), data.userId),
      },
      {
        name: 'reserve-email',
        run: ({ data, store }) => reserveEmail(store, data.email, data.userId),
        undo: (data) => releaseName(ctx.store, emailReservation(data.email), data.userId),
      },
      {
        name: 'allocate',
        run: ({ id, data, input, store }) =>
          ensureAllocation(store, {
            partnerId: data.partnerId,
            delta: input.allocation,
            ref: id,
            reason: `create ${data.userId}`,
            after: data.ledgerFrom,
            limit: input.limit,
            refusal: 'payment required',
          }),
        undo: (data, processId) => undoAllocation(ctx.store, data.partnerId, processId, data.ledgerFrom),
      },
    ],
    async commit({ id, data, input, store }) {
      const { userId, partnerId, username, email } = data;
      const { name, plan_id, group_id, bonus_bytes, creation_time, passwordHash } = input.user;
      const avatar_id = await nextId(store, Streams.counter('avatar_id'));
      const created = {
        userId,
        partnerId,
        username,
        name,
        email,
        plan_id,
        group_id,
        bonus_bytes,
        avatar_id,
        share_id: username,
        creation_time,
        passwordHash,
      };
      const command: CreateUser = {
        type: 'CreateUser',
        data: created,
        enabled: input.enabled,
        purgehold_active: input.purgehold_active,
      };
      return (await handleCommand(store, Streams.user(userId), userDecider, command, { metadata: { processId: id } }))
        .position;
    },
    settle(data) {
      const marker: UserCreationAbandoned = { type: 'UserCreationAbandoned', data: { at: ctx.clock.now() } };
      return claimNewStream(ctx.store, Streams.user(data.userId), marker, 'UserCreated');
    },
    async complete(data) {
      // The group's plan may have changed since it was read (member-plan.ts).
      const adopted =
        data.adoptPlanOf === null
          ? null
          : await adoptGroupPlan(ctx, data.partnerId, data.userId, data.adoptPlanOf, `create ${data.userId}`);
      // A new account starts clean: failed logins counted against a deleted account of the same
      // username or email are not its own (best effort: when the throttle store is down, logins are too).
      await ctx.logins.unlock('user', data.username).catch(() => undefined);
      await ctx.logins.unlock('user', data.email).catch(() => undefined);
      return adopted;
    },
  });
