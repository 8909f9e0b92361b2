/** The user aggregate (stream `user-<userId>`): one command per intent. */
import {
  type Command,
  type Decider,
  gone,
  notFound,
  serviceUnavailable,
  type UserChanges,
  type UserCreated,
  type UserEvent,
} from '@burrow/contracts';

export interface UserState {
  exists: boolean;
  deleted: boolean;
  /** recovery abandoned a crashed create: the stream holds no user */
  abandoned: boolean;
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
  /** the live set-password link (the latest sent, not used, no password set since), or null */
  setPasswordLink: { nonce: string; expiresAt: number } | null;
}

export type CreateUser = Command<
  'CreateUser',
  { data: UserCreated['data']; enabled: boolean; purgehold_active: boolean }
>;
export type RenameUser = Command<'RenameUser', { name: string }>;
export type ChangeUserEmail = Command<'ChangeUserEmail', { email: string }>;
export type MoveUserToGroup = Command<'MoveUserToGroup', { group_id: number | null }>;
export type ChangeUserPlan = Command<'ChangeUserPlan', { plan_id: number }>;
export type SetUserBonus = Command<'SetUserBonus', { bonus_bytes: number }>;
export type SetUserEnabled = Command<'SetUserEnabled', { enabled: boolean }>;
export type SetUserPurgeHold = Command<'SetUserPurgeHold', { purgehold_active: boolean }>;
export type ChangeUserPassword = Command<'ChangeUserPassword', { passwordHash: string }>;
export type DeleteUser = Command<'DeleteUser', { at: number }>;
/** A set-password email is being sent with a link carrying `nonce`: it replaces any earlier link. */
export type IssueSetPasswordLink = Command<'IssueSetPasswordLink', { nonce: string; expiresAt: number; at: number }>;
/** The link with `nonce` sets the password: once, before it expires, if it is still the live one. */
export type SetPasswordByLink = Command<'SetPasswordByLink', { nonce: string; passwordHash: string; at: number }>;
export type UserCommand =
  | CreateUser
  | RenameUser
  | ChangeUserEmail
  | MoveUserToGroup
  | ChangeUserPlan
  | SetUserBonus
  | SetUserEnabled
  | SetUserPurgeHold
  | ChangeUserPassword
  | DeleteUser
  | IssueSetPasswordLink
  | SetPasswordByLink;

/** Changes already resolved (plans, groups, reservations, allocation checked; the password hashed). */
export type ResolvedUserChanges = Omit<UserChanges, 'password'> & { passwordHash?: string };

/** One command per attribute a request changes, in the order their events are written. */
export function userCommands(c: ResolvedUserChanges): UserCommand[] {
  const out: UserCommand[] = [];
  if (c.name !== undefined) out.push({ type: 'RenameUser', name: c.name });
  if (c.email !== undefined) out.push({ type: 'ChangeUserEmail', email: c.email });
  if (c.group_id !== undefined) out.push({ type: 'MoveUserToGroup', group_id: c.group_id });
  if (c.plan_id !== undefined) out.push({ type: 'ChangeUserPlan', plan_id: c.plan_id });
  if (c.bonus_bytes !== undefined) out.push({ type: 'SetUserBonus', bonus_bytes: c.bonus_bytes });
  if (c.enabled !== undefined) out.push({ type: 'SetUserEnabled', enabled: c.enabled });
  if (c.purgehold_active !== undefined) out.push({ type: 'SetUserPurgeHold', purgehold_active: c.purgehold_active });
  if (c.passwordHash !== undefined) out.push({ type: 'ChangeUserPassword', passwordHash: c.passwordHash });
  return out;
}

const initialState: UserState = {
  exists: false,
  deleted: false,
  abandoned: false,
  userId: '',
  partnerId: '',
  username: '',
  name: '',
  email: '',
  plan_id: 0,
  group_id: null,
  bonus_bytes: 0,
  enabled: true,
  purgehold_active: false,
  setPasswordLink: null,
};

/** What a spent, expired, replaced or foreign link is told (one reason: no oracle for which). */
export const LINK_GONE = 'this link has expired or has already been used';

