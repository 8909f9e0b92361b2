/**
 * The mapping from internal events to the partner's public vocabulary (contracts `feed.ts`): one
 * pure function per internal event type, each naming every field it passes on, so nothing internal
 * (a password hash, a nonce, an internal id) can slip through by a spread. What an internal event
 * does not carry (a user's username, a device's name) the feed projection looks up in its own state
 * and hands in as the `Subject`.
 */
import type {
  BackupCompleted,
  DeviceRegistered,
  FileDeleted,
  FolderDeleted,
  GroupCreated,
  GroupDeleted,
  GroupDevicePolicyChanged,
  GroupPlanChanged,
  GroupPolicyChanged,
  GroupRenamed,
  PublicEventData,
  PublicEventType,
  ShareRoomAccessed,
  ShareRoomCreated,
  ShareRoomDeleted,
  ShareRoomDisabled,
  ShareRoomEnabled,
  ShareRoomPasswordSet,
  ShareRoomUpdated,
  UserBonusChanged,
  UserCreated,
  UserEmailChanged,
  UserGroupChanged,
  UserPlanChanged,
  UserPurgeHoldChanged,
  UserRenamed,
} from '@burrow/contracts';

/** A public event before the feed gives it a position, an id and a time. */
export interface Draft<T extends PublicEventType = PublicEventType> {
  type: T;
  data: PublicEventData<T>;
}

const draft = <T extends PublicEventType>(type: T, data: PublicEventData<T>): Draft<T> => ({ type, data });

/** Who an event is about, as the partner knows them (looked up by the projection). */
export interface Subject {
  username: string;
  /** the device's name (device and file events) */
  device?: string;
}

/** The counts of one hour of one device's backup activity. */
export interface ActivityCounts {
  files_committed: number;
  bytes_committed: number;
  files_deleted: number;
  folders_deleted: number;
  backups_completed: number;
}

export const userEvents = {
  UserCreated: (d: UserCreated['data']) =>
    draft('user.created', {
      username: d.username,
      name: d.name,
      email: d.email,
      plan_id: d.plan_id,
      group_id: d.group_id,
      bonus_bytes: d.bonus_bytes,
      avatar_id: d.avatar_id,
      creation_time: d.creation_time,
    }),
  UserRenamed: (d: UserRenamed['data'], s: Subject) => draft('user.changed', { username: s.username, name: d.name }),
  UserEmailChanged: (d: UserEmailChanged['data'], s: Subject) =>
    draft('user.changed', { username: s.username, email: d.email }),
  UserBonusChanged: (d: UserBonusChanged['data'], s: Subject) =>
    draft('user.changed', { username: s.username, bonus_bytes: d.bonus_bytes }),
  UserPurgeHoldChanged: (d: UserPurgeHoldChanged['data'], s: Subject) =>
    draft('user.changed', { username: s.username, purgehold_active: d.purgehold_active }),
  UserPlanChanged: (d: UserPlanChanged['data'], s: Subject) =>
    draft('user.plan_changed', { username: s.username, plan_id: d.plan_id }),
  UserGroupChanged: (d: UserGroupChanged['data'], s: Subject) =>
    draft('user.group_changed', { username: s.username, group_id: d.group_id }),
  UserEnabled: (_d: unknown, s: Subject) => draft('user.enabled', { username: s.username }),
  UserDisabled: (_d: unknown, s: Subject) => draft('user.disabled', { username: s.username }),
  UserDeleted: (_d: unknown, s: Subject) => draft('user.deleted', { username: s.username }),
  /** the hash stays behind: the partner learns that it changed, never what to */
  UserPasswordChanged: (_d: unknown, s: Subject) => draft('user.password_changed', { username: s.username }),
};

export const groupEvents = {
  GroupCreated: (d: GroupCreated['data']) =>
    draft('group.created', {
      group_id: d.groupId,
      name: d.name,
      plan_id: d.plan_id,
      webapi_enable: d.webapi_enable,
      check_domain: d.check_domain,
      device_policy: d.device_policy ?? null,
    }),
  GroupRenamed: (d: GroupRenamed['data'], groupId: number) =>
    draft('group.changed', { group_id: groupId, name: d.name }),
  GroupPolicyChanged: (d: GroupPolicyChanged['data'], groupId: number) =>
    draft('group.changed', { group_id: groupId, webapi_enable: d.webapi_enable, check_domain: d.check_domain }),
  GroupDevicePolicyChanged: (d: GroupDevicePolicyChanged['data'], groupId: number) =>
    draft('group.changed', { group_id: groupId, device_policy: d.device_policy }),
  GroupPlanChanged: (d: GroupPlanChanged['data'], groupId: number) =>
    draft('group.plan_changed', { group_id: groupId, plan_id: d.plan_id }),
  GroupDeleted: (d: GroupDeleted['data'], groupId: number) =>
    draft('group.deleted', { group_id: groupId, move_to: d.move_to }),
};

