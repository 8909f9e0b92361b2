/**
 * The accounts service's events: the vocabulary of partners, plans, groups and users, and of the
 * multi-step writes that span them. Other services project some of these streams (the storage
 * catalog reads user streams), so they are contracts. Event payloads are plain JSON.
 */
import type { Event } from '../event.js';
import type { PartnerFeatures, PartnerSettings } from './records.js';

// ---- partner-<partnerId> -----------------------------------------------------------------------

export type PartnerCreated = Event<
  'PartnerCreated',
  {
    partnerId: string;
    username: string;
    company_name: string;
    brand_identifier: string;
    passwordHash: string;
    bytes_available: number | null;
    features: PartnerFeatures;
    created_at: number;
  }
>;
export type PartnerPasswordChanged = Event<'PartnerPasswordChanged', { passwordHash: string; at: number }>;
export type PartnerSettingsChanged = Event<'PartnerSettingsChanged', { changes: Partial<PartnerSettings>; at: number }>;
export type PartnerLimitsChanged = Event<
  'PartnerLimitsChanged',
  { bytes_available?: number | null; features?: Partial<PartnerFeatures>; at: number }
>;
/** Recovery's claim on the stream of a partner whose create crashed before `PartnerCreated`. */
export type PartnerCreationAbandoned = Event<'PartnerCreationAbandoned', { at: number }>;
export type PartnerEvent =
  PartnerCreated | PartnerPasswordChanged | PartnerSettingsChanged | PartnerLimitsChanged | PartnerCreationAbandoned;

// ---- plan-catalogue -----------------------------------------------------------------------------

export type PlanAdded = Event<'PlanAdded', { plan_id: number; name: string; storage_bytes: number; promo: boolean }>;
export type PlanCatalogueEvent = PlanAdded;

// ---- group-<groupId> ---------------------------------------------------------------------------

export type GroupCreated = Event<
  'GroupCreated',
  {
    groupId: number;
    partnerId: string;
    name: string;
    plan_id: number;
    webapi_enable: boolean;
    check_domain: boolean;
    /** absent in groups created before device policies: none */
    device_policy?: number | null;
  }
>;
export type GroupRenamed = Event<'GroupRenamed', { name: string }>;
export type GroupPlanChanged = Event<'GroupPlanChanged', { plan_id: number }>;
export type GroupPolicyChanged = Event<'GroupPolicyChanged', { webapi_enable: boolean; check_domain: boolean }>;
export type GroupDevicePolicyChanged = Event<'GroupDevicePolicyChanged', { device_policy: number | null }>;
export type GroupDeleted = Event<'GroupDeleted', { move_to: number | null }>;
/** Recovery's claim on the stream of a group whose create crashed before `GroupCreated`. */
export type GroupCreationAbandoned = Event<'GroupCreationAbandoned', { at: number }>;
/**
 * Recovery's claim on the revision a crashed change (an UpdateGroup process) was decided on, when
 * that change never committed; it changes nothing about the group.
 */
export type GroupChangeAbandoned = Event<'GroupChangeAbandoned', { processId: string; at: number }>;
/**
 * The members' plans have followed a plan change (its process `processId`, after the reply: a
 * group of thousands takes a while): the group's `plan_status` is `current` again. Changes
 * nothing about the group.
 */
export type GroupMemberPlansApplied = Event<'GroupMemberPlansApplied', { plan_id: number; processId: string }>;
export type GroupEvent =
  | GroupCreated
  | GroupRenamed
  | GroupPlanChanged
  | GroupPolicyChanged
  | GroupDevicePolicyChanged
  | GroupDeleted
  | GroupCreationAbandoned
  | GroupChangeAbandoned
  | GroupMemberPlansApplied;

// ---- user-<userId> -----------------------------------------------------------------------------

export type UserCreated = Event<
  'UserCreated',
  {
    userId: string;
    partnerId: string;
    username: string;
    name: string;
    email: string;
    plan_id: number;
    group_id: number | null;
    bonus_bytes: number;
    avatar_id: number;
    share_id: string;
    creation_time: number;
    passwordHash: string;
  }
>;
export type UserRenamed = Event<'UserRenamed', { name: string }>;
export type UserEmailChanged = Event<'UserEmailChanged', { email: string }>;
export type UserPlanChanged = Event<'UserPlanChanged', { plan_id: number }>;
export type UserGroupChanged = Event<'UserGroupChanged', { group_id: number | null }>;
export type UserBonusChanged = Event<'UserBonusChanged', { bonus_bytes: number }>;
export type UserEnabled = Event<'UserEnabled', Record<string, never>>;
export type UserDisabled = Event<'UserDisabled', Record<string, never>>;
export type UserPurgeHoldChanged = Event<'UserPurgeHoldChanged', { purgehold_active: boolean }>;
export type UserPasswordChanged = Event<'UserPasswordChanged', { passwordHash: string }>;
export type UserDeleted = Event<'UserDeleted', { deletedAt: number }>;
/**
 * Written by recovery instead of `UserCreated` when a create crashed half way: it claims the
 * stream, so a create that is somehow still running cannot commit after its steps were undone.
 */
export type UserCreationAbandoned = Event<'UserCreationAbandoned', { at: number }>;
/**
 * Written by recovery at the revision a crashed change (a ChangeUser process) was decided on, when
 * that change never committed: a change somehow still running can no longer commit after its
 * steps were undone. It changes nothing about the user.
 */
export type UserChangeAbandoned = Event<'UserChangeAbandoned', { processId: string; at: number }>;
/**
 * An activation / set-password email was sent with a link carrying this nonce, valid until
 * `expiresAt` (unix seconds). Only the latest link is live: it replaces any earlier one. The link
 * itself (signed with the service secret) is never stored; the nonce alone cannot be used.
 */
export type SetPasswordLinkIssued = Event<'SetPasswordLinkIssued', { nonce: string; expiresAt: number; at: number }>;
/** The link with this nonce set the password (appended with the `UserPasswordChanged` it made): it is spent. */
export type SetPasswordLinkUsed = Event<'SetPasswordLinkUsed', { nonce: string; at: number }>;
export type UserEvent =
  | UserCreated
  | UserRenamed
  | UserEmailChanged
  | UserPlanChanged
  | UserGroupChanged
  | UserBonusChanged
  | UserEnabled
  | UserDisabled
  | UserPurgeHoldChanged
  | UserPasswordChanged
  | UserDeleted
  | UserCreationAbandoned
  | UserChangeAbandoned
  | SetPasswordLinkIssued
  | SetPasswordLinkUsed;

/** What another service may rely on from `UserCreated` (never the password hash). */
export type UserCreatedData = Omit<UserCreated['data'], 'passwordHash'>;
