/** The group aggregate (stream `group-<groupId>`). Membership lives on the user aggregate. */
import { type Decider, notFound } from '@burrow/contracts';

export interface GroupCreatedData {
  groupId: number;
  partnerId: string;
  name: string;
  plan_id: number;
  webapi_enable: boolean;
  check_domain: boolean;
}

export type GroupEvent =
  | { type: 'GroupCreated'; data: GroupCreatedData }
  | { type: 'GroupRenamed'; data: { name: string } }
  | { type: 'GroupPlanChanged'; data: { plan_id: number } }
  | { type: 'GroupPolicyChanged'; data: { webapi_enable: boolean; check_domain: boolean } }
  | { type: 'GroupDeleted'; data: { move_to: number | null } };

export type GroupCommand =
  | { type: 'CreateGroup'; data: GroupCreatedData }
  | { type: 'ChangeGroup'; name?: string; plan_id?: number; webapi_enable?: boolean; check_domain?: boolean }
  | { type: 'DeleteGroup'; move_to: number | null };

export interface GroupState {
  exists: boolean;
  deleted: boolean;
  partnerId: string;
  name: string;
  plan_id: number;
  webapi_enable: boolean;
  check_domain: boolean;
}

export const groupDecider: Decider<GroupState, GroupCommand, GroupEvent> = {
  initialState: { exists: false, deleted: false, partnerId: '', name: '', plan_id: 0, webapi_enable: true, check_domain: false },
  decide(command, state) {
    if (command.type === 'CreateGroup') return state.exists ? [] : [{ type: 'GroupCreated', data: command.data }];
    if (!state.exists || state.deleted) throw notFound('no such group');
    if (command.type === 'DeleteGroup') return [{ type: 'GroupDeleted', data: { move_to: command.move_to } }];
    const events: GroupEvent[] = [];
    if (command.name !== undefined && command.name !== state.name) events.push({ type: 'GroupRenamed', data: { name: command.name } });
    if (command.plan_id !== undefined && command.plan_id !== state.plan_id) events.push({ type: 'GroupPlanChanged', data: { plan_id: command.plan_id } });
    const webapi = command.webapi_enable ?? state.webapi_enable;
    const check = command.check_domain ?? state.check_domain;
    if (webapi !== state.webapi_enable || check !== state.check_domain) {
      events.push({ type: 'GroupPolicyChanged', data: { webapi_enable: webapi, check_domain: check } });
    }
    return events;
  },
  evolve(state, event) {
    switch (event.type) {
      case 'GroupCreated': return { ...state, exists: true, ...event.data };
      case 'GroupRenamed': return { ...state, name: event.data.name };
      case 'GroupPlanChanged': return { ...state, plan_id: event.data.plan_id };
      case 'GroupPolicyChanged': return { ...state, ...event.data };
      case 'GroupDeleted': return { ...state, deleted: true };
    }
  },
};
