/**
 * Read model of groups, one document per live group. `plan_change` names the process of a plan
 * change whose members are still being moved to the plan (it runs on after the reply:
 * group-processes.ts), until its `GroupMemberPlansApplied`; the record shows it as `plan_status`.
 */
import { type Group, type GroupCreated, StreamPrefixes } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import { type Projection, dataOf } from '@burrow/eventsourcing';

export interface GroupDoc extends Group {
  _id: string;
  partnerId: string;
  /** the process whose plan change has not reached every member yet, or null */
  plan_change?: string | null;
  [key: string]: unknown;
}

export const groupsCollection = (docs: DocumentStore) => docs.collection<GroupDoc>('groups');

export const toGroup = ({ _id, partnerId, plan_change, ...group }: GroupDoc): Group => ({
  ...group,
  plan_status: plan_change ? 'updating' : 'current',
});

export const groupsProjection = (): Projection => ({
  name: 'groups',
  prefixes: [StreamPrefixes.group],
  async init(docs) {
    await groupsCollection(docs).ensureIndex({ partnerId: 1 });
    // a device policy cannot be deleted while a group uses it
    await groupsCollection(docs).ensureIndex({ partnerId: 1, device_policy: 1 });
  },
  async apply(event, docs) {
    const groups = groupsCollection(docs);
    const id = event.stream.slice(StreamPrefixes.group.length);
    const d = event.data;
    if (event.type === 'GroupCreated') {
      const c = dataOf<GroupCreated>(event);
      await groups.upsert({
        _id: id,
        partnerId: c.partnerId,
        group_id: c.groupId,
        name: c.name,
        plan_id: c.plan_id,
        webapi_enable: c.webapi_enable,
        check_domain: c.check_domain,
        device_policy: c.device_policy ?? null,
      });
      return;
    }
    const group = await groups.get(id);
    if (!group) return;
    switch (event.type) {
      case 'GroupRenamed':
        group.name = d.name as string;
        break;
      case 'GroupPlanChanged':
        group.plan_id = d.plan_id as number;
        group.plan_change =
          event.metadata.membersFollow === true ? ((event.metadata.processId as string | undefined) ?? null) : null;
        break;
      case 'GroupMemberPlansApplied':
        if (group.plan_change !== d.processId) return;
        group.plan_change = null;
        break;
      case 'GroupPolicyChanged':
        group.webapi_enable = d.webapi_enable as boolean;
        group.check_domain = d.check_domain as boolean;
        break;
      case 'GroupDevicePolicyChanged':
        group.device_policy = d.device_policy as number | null;
        break;
      case 'GroupDeleted':
        await groups.delete(id);
        return;
      default:
        return;
    }
    await groups.upsert(group);
  },
});

/** The partner's live group, or null (another partner's group is as good as absent). */
export async function findGroup(docs: DocumentStore, partnerId: string, groupId: number): Promise<GroupDoc | null> {
  const group = await groupsCollection(docs).get(String(groupId));
  return group && group.partnerId === partnerId ? group : null;
}