export const deviceEvents = {
  DeviceRegistered: (d: DeviceRegistered['data'], s: Subject) =>
    draft('device.registered', {
      username: s.username,
      device: d.name,
      sysplatform: d.sysplatform,
      client_revision: d.client_revision,
    }),
  DeviceRemoved: (_d: unknown, s: Required<Subject>) =>
    draft('device.removed', { username: s.username, device: s.device }),
};

export const shareEvents = {
  ShareRoomCreated: (d: ShareRoomCreated['data'], s: Subject) =>
    draft('share_room.created', {
      username: s.username,
      room_key: d.room_key,
      name: d.name,
      description: d.description,
    }),
  /** a change of the shared folders alone is not news for the partner */
  ShareRoomUpdated: (d: ShareRoomUpdated['data'], s: Subject): Draft | null =>
    d.name === undefined && d.description === undefined
      ? null
      : draft('share_room.changed', {
          username: s.username,
          room_key: d.room_key,
          ...(d.name === undefined ? {} : { name: d.name }),
          ...(d.description === undefined ? {} : { description: d.description }),
        }),
  ShareRoomEnabled: (d: ShareRoomEnabled['data'], s: Subject) =>
    draft('share_room.enabled', { username: s.username, room_key: d.room_key }),
  ShareRoomDisabled: (d: ShareRoomDisabled['data'], s: Subject) =>
    draft('share_room.disabled', { username: s.username, room_key: d.room_key }),
  ShareRoomDeleted: (d: ShareRoomDeleted['data'], s: Subject) =>
    draft('share_room.deleted', { username: s.username, room_key: d.room_key }),
  /** visits: the feed projection hands in the downloads since the room's previous share.accessed (at most one an hour) */
  ShareRoomAccessed: (d: ShareRoomAccessed['data'], s: Subject) =>
    draft('share.accessed', { username: s.username, room_key: d.room_key, downloads: d.downloads, last_access: d.at }),
  /** whether the room has a password, never the hash */
  ShareRoomPasswordSet: (d: ShareRoomPasswordSet['data'], s: Subject) =>
    draft('share_room.changed', {
      username: s.username,
      room_key: d.room_key,
      password_required: d.password_hash !== null,
    }),
};

export const partnerEvents = {
  /** the hash stays behind */
  PartnerPasswordChanged: () => draft('partner.password_changed', {}),
};

/** What one internal event adds to a device's hour of activity (nothing: not activity). */
export function activityOf(
  type: string,
  data: FileDeleted['data'] | FolderDeleted['data'] | BackupCompleted['data'] | { size: number },
): Partial<ActivityCounts> | null {
  switch (type) {
    case 'FileVersionCommitted':
      return { files_committed: 1, bytes_committed: (data as { size: number }).size };
    case 'FileDeleted':
      return { files_deleted: 1 };
    case 'FolderDeleted':
      return { folders_deleted: 1 };
    case 'BackupCompleted':
      return { backups_completed: 1 };
    default:
      return null;
  }
}

export const activitySummary = (s: Required<Subject>, hourStartMs: number, c: ActivityCounts) =>
  draft('device.backup_activity', {
    username: s.username,
    device: s.device,
    hour_start: new Date(hourStartMs).toISOString(),
    files_committed: c.files_committed,
    bytes_committed: c.bytes_committed,
    files_deleted: c.files_deleted,
    folders_deleted: c.folders_deleted,
    backups_completed: c.backups_completed,
  });

export const quotaCrossing = (
  s: Subject,
  crossing: { threshold: 80 | 90 | 100; direction: 'up' | 'down' },
  bytesStored: number,
  storageBytes: number,
) =>
  draft('quota.threshold_crossed', {
    username: s.username,
    threshold: crossing.threshold,
    direction: crossing.direction,
    bytes_stored: bytesStored,
    storage_bytes: storageBytes,
  });
