/** The user aggregate (stream `user-<userId>`). */
import { type Decider, notFound, type UserCreatedData, type UserEvent } from '@burrow/contracts';

export interface UserState {
  exists: boolean;
  deleted: boolean;
  userId: string;
  partnerId: string;
  username: string;
  name: string;
  email: string;
  plan_id: number;
  group_id: number | null;
  bonus_bytes: number;
  enabled: boolean;
  purgehold_active: boolean;
}

/** Resolved changes: validation (plans, groups, reservations, allocation) happened before. */
export interface ResolvedUserChanges {
  name?: string;
  email?: string;
  plan_id?: number;
  group_id?: number | null;
  bonus_bytes?: number;
  enabled?: boolean;
  purgehold_active?: boolean;
  passwordHash?: string;
}

export type UserCommand =
  | { type: 'CreateUser'; data: UserCreatedData & { passwordHash: string } }
  | { type: 'ChangeUser'; changes: ResolvedUserChanges }
  | { type: 'DeleteUser'; at: number };

const initialState: UserState = {
  exists: false, deleted: false, userId: '', partnerId: '', username: '', name: '', email: '',
  plan_id: 0, group_id: null, bonus_bytes: 0, enabled: true, purgehold_active: false,
};

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState,
  decide(command, state) {
    if (command.type === 'CreateUser') return state.exists ? [] : [{ type: 'UserCreated', data: command.data }];
    if (!state.exists || state.deleted) throw notFound('no such user');
    if (command.type === 'DeleteUser') return [{ type: 'UserDeleted', data: { deletedAt: command.at } }];
    const c = command.changes;
    const events: UserEvent[] = [];
    if (c.name !== undefined && c.name !== state.name) events.push({ type: 'UserRenamed', data: { name: c.name } });
    if (c.email !== undefined && c.email !== state.email) events.push({ type: 'UserEmailChanged', data: { email: c.email } });
    if (c.group_id !== undefined && c.group_id !== state.group_id) events.push({ type: 'UserGroupChanged', data: { group_id: c.group_id } });
    if (c.plan_id !== undefined && c.plan_id !== state.plan_id) events.push({ type: 'UserPlanChanged', data: { plan_id: c.plan_id } });
    if (c.bonus_bytes !== undefined && c.bonus_bytes !== state.bonus_bytes) events.push({ type: 'UserBonusChanged', data: { bonus_bytes: c.bonus_bytes } });
    if (c.enabled !== undefined && c.enabled !== state.enabled) events.push({ type: c.enabled ? 'UserEnabled' : 'UserDisabled', data: {} });
    if (c.purgehold_active !== undefined && c.purgehold_active !== state.purgehold_active) {
      events.push({ type: 'UserPurgeHoldChanged', data: { purgehold_active: c.purgehold_active } });
    }
    if (c.passwordHash !== undefined) events.push({ type: 'UserPasswordChanged', data: { passwordHash: c.passwordHash } });
    return events;
  },
  evolve(state, event) {
    switch (event.type) {
      case 'UserCreated': {
        const d = event.data;
        return { ...state, exists: true, userId: d.userId, partnerId: d.partnerId, username: d.username, name: d.name, email: d.email, plan_id: d.plan_id, group_id: d.group_id, bonus_bytes: d.bonus_bytes };
      }
      case 'UserRenamed': return { ...state, name: event.data.name };
      case 'UserEmailChanged': return { ...state, email: event.data.email };
      case 'UserPlanChanged': return { ...state, plan_id: event.data.plan_id };
      case 'UserGroupChanged': return { ...state, group_id: event.data.group_id };
      case 'UserBonusChanged': return { ...state, bonus_bytes: event.data.bonus_bytes };
      case 'UserEnabled': return { ...state, enabled: true };
      case 'UserDisabled': return { ...state, enabled: false };
      case 'UserPurgeHoldChanged': return { ...state, purgehold_active: event.data.purgehold_active };
      case 'UserPasswordChanged': return state;
      case 'UserDeleted': return { ...state, deleted: true };
    }
  },
};
