/** Bus handlers for groups: list, create, read, change (name, plan, policy), delete with move_to. */
import {
  badRequest,
  conflict,
  type CreateGroupRequest,
  decideAll,
  type DeleteGroupRequest,
  type Group,
  type GroupRef,
  MAX_GROUPS,
  notFound,
  type PartnerScoped,
  paymentRequired,
  Streams,
  Subjects,
  type UpdateGroupRequest,
} from '@burrow/contracts';
import { handleCommand, loadAggregate, retryOnConflict } from '@burrow/eventsourcing';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { requireDevicePolicy } from '../read-models/device-policies.projection.js';
import { requirePartner } from '../partners/partners.projection.js';
import { planMap, requirePlan } from '../plans/plans.projection.js';
import { allocatedBytes, allocationOf } from '../quota/allocation.js';
import { ACCOUNTS_CONTEXT, type AccountsContext } from '../context.js';
import { usersCollection } from '../read-models/users.projection.js';
import { type GroupCommand, groupDecider } from './group.js';
import { groupMembers } from './group-members.js';
import { createGroupProcess, deleteGroupProcess, updateGroupProcess } from './group-processes.js';
import { findGroup, groupsCollection, toGroup } from '../read-models/groups.projection.js';
import { nameKey } from '@burrow/eventsourcing';

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

@Controller()
export class GroupsHandlers {
  constructor(@Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext) {}

  private async requireGroup(partnerId: string, groupId: number) {
    const group = await findGroup(this.ctx.docs, partnerId, groupId);
    if (!group) throw notFound(`no group ${groupId}`);
    return group;
  }

  @MessagePattern(Subjects.accounts.listGroups)
  async list(@Payload() { partnerId, search }: PartnerScoped & { search?: string }): Promise<Group[]> {
    const filter: Record<string, unknown> = { partnerId };
    if (search) filter.name = { $regex: escapeRegex(search), $options: 'i' };
    // bounded like every list; the spec's group list has no paging parameters
    return (await groupsCollection(this.ctx.docs).find(filter, { sort: { group_id: 1 }, limit: MAX_GROUPS })).map(
      toGroup,
    );
  }

  /** One group; while a plan change is reaching its members, how many are left (`plan_members_pending`). */
  @MessagePattern(Subjects.accounts.getGroup)
  async get(@Payload() { partnerId, group_id }: GroupRef): Promise<Group> {
    const group = toGroup(await this.requireGroup(partnerId, group_id));
    if (group.plan_status !== 'updating') return group;
    return {
      ...group,
      plan_members_pending: await usersCollection(this.ctx.docs).count({
        partnerId,
        group_id,
        plan_id: { $ne: group.plan_id },
      }),
    };
  }

  @MessagePattern(Subjects.accounts.createGroup)
  async create(@Payload() req: CreateGroupRequest): Promise<Group> {
    await requirePartner(this.ctx.docs, req.partnerId);
    await requirePlan(this.ctx.docs, req.plan_id);
    if (req.device_policy != null) await requireDevicePolicy(this.ctx.docs, req.partnerId, req.device_policy);
    const { data } = await this.ctx.processes.run(
      createGroupProcess(this.ctx),
      { partnerId: req.partnerId, name: req.name },
      {
        plan_id: req.plan_id,
        webapi_enable: req.webapi_enable ?? true,
        check_domain: req.check_domain ?? false,
        device_policy: req.device_policy ?? null,
      },
    );
    return toGroup(await this.requireGroup(req.partnerId, data.groupId!));
  }

