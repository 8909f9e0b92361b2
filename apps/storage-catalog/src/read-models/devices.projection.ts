/**
 * Read model of devices (one document per device, kept after removal with `removed`), with the
 * figures the storage root shows: last login, last commit, last completed backup, stored bytes;
 * and the stored versions the purger looks for on removed devices. A deleted user's devices stay
 * as they are until the storage catalog removes them (`purge/`), like any other removal.
 */
import { type DeviceEvent, type FileEvent, type DeviceInfo, StreamPrefixes } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { Projection } from '@burrow/eventsourcing';

export interface DeviceDoc extends Omit<DeviceInfo, 'files'> {
  _id: string;
  userId: string;
  partnerId: string;
  nameKey: string;
  removed: boolean;
  /** versions stored (committed, not purged) on the device: a removed device with some is due for purging */
  versions: number;
  [key: string]: unknown;
}

export const devicesCollection = (docs: DocumentStore) => docs.collection<DeviceDoc>('devices');

export const devicesProjection = (): Projection => ({
  name: 'devices',
  prefixes: [StreamPrefixes.device, StreamPrefixes.file],
  async init(docs) {
    await devicesCollection(docs).ensureIndex({ userId: 1, removed: 1 });
    await devicesCollection(docs).ensureIndex({ removed: 1, versions: 1 });
  },
  async apply(event, docs) {
    const devices = devicesCollection(docs);
    if (event.stream.startsWith(StreamPrefixes.file)) {
      const e = { type: event.type, data: event.data } as FileEvent;
      if (e.type !== 'FileVersionCommitted' && e.type !== 'FileVersionsPurged' && e.type !== 'FileMovedOut') return;
      const device = await devices.get(e.data.deviceId);
      if (!device) return;
      if (e.type === 'FileVersionCommitted') {
        device.bytes += e.data.size;
        device.versions += 1;
        device.lastcommit = Math.max(device.lastcommit ?? 0, e.data.at);
      } else if (e.type === 'FileMovedOut') {
        // the version now counts where it moved to
        device.bytes -= e.data.bytes;
        device.versions -= 1;
      } else {
        device.bytes -= e.data.bytes;
        device.versions -= e.data.versions.length;
      }
      await devices.upsert(device);
      return;
    }
    const e = { type: event.type, data: event.data } as DeviceEvent;
    const deviceId = event.stream.slice(StreamPrefixes.device.length);
    if (e.type === 'DeviceRegistered') {
      const d = e.data;
      await devices.upsert({
        _id: deviceId,
        deviceId,
        userId: d.userId,
        partnerId: d.partnerId,
        name: d.name,
        nameKey: d.name.toLowerCase(),
        sysplatform: d.sysplatform,
        client_revision: d.client_revision,
        creation_time: d.at,
        lastlogin: d.at,
        lastcommit: null,
        last_backup_complete: null,
        bytes: 0,
        versions: 0,
        removed: false,
      });
      return;
    }
    const device = await devices.get(deviceId);
    if (!device) return;
    switch (e.type) {
      case 'DeviceLoggedIn':
        device.lastlogin = Math.max(device.lastlogin ?? 0, e.data.at);
        if (e.data.sysplatform !== undefined) device.sysplatform = e.data.sysplatform;
        if (e.data.client_revision !== undefined) device.client_revision = e.data.client_revision;
        break;
      case 'BackupCompleted':
        device.last_backup_complete = e.data.at;
        break;
      case 'DeviceRemoved':
        device.removed = true;
        break;
      default:
        return;
    }
    await devices.upsert(device);
  },
});
