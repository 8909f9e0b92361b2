/**
 * The group writes that span streams, as multi-step writes (WriteProcess):
 * - CreateGroup: reserve the name, allocate the id, `GroupCreated` (commit point; recovery claims
 *   it with `GroupCreationAbandoned`), or release the name.
 * - UpdateGroup (a rename and/or a plan change): reserve the new name, append the changes at the
 *   revision they were decided on (commit point; recovery claims it with `GroupChangeAbandoned`),
 *   then release the old name and put every member on the new plan, and say so
 *   (`GroupMemberPlansApplied`: the group's `plan_status` is `current` again).
 * - DeleteGroup: `GroupDeleted` first (commit point), then move the members and free the name.
 *
 * A plan change, and a delete that moves members, answer at the commit point and put the members
 * on their new plan after the reply (`completeAfterReply`, issue 39): a group of 10,000 members is
 * acknowledged in well under a second, and no group write waits for its members within the bus
 * timeout. Until they are all moved the group reads `plan_status: updating` (GET of the group says
 * how many members are left); a crash meanwhile leaves the process pending, which recovery
 * completes.
 */
import {
  type GroupChangeAbandoned,
  type GroupCreated,
  type GroupCreationAbandoned,
  type GroupMemberPlansApplied,
  Streams,
} from '@burrow/contracts';
import {
  appendEvents,
  claimNewStream,
  claimRevision,
  defineWorkflow,
  type DomainEvent,
  handleCommand,
  loadAggregate,
  nameKey,
  nextId,
  releaseName,
  reservationHolder,
  reserveName,
} from '@burrow/eventsourcing';
import type { AccountsContext } from '../context.js';
import { groupDecider } from './group.js';
import { moveMembers, reconcileMemberPlans } from './group-members.js';

export const groupNameReservation = (partnerId: string, name: string) =>
  Streams.reservation('groupname', `${partnerId}-${nameKey(name)}`);

/** Frees a name the group no longer has, whoever reserved it (groups made before processes had random owners). */
async function releaseFormerName(
  ctx: AccountsContext,
  partnerId: string,
  groupId: number,
  name: string,
): Promise<void> {
  const { state } = await loadAggregate(ctx.store, Streams.group(groupId), groupDecider);
  if (!state.deleted && state.exists && nameKey(state.name) === nameKey(name)) return;
  const stream = groupNameReservation(partnerId, name);
  const holder = await reservationHolder(ctx.store, stream);
  if (holder) await releaseName(ctx.store, stream, holder);
}

/** The events this process appended to the group's stream (a group stream stays short). */
const appendedBy = async (ctx: AccountsContext, groupId: number, processId: string) =>
  (await ctx.store.readStream(Streams.group(groupId))).filter((e) => e.metadata.processId === processId);

export interface CreateGroupProcess {
  partnerId: string;
  name: string;
  /** noted once allocated */
  groupId?: number;
}

/** What only the request has: the new group's settings. */
export type CreateGroupInput = Omit<GroupCreated['data'], 'groupId' | 'partnerId' | 'name'>;

export const createGroupProcess = (ctx: AccountsContext) =>
  defineWorkflow<CreateGroupProcess, CreateGroupInput>({
    kind: 'CreateGroup',
    steps: [
      {
        // owned by the process: the group id is not known yet
        name: 'reserve-name',
        run: ({ id, data }) => reserveName(ctx.store, groupNameReservation(data.partnerId, data.name), id, 'name'),
        undo: (data, processId) => releaseName(ctx.store, groupNameReservation(data.partnerId, data.name), processId),
      },
      {
        name: 'allocate-id',
        run: () => nextId(ctx.store, Streams.counter('group_id')),
        noted: (groupId: number) => ({ groupId }),
      },
    ],
    async commit({ id, data, input }) {
      const { groupId, partnerId, name } = data;
      const command = { type: 'CreateGroup' as const, data: { groupId: groupId!, partnerId, name, ...input } };
      return (
        await handleCommand(ctx.store, Streams.group(groupId!), groupDecider, command, { metadata: { processId: id } })
      ).position;
    },
    async settle(data) {
      // no id noted: the process died before it could create anything
      if (data.groupId === undefined) return 'abandoned';
      const marker: GroupCreationAbandoned = { type: 'GroupCreationAbandoned', data: { at: ctx.clock.now() } };
      return claimNewStream(ctx.store, Streams.group(data.groupId), marker, 'GroupCreated');
    },
  });

