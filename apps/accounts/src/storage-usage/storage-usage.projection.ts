/**
 * Accounts' view of what the storage catalog records: each device, each share room, and usage per
 * partner. Fed by the storage catalog's `device-`, `file-` and `share-` streams (the event store is
 * the integration backbone), so quotas, device lists, the brand-wide share list and client
 * revisions need no call to the storage service. A deleted user's devices and rooms leave with them.
 */
import {
  changesUserBytes,
  createdShareRoom,
  type DeviceEvent,
  evolveShareRoom,
  type FileEvent,
  type ShareEvent,
  StreamPrefixes,
  type UserShareRoom,
} from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { Projection } from '@burrow/eventsourcing';
import type { RecordedEvent } from '@burrow/event-store';

export interface DeviceDoc {
  _id: string;
  userId: string;
  partnerId: string;
  name: string;
  creation_time: number;
  last_backup_complete: number | null;
  lastlogin: number | null;
  lastcommit: number | null;
  client_revision: number;
  sysplatform: string;
  bytes: number;
  [key: string]: unknown;
}

export interface ShareDoc extends UserShareRoom {
  _id: string;
  userId: string;
  partnerId: string;
  [key: string]: unknown;
}

export interface UsageDoc {
  _id: string;
  bytes_used: number;
  share_count: number;
  device_count: number;
  [key: string]: unknown;
}

export const devicesCollection = (docs: DocumentStore) => docs.collection<DeviceDoc>('devices');
export const sharesCollection = (docs: DocumentStore) => docs.collection<ShareDoc>('shares');
const usageCollection = (docs: DocumentStore) => docs.collection<UsageDoc>('partner_usage');

export async function usageOfPartner(docs: DocumentStore, partnerId: string): Promise<UsageDoc> {
  return (
    (await usageCollection(docs).get(partnerId)) ?? { _id: partnerId, bytes_used: 0, share_count: 0, device_count: 0 }
  );
}

async function adjust(
  docs: DocumentStore,
  partnerId: string,
  delta: Partial<Record<'bytes' | 'shares' | 'devices', number>>,
) {
  const usage = await usageOfPartner(docs, partnerId);
  usage.bytes_used += delta.bytes ?? 0;
  usage.share_count += delta.shares ?? 0;
  usage.device_count += delta.devices ?? 0;
  await usageCollection(docs).upsert(usage);
}

async function applyDevice(docs: DocumentStore, event: RecordedEvent): Promise<void> {
  const e = { type: event.type, data: event.data } as DeviceEvent;
  const devices = devicesCollection(docs);
  const deviceId = event.stream.slice(StreamPrefixes.device.length);
  if (e.type === 'DeviceRegistered') {
    const d = e.data;
    await devices.upsert({
      _id: deviceId,
      userId: d.userId,
      partnerId: d.partnerId,
      name: d.name,
      creation_time: d.at,
      last_backup_complete: null,
      lastlogin: d.at,
      lastcommit: null,
      client_revision: d.client_revision,
      sysplatform: d.sysplatform,
      bytes: 0,
    });
    await adjust(docs, d.partnerId, { devices: 1 });
    return;
  }
  const device = await devices.get(deviceId);
  if (!device) return;
  switch (e.type) {
    case 'DeviceLoggedIn':
      device.lastlogin = e.data.at;
      if (e.data.client_revision !== undefined) device.client_revision = e.data.client_revision;
      if (e.data.sysplatform !== undefined) device.sysplatform = e.data.sysplatform;
      break;
    case 'BackupCompleted':
      device.last_backup_complete = e.data.at;
      break;
    case 'DeviceRemoved':
      await devices.delete(deviceId);
      await adjust(docs, device.partnerId, { devices: -1, bytes: -device.bytes });
      return;
    default:
      return;
  }
  await devices.upsert(device);
}

/** Stored bytes: every committed version counts until it is purged; a WebDAV move only moves bytes between devices. */
async function applyFile(docs: DocumentStore, event: RecordedEvent): Promise<void> {
  const e = { type: event.type, data: event.data } as FileEvent;
  if (e.type !== 'FileVersionCommitted' && e.type !== 'FileVersionsPurged' && e.type !== 'FileMovedOut') return;
  const devices = devicesCollection(docs);
  const device = await devices.get(e.data.deviceId);
  // a removed device's bytes already left with it
  if (!device) return;
  // a WebDAV move's two halves move bytes between devices, not in or out of the partner's total
  const total = changesUserBytes(e);
  if (e.type === 'FileVersionCommitted') {
    device.lastcommit = Math.max(device.lastcommit ?? 0, e.data.at);
    device.bytes += e.data.size;
    if (total) await adjust(docs, device.partnerId, { bytes: e.data.size });
  } else {
    device.bytes -= e.data.bytes;
    if (total) await adjust(docs, device.partnerId, { bytes: -e.data.bytes });
  }
  await devices.upsert(device);
}

async function applyShare(docs: DocumentStore, event: RecordedEvent): Promise<void> {
  const e = { type: event.type, data: event.data } as ShareEvent;
  const shares = sharesCollection(docs);
  const userId = event.stream.slice(StreamPrefixes.share.length);
  const id = `${userId}:${e.data.room_key}`;
  if (e.type === 'ShareRoomCreated') {
    const d = e.data;
    await shares.upsert({ ...createdShareRoom(d), _id: id, userId, partnerId: d.partnerId });
    await adjust(docs, d.partnerId, { shares: 1 });
    return;
  }
  const share = await shares.get(id);
  if (!share) return;
  const next = evolveShareRoom(share, e);
  if (next === share) return;
  if (!next) {
    await shares.delete(id);
    await adjust(docs, share.partnerId, { shares: -1 });
    return;
  }
  await shares.upsert(next);
}

/** The user's devices and rooms go with them (the storage catalog purges the data itself). */
async function applyUserDeleted(docs: DocumentStore, event: RecordedEvent): Promise<void> {
  if (event.type !== 'UserDeleted') return;
  const userId = event.stream.slice(StreamPrefixes.user.length);
  const devices = await devicesCollection(docs).find({ userId });
  const shares = await sharesCollection(docs).find({ userId });
  const partnerId = devices[0]?.partnerId ?? shares[0]?.partnerId;
  if (!partnerId) return;
  await adjust(docs, partnerId, {
    bytes: -devices.reduce((sum, d) => sum + d.bytes, 0),
    devices: -devices.length,
    shares: -shares.length,
  });
  await devicesCollection(docs).deleteMany({ userId });
  await sharesCollection(docs).deleteMany({ userId });
}

export const storageUsageProjection = (): Projection => ({
  name: 'storage-usage',
  prefixes: [StreamPrefixes.device, StreamPrefixes.file, StreamPrefixes.share, StreamPrefixes.user],
  async init(docs) {
    await devicesCollection(docs).ensureIndex({ userId: 1 });
    await devicesCollection(docs).ensureIndex({ partnerId: 1 });
    await sharesCollection(docs).ensureIndex({ userId: 1 });
  },
  async apply(event, docs) {
    if (event.stream.startsWith(StreamPrefixes.device)) await applyDevice(docs, event);
    else if (event.stream.startsWith(StreamPrefixes.file)) await applyFile(docs, event);
    else if (event.stream.startsWith(StreamPrefixes.share)) await applyShare(docs, event);
    else await applyUserDeleted(docs, event);
  },
});