  @MessagePattern(Subjects.accounts.updateGroup)
  async update(@Payload() { partnerId, group_id, changes }: UpdateGroupRequest): Promise<Group> {
    const partner = await requirePartner(this.ctx.docs, partnerId);
    const group = await this.requireGroup(partnerId, group_id);
    if (changes.device_policy != null) await requireDevicePolicy(this.ctx.docs, partnerId, changes.device_policy);

    const planChange = changes.plan_id !== undefined && changes.plan_id !== group.plan_id;
    if (planChange) {
      const plan = await requirePlan(this.ctx.docs, changes.plan_id!);
      const plans = await planMap(this.ctx.docs);
      let delta = 0;
      let overQuota = false;
      for await (const member of groupMembers(this.ctx, partnerId, group_id)) {
        if (member.bytes_stored > plan.storage_bytes + member.bonus_bytes) overQuota = true;
        delta += allocationOf(plan, member.bonus_bytes) - allocationOf(plans.get(member.plan_id), member.bonus_bytes);
      }
      if (overQuota && !changes.force) {
        throw conflict('members would exceed their quota under the new plan (use force)', ['avatars_over_quota']);
      }
      if (
        delta > 0 &&
        partner.bytes_available !== null &&
        (await allocatedBytes(this.ctx.store, partnerId)) + delta > partner.bytes_available
      ) {
        throw paymentRequired('plan change would make the allocation exceed the bytes available');
      }
    }
    const rename = changes.name !== undefined && nameKey(changes.name) !== nameKey(group.name);
    const commands: GroupCommand[] = [];
    if (changes.name !== undefined) commands.push({ type: 'RenameGroup', name: changes.name });
    if (changes.plan_id !== undefined) commands.push({ type: 'ChangeGroupPlan', plan_id: changes.plan_id });
    if (changes.webapi_enable !== undefined || changes.check_domain !== undefined) {
      commands.push({
        type: 'SetGroupPolicy',
        webapi_enable: changes.webapi_enable,
        check_domain: changes.check_domain,
      });
    }
    if (changes.device_policy !== undefined)
      commands.push({ type: 'SetGroupDevicePolicy', device_policy: changes.device_policy });

    // A plan named in the request is a possible plan change even when the read model says otherwise
    // (it may lag the stream): the process reconciles members if its append changed the plan.
    if (!rename && changes.plan_id === undefined) {
      await this.ctx.runner.waitFor(
        (await handleCommand(this.ctx.store, Streams.group(group_id), groupDecider, commands)).position,
      );
    } else {
      // The commit appends at the revision the change was decided on, which recovery claims if the
      // process dies before it; a lost race undoes the steps and decides again on the new state.
      await retryOnConflict('group', async () => {
        const { state, revision } = await loadAggregate(this.ctx.store, Streams.group(group_id), groupDecider);
        const events = decideAll(groupDecider, commands, state);
        if (events.length === 0 || revision === null) return;
        const data = {
          partnerId,
          groupId: group_id,
          revision,
          renameFrom: rename ? group.name : null,
          renameTo: rename ? changes.name! : null,
          planChange: changes.plan_id !== undefined,
        };
        await this.ctx.processes.run(updateGroupProcess(this.ctx), data, { events });
      });
    }
    return toGroup(await this.requireGroup(partnerId, group_id));
  }

  @MessagePattern(Subjects.accounts.deleteGroup)
  async delete(@Payload() { partnerId, group_id, move_to }: DeleteGroupRequest): Promise<null> {
    await requirePartner(this.ctx.docs, partnerId);
    const group = await this.requireGroup(partnerId, group_id);
    const hasMembers = (await usersCollection(this.ctx.docs).count({ partnerId, group_id })) > 0;
    if (move_to !== undefined) {
      if (move_to === group_id) throw badRequest('move_to must name another group', ['move_to']);
      if (!(await findGroup(this.ctx.docs, partnerId, move_to)))
        throw badRequest(`move_to: no group ${move_to}`, ['move_to']);
    } else if (hasMembers) {
      throw conflict('group has users; supply move_to', ['move_to']);
    }
    await this.ctx.processes.run(deleteGroupProcess(this.ctx), {
      partnerId,
      groupId: group_id,
      name: group.name,
      moveTo: move_to ?? null,
    });
    return null;
  }
}