export interface UpdateGroupProcess {
  partnerId: string;
  groupId: number;
  /** the group stream's revision the change was decided on (its commit appends expecting it) */
  revision: number;
  renameFrom: string | null;
  renameTo: string | null;
  /** the request named a plan: members are reconciled if the commit changed it */
  planChange: boolean;
}

export const updateGroupProcess = (ctx: AccountsContext) =>
  defineWorkflow<UpdateGroupProcess, { events: DomainEvent[] }>({
    kind: 'UpdateGroup',
    steps: [
      {
        name: 'reserve-name',
        when: (data) => data.renameTo !== null,
        run: ({ id, data }) => reserveName(ctx.store, groupNameReservation(data.partnerId, data.renameTo!), id, 'name'),
        undo: (data, processId) =>
          releaseName(ctx.store, groupNameReservation(data.partnerId, data.renameTo!), processId),
      },
    ],
    async commit({ id, data, input }) {
      // `membersFollow`: the group's plan_status is `updating` until `GroupMemberPlansApplied`
      // (events written before members followed after the reply have no such promise to keep)
      const metadata = data.planChange ? { processId: id, membersFollow: true } : { processId: id };
      return (await appendEvents(ctx.store, Streams.group(data.groupId), input.events, data.revision, metadata))
        .position;
    },
    completeAfterReply: (data) => data.planChange,
    settle(data, processId) {
      const marker: GroupChangeAbandoned = { type: 'GroupChangeAbandoned', data: { processId, at: ctx.clock.now() } };
      return claimRevision(ctx.store, Streams.group(data.groupId), data.revision, processId, marker);
    },
    async complete(data, processId) {
      if (data.renameFrom !== null) await releaseFormerName(ctx, data.partnerId, data.groupId, data.renameFrom);
      const planChanged = data.planChange
        ? (await appendedBy(ctx, data.groupId, processId)).find((e) => e.type === 'GroupPlanChanged')
        : undefined;
      if (planChanged) {
        // every member written before the plan change is in the read model before we page it
        await ctx.runner.catchUp();
        await ctx.runner.waitFor(await reconcileMemberPlans(ctx, data.partnerId, data.groupId));
        const applied: GroupMemberPlansApplied = {
          type: 'GroupMemberPlansApplied',
          data: { plan_id: planChanged.data.plan_id as number, processId },
        };
        return (await appendEvents(ctx.store, Streams.group(data.groupId), [applied], 'any', { processId })).position;
      }
    },
  });

export interface DeleteGroupProcess {
  partnerId: string;
  groupId: number;
  name: string;
  moveTo: number | null;
}

export const deleteGroupProcess = (ctx: AccountsContext) =>
  defineWorkflow<DeleteGroupProcess>({
    kind: 'DeleteGroup',
    completeAfterReply: (data) => data.moveTo !== null,
    // the first step: an abandoned delete changed nothing, there is nothing to undo
    async commit({ id, data }) {
      const command = { type: 'DeleteGroup' as const, move_to: data.moveTo };
      return (
        await handleCommand(ctx.store, Streams.group(data.groupId), groupDecider, command, {
          metadata: { processId: id },
        })
      ).position;
    },
    async settle(data) {
      const { state } = await loadAggregate(ctx.store, Streams.group(data.groupId), groupDecider);
      return state.deleted ? 'committed' : 'abandoned';
    },
    async complete(data) {
      if (data.moveTo !== null)
        await ctx.runner.waitFor(await moveMembers(ctx, data.partnerId, data.groupId, data.moveTo));
      await releaseFormerName(ctx, data.partnerId, data.groupId, data.name);
    },
  });
