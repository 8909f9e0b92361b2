/** Bus handlers for groups: list, create, read, change (name, plan, policy), delete with move_to. */
import {
  badRequest,
  conflict,
  type Group,
  type GroupChanges,
  notFound,
  paymentRequired,
  type PartnerScoped,
  Streams,
  Subjects,
} from '@burrow/contracts';
import { handleCommand, loadAggregate } from '@burrow/eventsourcing';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { randomUUID } from 'node:crypto';
import { type PartnerDoc, partnersCollection } from '../partners/partners.projection.js';
import { planMap, requirePlan } from '../plans/plans.projection.js';
import { allocatedBytes } from '../reservations/allocation-ledger.js';
import { nextId } from '../reservations/counter.js';
import { nameKey, releaseName, reserveName } from '../reservations/reservation.js';
import { ACCOUNTS_CONTEXT, type AccountsContext } from '../shared/context.js';
import { changeUser } from '../users/user-writes.js';
import { allocationOf, type UserDoc, usersCollection } from '../users/users.projection.js';
import { groupDecider } from './group.js';
import { findGroup, groupsCollection, toGroup } from './groups.projection.js';
import { adoptGroupPlan } from './member-plan.js';

const MEMBER_PAGE = 1000;
const MAX_GROUPS = 10_000;
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

@Controller()
export class GroupsHandlers {
  constructor(@Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext) {}

  private async partner(partnerId: string): Promise<PartnerDoc> {
    const p = await partnersCollection(this.ctx.docs).get(partnerId);
    if (!p) throw notFound('no such partner');
    return p;
  }

  private async requireGroup(partnerId: string, groupId: number) {
    const group = await findGroup(this.ctx.docs, partnerId, groupId);
    if (!group) throw notFound(`no group ${groupId}`);
    return group;
  }

  /** Members, a page at a time, so a huge group is never loaded whole. */
  private async *members(partnerId: string, groupId: number): AsyncGenerator<UserDoc> {
    for (let skip = 0; ; skip += MEMBER_PAGE) {
      const page = await usersCollection(this.ctx.docs).find({ partnerId, group_id: groupId }, { sort: { username: 1 }, skip, limit: MEMBER_PAGE });
      yield* page;
      if (page.length < MEMBER_PAGE) return;
    }
  }

  @MessagePattern(Subjects.accounts.listGroups)
  async list(@Payload() { partnerId, search }: PartnerScoped & { search?: string }): Promise<Group[]> {
    const filter: Record<string, unknown> = { partnerId };
    if (search) filter.name = { $regex: escapeRegex(search), $options: 'i' };
    // bounded like every list; the spec's group list has no paging parameters
    return (await groupsCollection(this.ctx.docs).find(filter, { sort: { group_id: 1 }, limit: MAX_GROUPS })).map(toGroup);
  }

  @MessagePattern(Subjects.accounts.getGroup)
  async get(@Payload() { partnerId, group_id }: PartnerScoped & { group_id: number }): Promise<Group> {
    return toGroup(await this.requireGroup(partnerId, group_id));
  }

  @MessagePattern(Subjects.accounts.createGroup)
  async create(
    @Payload() req: PartnerScoped & { name: string; plan_id: number; webapi_enable?: boolean; check_domain?: boolean },
  ): Promise<Group> {
    await this.partner(req.partnerId);
    await requirePlan(this.ctx.docs, req.plan_id);
    const owner = randomUUID();
    const nameStream = Streams.reservation('groupname', `${req.partnerId}-${nameKey(req.name)}`);
    await reserveName(this.ctx.store, nameStream, owner, 'name');
    try {
      const groupId = await nextId(this.ctx.store, Streams.counter('group_id'));
      const result = await handleCommand(this.ctx.store, Streams.group(groupId), groupDecider, {
        type: 'CreateGroup',
        data: { groupId, partnerId: req.partnerId, name: req.name, plan_id: req.plan_id, webapi_enable: req.webapi_enable ?? true, check_domain: req.check_domain ?? false },
      });
      await this.ctx.runner.waitFor(result.position);
      return toGroup(await this.requireGroup(req.partnerId, groupId));
    } catch (error) {
      await releaseName(this.ctx.store, nameStream, owner);
      throw error;
    }
  }