/** Is `nonce` the user's live link at `at`? */
export const isLiveLink = (state: UserState, nonce: string, at: number) =>
  state.exists && !state.deleted && state.setPasswordLink?.nonce === nonce && at <= state.setPasswordLink.expiresAt;

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState,
  decide(command, state) {
    if (command.type === 'CreateUser') {
      if (state.abandoned) throw serviceUnavailable('this create was abandoned by crash recovery; retry');
      if (state.exists) return [];
      const events: UserEvent[] = [{ type: 'UserCreated', data: command.data }];
      if (!command.enabled) events.push({ type: 'UserDisabled', data: {} });
      if (command.purgehold_active) events.push({ type: 'UserPurgeHoldChanged', data: { purgehold_active: true } });
      return events;
    }
    if (command.type === 'SetPasswordByLink') {
      if (!isLiveLink(state, command.nonce, command.at)) throw gone(LINK_GONE);
      return [
        { type: 'SetPasswordLinkUsed', data: { nonce: command.nonce, at: command.at } },
        { type: 'UserPasswordChanged', data: { passwordHash: command.passwordHash } },
      ];
    }
    if (!state.exists || state.deleted) throw notFound('no such user');
    switch (command.type) {
      case 'DeleteUser':
        return [{ type: 'UserDeleted', data: { deletedAt: command.at } }];
      case 'RenameUser':
        return command.name === state.name ? [] : [{ type: 'UserRenamed', data: { name: command.name } }];
      case 'ChangeUserEmail':
        return command.email === state.email ? [] : [{ type: 'UserEmailChanged', data: { email: command.email } }];
      case 'MoveUserToGroup':
        return command.group_id === state.group_id
          ? []
          : [{ type: 'UserGroupChanged', data: { group_id: command.group_id } }];
      case 'ChangeUserPlan':
        return command.plan_id === state.plan_id
          ? []
          : [{ type: 'UserPlanChanged', data: { plan_id: command.plan_id } }];
      case 'SetUserBonus':
        return command.bonus_bytes === state.bonus_bytes
          ? []
          : [{ type: 'UserBonusChanged', data: { bonus_bytes: command.bonus_bytes } }];
      case 'SetUserEnabled':
        return command.enabled === state.enabled
          ? []
          : [{ type: command.enabled ? 'UserEnabled' : 'UserDisabled', data: {} }];
      case 'SetUserPurgeHold':
        return command.purgehold_active === state.purgehold_active
          ? []
          : [{ type: 'UserPurgeHoldChanged', data: { purgehold_active: command.purgehold_active } }];
      case 'ChangeUserPassword':
        return [{ type: 'UserPasswordChanged', data: { passwordHash: command.passwordHash } }];
      case 'IssueSetPasswordLink':
        return [
          {
            type: 'SetPasswordLinkIssued',
            data: { nonce: command.nonce, expiresAt: command.expiresAt, at: command.at },
          },
        ];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'UserCreated': {
        const d = event.data;
        return {
          ...state,
          exists: true,
          userId: d.userId,
          partnerId: d.partnerId,
          username: d.username,
          name: d.name,
          email: d.email,
          plan_id: d.plan_id,
          group_id: d.group_id,
          bonus_bytes: d.bonus_bytes,
        };
      }
      case 'UserRenamed':
        return { ...state, name: event.data.name };
      case 'UserEmailChanged':
        return { ...state, email: event.data.email };
      case 'UserPlanChanged':
        return { ...state, plan_id: event.data.plan_id };
      case 'UserGroupChanged':
        return { ...state, group_id: event.data.group_id };
      case 'UserBonusChanged':
        return { ...state, bonus_bytes: event.data.bonus_bytes };
      case 'UserEnabled':
        return { ...state, enabled: true };
      case 'UserDisabled':
        return { ...state, enabled: false };
      case 'UserPurgeHoldChanged':
        return { ...state, purgehold_active: event.data.purgehold_active };
      // a password set by any route withdraws the outstanding link
      case 'UserPasswordChanged':
        return { ...state, setPasswordLink: null };
      case 'SetPasswordLinkIssued':
        return { ...state, setPasswordLink: { nonce: event.data.nonce, expiresAt: event.data.expiresAt } };
      case 'SetPasswordLinkUsed':
        return { ...state, setPasswordLink: null };
      case 'UserDeleted':
        return { ...state, deleted: true };
      case 'UserCreationAbandoned':
        return { ...state, abandoned: true };
      default:
        return state;
    }
  },
};
