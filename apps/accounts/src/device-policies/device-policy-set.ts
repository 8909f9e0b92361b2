/**
 * The device policies of one partner as one aggregate (stream `devicepolicies-<partnerId>`): the
 * rules that span policies (unique names, inheritance from a live policy, no cycles, no deleting a
 * policy another inherits from) are decided against one state and appended with one expected
 * revision, so two concurrent changes cannot together make a cycle or orphan a child. The state
 * keeps the structure only; the preference values ride on the events for the read model.
 */
import {
  type Command,
  conflict,
  type Decider,
  type DevicePolicyCreated,
  type DevicePolicyEvent,
  MAX_DEVICE_POLICIES,
  notFound,
  type PolicyValues,
} from '@burrow/contracts';

export interface PolicyNode {
  name: string;
  inherits_from: number | null;
  /** canonical JSON of the own values, to tell a change from a repeat */
  values: string;
}

export interface DevicePolicySetState {
  /** the live policies, by id */
  policies: Readonly<Record<number, PolicyNode>>;
}

export type CreateDevicePolicy = Command<'CreateDevicePolicy', { data: DevicePolicyCreated['data'] }>;
export type RenameDevicePolicy = Command<'RenameDevicePolicy', { policyId: number; name: string; at: number }>;
export type ChangeDevicePolicyInheritance = Command<
  'ChangeDevicePolicyInheritance',
  { policyId: number; inherits_from: number | null; at: number }
>;
export type SetDevicePolicyValues = Command<
  'SetDevicePolicyValues',
  { policyId: number; policy: PolicyValues; at: number }
>;
export type DeleteDevicePolicy = Command<'DeleteDevicePolicy', { policyId: number; at: number }>;
export type DevicePolicyCommand =
  CreateDevicePolicy | RenameDevicePolicy | ChangeDevicePolicyInheritance | SetDevicePolicyValues | DeleteDevicePolicy;

/**
 * The conflicts of a refused delete: the management appliance recognises a policy in use only by
 * `policy_id` (its PolicyInUse); the more precise token says why.
 */
export const POLICY_IN_USE = (why: 'inherits_from' | 'device_policy'): string[] => ['policy_id', why];

const nameKey = (name: string) => name.trim().toLowerCase();

/** Values as canonical JSON (keys sorted), so `{a, b}` and `{b, a}` are the same values. */
export const canonicalValues = (policy: PolicyValues): string =>
  JSON.stringify(Object.fromEntries(Object.entries(policy).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));

function requireLive(state: DevicePolicySetState, policyId: number): PolicyNode {
  const node = state.policies[policyId];
  if (!node) throw notFound(`no device policy ${policyId}`);
  return node;
}

function requireFreeName(state: DevicePolicySetState, name: string, except?: number): void {
  const key = nameKey(name);
  for (const [id, node] of Object.entries(state.policies)) {
    if (Number(id) !== except && nameKey(node.name) === key)
      throw conflict('a device policy with that name exists', ['name']);
  }
}

/** The parent must be a live policy of this partner, and `policyId` must not be among its ancestors. */
function requireParent(state: DevicePolicySetState, policyId: number, parent: number | null): void {
  if (parent === null) return;
  if (!state.policies[parent]) throw conflict(`inherits_from: no device policy ${parent}`, ['inherits_from']);
  // the chain is acyclic (every change was checked), so the walk ends within the number of policies
  for (let at: number | null = parent; at !== null; at = state.policies[at]?.inherits_from ?? null) {
    if (at === policyId)
      throw conflict(`inherits_from: policy ${policyId} would inherit from itself (a cycle through ${parent})`, [
        'inherits_from',
      ]);
  }
}

export const devicePolicySetDecider: Decider<DevicePolicySetState, DevicePolicyCommand, DevicePolicyEvent> = {
  initialState: { policies: {} },
  decide(command, state) {
    switch (command.type) {
      case 'CreateDevicePolicy': {
        const d = command.data;
        if (state.policies[d.policyId]) return [];
        if (Object.keys(state.policies).length >= MAX_DEVICE_POLICIES) {
          throw conflict(`a partner has at most ${MAX_DEVICE_POLICIES} device policies; delete one first`, []);
        }
        requireFreeName(state, d.name);
        requireParent(state, d.policyId, d.inherits_from);
        return [{ type: 'DevicePolicyCreated', data: d }];
      }
      case 'RenameDevicePolicy': {
        const node = requireLive(state, command.policyId);
        if (node.name === command.name) return [];
        requireFreeName(state, command.name, command.policyId);
        return [
          { type: 'DevicePolicyRenamed', data: { policyId: command.policyId, name: command.name, at: command.at } },
        ];
      }
      case 'ChangeDevicePolicyInheritance': {
        const node = requireLive(state, command.policyId);
        if (node.inherits_from === command.inherits_from) return [];
        requireParent(state, command.policyId, command.inherits_from);
        return [
          {
            type: 'DevicePolicyInheritanceChanged',
            data: { policyId: command.policyId, inherits_from: command.inherits_from, at: command.at },
          },
        ];
      }
      case 'SetDevicePolicyValues': {
        const node = requireLive(state, command.policyId);
        if (node.values === canonicalValues(command.policy)) return [];
        return [
          {
            type: 'DevicePolicyValuesSet',
            data: { policyId: command.policyId, policy: command.policy, at: command.at },
          },
        ];
      }
      case 'DeleteDevicePolicy': {
        requireLive(state, command.policyId);
        const children = Object.entries(state.policies)
          .filter(([, n]) => n.inherits_from === command.policyId)
          .map(([id]) => Number(id));
        if (children.length) {
          throw conflict(
            `device policy ${command.policyId} is inherited from by ${children.map((id) => `policy ${id}`).join(', ')}`,
            POLICY_IN_USE('inherits_from'),
          );
        }
        return [{ type: 'DevicePolicyDeleted', data: { policyId: command.policyId, at: command.at } }];
      }
    }
  },
  evolve(state, event) {
    const id = event.data.policyId;
    const set = (node: PolicyNode | null): DevicePolicySetState => {
      const policies = { ...state.policies };
      if (node) policies[id] = node;
      else delete policies[id];
      return { policies };
    };
    if (event.type === 'DevicePolicyCreated') {
      return set({
        name: event.data.name,
        inherits_from: event.data.inherits_from,
        values: canonicalValues(event.data.policy),
      });
    }
    const current = state.policies[id];
    if (!current) return state;
    switch (event.type) {
      case 'DevicePolicyRenamed':
        return set({ ...current, name: event.data.name });
      case 'DevicePolicyInheritanceChanged':
        return set({ ...current, inherits_from: event.data.inherits_from });
      case 'DevicePolicyValuesSet':
        return set({ ...current, values: canonicalValues(event.data.policy) });
      case 'DevicePolicyDeleted':
        return set(null);
      default:
        return state;
    }
  },
};