  @MessagePattern(Subjects.accounts.updateGroup)
  async update(@Payload() { partnerId, group_id, changes }: PartnerScoped & { group_id: number; changes: GroupChanges }): Promise<Group> {
    const partner = await this.partner(partnerId);
    const group = await this.requireGroup(partnerId, group_id);
    let lastPosition: number | null = null;

    const planChange = changes.plan_id !== undefined && changes.plan_id !== group.plan_id;
    if (planChange) {
      const plan = await requirePlan(this.ctx.docs, changes.plan_id!);
      const plans = await planMap(this.ctx.docs);
      let delta = 0;
      let overQuota = false;
      for await (const member of this.members(partnerId, group_id)) {
        if (member.bytes_stored > plan.storage_bytes + member.bonus_bytes) overQuota = true;
        delta += allocationOf(plan, member.bonus_bytes) - allocationOf(plans.get(member.plan_id), member.bonus_bytes);
      }
      if (overQuota && !changes.force) {
        throw conflict('members would exceed their quota under the new plan (use force)', ['avatars_over_quota']);
      }
      if (delta > 0 && partner.bytes_available !== null && (await allocatedBytes(this.ctx.store, partnerId)) + delta > partner.bytes_available) {
        throw paymentRequired('plan change would make the allocation exceed the bytes available');
      }
    }

    let renamedFrom: string | null = null;
    const owner = randomUUID();
    const newNameStream = changes.name !== undefined ? Streams.reservation('groupname', `${partnerId}-${nameKey(changes.name)}`) : '';
    if (changes.name !== undefined && nameKey(changes.name) !== nameKey(group.name)) {
      await reserveName(this.ctx.store, newNameStream, owner, 'name');
      renamedFrom = group.name;
    }
    // The read model may lag the stream: whether the plan changed is decided by what was appended.
    let planChanged = planChange;
    try {
      const result = await handleCommand(this.ctx.store, Streams.group(group_id), groupDecider, {
        type: 'ChangeGroup',
        name: changes.name,
        plan_id: changes.plan_id,
        webapi_enable: changes.webapi_enable,
        check_domain: changes.check_domain,
      });
      lastPosition = result.position;
      planChanged ||= result.events.some((e) => e.type === 'GroupPlanChanged');
    } catch (error) {
      if (renamedFrom !== null) await releaseName(this.ctx.store, newNameStream, owner);
      throw error;
    }
    if (renamedFrom !== null) {
      await this.releaseGroupName(partnerId, renamedFrom);
    }
    if (planChanged) {
      // every member written before our event is in the read model before we page it (member-plan.ts)
      await this.ctx.runner.waitFor(lastPosition);
      lastPosition = (await this.reconcileMembers(partner, group_id)) ?? lastPosition;
    }
    await this.ctx.runner.waitFor(lastPosition);
    return toGroup(await this.requireGroup(partnerId, group_id));
  }

  /** The old name's reservation has some earlier owner: release whatever holds it. */
  private async releaseGroupName(partnerId: string, name: string): Promise<void> {
    const stream = Streams.reservation('groupname', `${partnerId}-${nameKey(name)}`);
    const [last] = await this.ctx.store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    if (last?.type === 'NameReserved') await releaseName(this.ctx.store, stream, last.data.owner as string);
  }

  /**
   * Sets every member's plan to the group's plan as it stands when that member is written. Each
   * member write re-reads the group after reading the user, and appends with the user's expected
   * revision, so concurrent plan changes on one group converge on the group's final plan.
   */
  private async reconcileMembers(partner: PartnerDoc, groupId: number): Promise<number | null> {
    let position: number | null = null;
    for await (const member of this.members(partner._id, groupId)) {
      position = (await adoptGroupPlan(this.ctx, partner, member._id, groupId, `group ${groupId} plan`)) ?? position;
    }
    return position;
  }

  @MessagePattern(Subjects.accounts.deleteGroup)
  async delete(@Payload() { partnerId, group_id, move_to }: PartnerScoped & { group_id: number; move_to?: number }): Promise<null> {
    const partner = await this.partner(partnerId);
    const group = await this.requireGroup(partnerId, group_id);
    const hasMembers = (await usersCollection(this.ctx.docs).count({ partnerId, group_id })) > 0;
    let target = null;
    if (move_to !== undefined) {
      if (move_to === group_id) throw badRequest('move_to must name another group', ['move_to']);
      target = await findGroup(this.ctx.docs, partnerId, move_to);
      if (!target) throw badRequest(`move_to: no group ${move_to}`, ['move_to']);
    } else if (hasMembers) {
      throw conflict('group has users; supply move_to', ['move_to']);
    }
    const result = await handleCommand(this.ctx.store, Streams.group(group_id), groupDecider, { type: 'DeleteGroup', move_to: move_to ?? null });
    let position = result.position;
    if (target) {
      // Moving members shrinks the set we page over, so always take the first page again, after
      // waiting for the read model to show the moves already made.
      const targetId = target.group_id;
      for (;;) {
        const page = await usersCollection(this.ctx.docs).find({ partnerId, group_id }, { sort: { username: 1 }, limit: MEMBER_PAGE });
        if (page.length === 0) break;
        for (const member of page) {
          const p = await changeUser(
            this.ctx,
            partner,
            member._id,
            async (state) => {
              if (state.group_id !== group_id) return {};
              const { state: t } = await loadAggregate(this.ctx.store, Streams.group(targetId), groupDecider);
              return { group_id: targetId, plan_id: t.exists && !t.deleted ? t.plan_id : undefined };
            },
            { enforceQuota: false, reason: `group ${group_id} deleted` },
          );
          position = (await adoptGroupPlan(this.ctx, partner, member._id, targetId, `group ${group_id} deleted`)) ?? p ?? position;
        }
        await this.ctx.runner.waitFor(position);
      }
    }
    await this.releaseGroupName(partnerId, group.name);
    await this.ctx.runner.waitFor(position);
    return null;
  }
}
