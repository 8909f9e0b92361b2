/**
 * Stream names and the event payloads that more than one service reads. The event store is the
 * integration backbone: accounts projects storage streams (usage, devices, shares) and the storage
 * catalog projects user streams.
 */
export const Streams = {
  planCatalogue: 'plan-catalogue',
  partner: (partnerId: string) => `partner-${partnerId}`,
  group: (groupId: number) => `group-${groupId}`,
  user: (userId: string) => `user-${userId}`,
  allocation: (partnerId: string) => `allocation-${partnerId}`,
  billing: (partnerId: string) => `billing-${partnerId}`,
  device: (deviceId: string) => `device-${deviceId}`,
  share: (userId: string) => `share-${userId}`,
  counter: (name: string) => `counter-${name}`,
  /** uniqueness reservations: `username-<name>`, `email-<email>`, `groupname-<partner>-<name>` ... */
  reservation: (kind: 'username' | 'email' | 'groupname' | 'partnername', key: string) => `${kind}-${key}`,
} as const;

export const StreamPrefixes = {
  partner: 'partner-',
  planCatalogue: 'plan-catalogue',
  group: 'group-',
  user: 'user-',
  billing: 'billing-',
  device: 'device-',
  share: 'share-',
} as const;

/** 1,000,000,001,000,000,000 bytes: the "unlimited" storage value clients test for. */
export const UNLIMITED_BYTES = 1000000001000000000;

// ---- user streams (owned by accounts) -------------------------------------------------------

export interface UserCreatedData {
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
}

export type UserEvent =
  | { type: 'UserCreated'; data: UserCreatedData & { passwordHash: string } }
  | { type: 'UserRenamed'; data: { name: string } }
  | { type: 'UserEmailChanged'; data: { email: string } }
  | { type: 'UserPlanChanged'; data: { plan_id: number } }
  | { type: 'UserGroupChanged'; data: { group_id: number | null } }
  | { type: 'UserBonusChanged'; data: { bonus_bytes: number } }
  | { type: 'UserEnabled'; data: Record<string, never> }
  | { type: 'UserDisabled'; data: Record<string, never> }
  | { type: 'UserPurgeHoldChanged'; data: { purgehold_active: boolean } }
  | { type: 'UserPasswordChanged'; data: { passwordHash: string } }
  | { type: 'UserDeleted'; data: { deletedAt: number } };

// ---- storage streams (owned by storage-catalog) -----------------------------------------------

export type DeviceEvent =
  | {
      type: 'DeviceRegistered';
      data: { deviceId: string; userId: string; partnerId: string; name: string; sysplatform: string; client_revision: number; at: number };
    }
  | { type: 'DeviceLoggedIn'; data: { at: number; client_revision?: number; sysplatform?: string } }
  | { type: 'FileVersionCommitted'; data: { path: string; version: number; size: number; blob: string; mtime: number; ctime: number; at: number } }
  | { type: 'BackupCompleted'; data: { at: number } }
  | { type: 'FileVersionsPurged'; data: { path: string; bytes: number; at: number } }
  | { type: 'DeviceRemoved'; data: { at: number } };

export interface ShareRoomData {
  room_key: string;
  name: string;
  description: string;
  dirs: string[];
}

export type ShareEvent =
  | { type: 'ShareRoomCreated'; data: ShareRoomData & { userId: string; partnerId: string; at: number } }
  | { type: 'ShareRoomUpdated'; data: Partial<ShareRoomData> & { room_key: string; at: number } }
  | { type: 'ShareRoomEnabled'; data: { room_key: string; at: number } }
  | { type: 'ShareRoomDisabled'; data: { room_key: string; at: number } }
  | { type: 'ShareRoomDeleted'; data: { room_key: string; at: number } };
