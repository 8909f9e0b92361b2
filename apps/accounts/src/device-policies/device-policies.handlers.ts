/**
 * Bus handlers for device policies: list, create, read, change, delete, and the preference
 * catalogue. Every write goes through the partner's policy-set aggregate and replies once the read
 * model includes it (read-your-writes).
 */
import {
  conflict,
  type CreateDevicePolicyRequest,
  DEVICE_PREFERENCE_CATEGORIES,
  type DevicePolicy,
  type DevicePolicyRef,
  MAX_DEVICE_POLICIES,
  notFound,
  type PartnerScoped,
  type PreferenceCategory,
  Streams,
  Subjects,
  type UpdateDevicePolicyRequest,
} from '@burrow/contracts';
import { handleCommand, nextId } from '@burrow/eventsourcing';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { groupsCollection } from '../read-models/groups.projection.js';
import { requirePartner } from '../partners/partners.projection.js';
import { ACCOUNTS_CONTEXT, type AccountsContext } from '../context.js';
import {
  devicePoliciesCollection,
  type DevicePolicyDoc,
  findDevicePolicy,
} from '../read-models/device-policies.projection.js';
import { type DevicePolicyCommand, devicePolicySetDecider, POLICY_IN_USE } from './device-policy-set.js';
import { effectivePolicy } from './effective-policy.js';

const toDevicePolicy = (doc: DevicePolicyDoc, lookup: (id: number) => DevicePolicyDoc | undefined): DevicePolicy => ({
  id: doc.id,
  name: doc.name,
  inherits_from: doc.inherits_from,
  policy: doc.policy,
  effective_policy: effectivePolicy(doc, lookup),
});

@Controller()
export class DevicePoliciesHandlers {
  constructor(@Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext) {}

  /** All of the partner's policies, by id (bounded: the decider caps how many a partner has). */
  private async all(partnerId: string): Promise<Map<number, DevicePolicyDoc>> {
    const docs = await devicePoliciesCollection(this.ctx.docs).find(
      { partnerId },
      { sort: { id: 1 }, limit: MAX_DEVICE_POLICIES },
    );
    return new Map(docs.map((d) => [d.id, d]));
  }

  private async read(partnerId: string, id: number): Promise<DevicePolicy> {
    const policies = await this.all(partnerId);
    const doc = policies.get(id);
    if (!doc) throw notFound(`no device policy ${id}`);
    return toDevicePolicy(doc, (parent) => policies.get(parent));
  }

  private async apply(partnerId: string, commands: DevicePolicyCommand | DevicePolicyCommand[]): Promise<void> {
    const { position } = await handleCommand(
      this.ctx.store,
      Streams.devicePolicies(partnerId),
      devicePolicySetDecider,
      commands,
    );
    await this.ctx.runner.waitFor(position);
  }

  @MessagePattern(Subjects.accounts.listDevicePreferences)
  preferences(): PreferenceCategory[] {
    return DEVICE_PREFERENCE_CATEGORIES;
  }

  @MessagePattern(Subjects.accounts.listDevicePolicies)
  async list(@Payload() { partnerId }: PartnerScoped): Promise<DevicePolicy[]> {
    const policies = await this.all(partnerId);
    return [...policies.values()].map((doc) => toDevicePolicy(doc, (parent) => policies.get(parent)));
  }

  @MessagePattern(Subjects.accounts.getDevicePolicy)
  get(@Payload() { partnerId, id }: DevicePolicyRef): Promise<DevicePolicy> {
    return this.read(partnerId, id);
  }

  @MessagePattern(Subjects.accounts.createDevicePolicy)
  async create(@Payload() req: CreateDevicePolicyRequest): Promise<DevicePolicy> {
    await requirePartner(this.ctx.docs, req.partnerId);
    // an id taken by a create the decider then refuses is a gap, as with group ids
    const policyId = await nextId(this.ctx.store, Streams.counter('device_policy_id'));
    const data = {
      policyId,
      partnerId: req.partnerId,
      name: req.name,
      inherits_from: req.inherits_from ?? null,
      policy: req.policy ?? {},
      at: this.ctx.clock.now(),
    };
    await this.apply(req.partnerId, { type: 'CreateDevicePolicy', data });
    return this.read(req.partnerId, policyId);
  }

  @MessagePattern(Subjects.accounts.updateDevicePolicy)
  async update(@Payload() { partnerId, id, changes }: UpdateDevicePolicyRequest): Promise<DevicePolicy> {
    if (!(await findDevicePolicy(this.ctx.docs, partnerId, id))) throw notFound(`no device policy ${id}`);
    const at = this.ctx.clock.now();
    const commands: DevicePolicyCommand[] = [];
    if (changes.name !== undefined) commands.push({ type: 'RenameDevicePolicy', policyId: id, name: changes.name, at });
    if (changes.inherits_from !== undefined)
      commands.push({ type: 'ChangeDevicePolicyInheritance', policyId: id, inherits_from: changes.inherits_from, at });
    if (changes.policy !== undefined)
      commands.push({ type: 'SetDevicePolicyValues', policyId: id, policy: changes.policy, at });
    if (commands.length) await this.apply(partnerId, commands);
    return this.read(partnerId, id);
  }

  /**
   * Refused while a group uses the policy (checked on the groups read model) or another policy
   * inherits from it (decided on the aggregate).
   */
  @MessagePattern(Subjects.accounts.deleteDevicePolicy)
  async delete(@Payload() { partnerId, id }: DevicePolicyRef): Promise<null> {
    if (!(await findDevicePolicy(this.ctx.docs, partnerId, id))) throw notFound(`no device policy ${id}`);
    const users = await groupsCollection(this.ctx.docs).find(
      { partnerId, device_policy: id },
      { sort: { group_id: 1 }, limit: 5 },
    );
    if (users.length) {
      throw conflict(
        `device policy ${id} is used by group ${users.map((g) => g.group_id).join(', ')}${users.length === 5 ? ' and maybe more' : ''}`,
        POLICY_IN_USE('device_policy'),
      );
    }
    await this.apply(partnerId, { type: 'DeleteDevicePolicy', policyId: id, at: this.ctx.clock.now() });
    return null;
  }
}
