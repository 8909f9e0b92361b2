/**
 * The storage catalog's events: devices and what was backed up on them, and share rooms. The
 * accounts service projects these streams for quotas, device lists and the brand-wide share list.
 */
import type { Event } from '../event.js';

// ---- device-<deviceId> -------------------------------------------------------------------------

export type DeviceRegistered = Event<
  'DeviceRegistered',
  { deviceId: string; userId: string; partnerId: string; name: string; sysplatform: string; client_revision: number; at: number }
>;
export type DeviceLoggedIn = Event<'DeviceLoggedIn', { at: number; client_revision?: number; sysplatform?: string }>;
export type FileVersionCommitted = Event<
  'FileVersionCommitted',
  { path: string; version: number; size: number; blob: string; mtime: number; ctime: number; at: number }
>;
export type BackupCompleted = Event<'BackupCompleted', { at: number }>;
export type FileVersionsPurged = Event<'FileVersionsPurged', { path: string; bytes: number; at: number }>;
export type DeviceRemoved = Event<'DeviceRemoved', { at: number }>;
export type DeviceEvent = DeviceRegistered | DeviceLoggedIn | FileVersionCommitted | BackupCompleted | FileVersionsPurged | DeviceRemoved;

// ---- share-<userId> ----------------------------------------------------------------------------

export interface ShareRoomData {
  room_key: string;
  name: string;
  description: string;
  dirs: string[];
}

export type ShareRoomCreated = Event<'ShareRoomCreated', ShareRoomData & { userId: string; partnerId: string; at: number }>;
export type ShareRoomUpdated = Event<'ShareRoomUpdated', Partial<ShareRoomData> & { room_key: string; at: number }>;
export type ShareRoomEnabled = Event<'ShareRoomEnabled', { room_key: string; at: number }>;
export type ShareRoomDisabled = Event<'ShareRoomDisabled', { room_key: string; at: number }>;
export type ShareRoomDeleted = Event<'ShareRoomDeleted', { room_key: string; at: number }>;
export type ShareEvent = ShareRoomCreated | ShareRoomUpdated | ShareRoomEnabled | ShareRoomDisabled | ShareRoomDeleted;
