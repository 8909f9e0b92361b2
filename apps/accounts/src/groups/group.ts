/** The group aggregate (stream `group-<groupId>`): one command per intent. Membership lives on users. */
import {
  type Command,
  type Decider,
  type GroupCreated,
  type GroupEvent,
  notFound,
  serviceUnavailable,
} from '@burrow/contracts';

export interface GroupState {
  exists: boolean;
  deleted: boolean;
  abandoned: boolean;
  partnerId: string;
  name: string;
  plan_id: number;
  webapi_enable: boolean;
  check_domain: boolean;
  device_policy: number | null;
}

export type CreateGroup = Command<'CreateGroup', { data: GroupCreated['data'] }>;
export type RenameGroup = Command<'RenameGroup', { name: string }>;
export type ChangeGroupPlan = Command<'ChangeGroupPlan', { plan_id: number }>;
export type SetGroupPolicy = Command<'SetGroupPolicy', { webapi_enable?: boolean; check_domain?: boolean }>;
/** The device policy of the group's members; the handler checks that it exists for the partner. */
export type SetGroupDevicePolicy = Command<'SetGroupDevicePolicy', { device_policy: number | null }>;
export type DeleteGroup = Command<'DeleteGroup', { move_to: number | null }>;
export type GroupCommand =
  CreateGroup | RenameGroup | ChangeGroupPlan | SetGroupPolicy | SetGroupDevicePolicy | DeleteGroup;

export const groupDecider: Decider<GroupState, GroupCommand, GroupEvent> = {
  initialState: {
    exists: false,
    deleted: false,
    abandoned: false,
    partnerId: '',
    name: '',
    plan_id: 0,
    webapi_enable: true,
    check_domain: false,
    device_policy: null,
  },
  decide(command, state) {
    if (command.type === 'CreateGroup') {
      if (state.abandoned) throw serviceUnavailable('this create was abandoned by crash recovery; retry');
      return state.exists ? [] : [{ type: 'GroupCreated', data: command.data }];
    }
    if (!state.exists || state.deleted) throw notFound('no such group');
    switch (command.type) {
      case 'DeleteGroup':
        return [{ type: 'GroupDeleted', data: { move_to: command.move_to } }];
      case 'RenameGroup':
        return command.name === state.name ? [] : [{ type: 'GroupRenamed', data: { name: command.name } }];
      case 'ChangeGroupPlan':
        return command.plan_id === state.plan_id
          ? []
          : [{ type: 'GroupPlanChanged', data: { plan_id: command.plan_id } }];
      case 'SetGroupPolicy': {
        const webapi = command.webapi_enable ?? state.webapi_enable;
        const check = command.check_domain ?? state.check_domain;
        if (webapi === state.webapi_enable && check === state.check_domain) return [];
        return [{ type: 'GroupPolicyChanged', data: { webapi_enable: webapi, check_domain: check } }];
      }
      case 'SetGroupDevicePolicy':
        return command.device_policy === state.device_policy
          ? []
          : [{ type: 'GroupDevicePolicyChanged', data: { device_policy: command.device_policy } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'GroupCreated':
        return { ...state, exists: true, ...event.data, device_policy: event.data.device_policy ?? null };
      case 'GroupRenamed':
        return { ...state, name: event.data.name };
      case 'GroupPlanChanged':
        return { ...state, plan_id: event.data.plan_id };
      case 'GroupPolicyChanged':
        return { ...state, ...event.data };
      case 'GroupDevicePolicyChanged':
        return { ...state, device_policy: event.data.device_policy };
      case 'GroupDeleted':
        return { ...state, deleted: true };
      case 'GroupCreationAbandoned':
        return { ...state, abandoned: true };
      default:
        return state;
    }
  },
};
