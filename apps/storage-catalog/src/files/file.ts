/**
 * The file aggregate (stream `file-<fileId>`): the versions of one file of one device. Version
 * numbers count from 0 and come from this stream, appended with optimistic concurrency, so two
 * concurrent uploads of one path get different numbers. The stream grows only with this file's
 * versions.
 */
import { type Command, type Decider, type FileEvent, type FileVersionData } from '@burrow/contracts';

export interface FileIdentity {
  fileId: string;
  deviceId: string;
  userId: string;
  partnerId: string;
  path: string;
}

export interface FileState {
  identity: FileIdentity | null;
  /** the number the next committed version gets */
  nextVersion: number;
  /** versions committed and not purged, by number */
  stored: Map<number, { size: number; blob: string }>;
  /** deleted through this file's own stream (a folder deletion is on the device stream) */
  deleted: boolean;
}

export type CommitVersion = Command<'CommitVersion', { data: Omit<FileVersionData, 'version'> }>;
export type DeleteFile = Command<'DeleteFile', { at: number }>;
export type PurgeVersions = Command<'PurgeVersions', { versions: number[]; at: number }>;
export type FileCommand = CommitVersion | DeleteFile | PurgeVersions;

export const fileDecider: Decider<FileState, FileCommand, FileEvent> = {
  initialState: { identity: null, nextVersion: 0, stored: new Map(), deleted: false },
  decide(command, state) {
    if (command.type === 'CommitVersion') return [{ type: 'FileVersionCommitted', data: { ...command.data, version: state.nextVersion } }];
    const id = state.identity;
    if (!id) return [];
    const owner = { userId: id.userId, partnerId: id.partnerId, deviceId: id.deviceId, path: id.path };
    if (command.type === 'DeleteFile') return state.deleted ? [] : [{ type: 'FileDeleted', data: { ...owner, at: command.at } }];
    const versions = [...new Set(command.versions)].filter((v) => state.stored.has(v)).sort((a, b) => a - b);
    if (!versions.length) return [];
    const blobs = versions.map((v) => state.stored.get(v)!.blob);
    const bytes = versions.reduce((sum, v) => sum + state.stored.get(v)!.size, 0);
    return [{ type: 'FileVersionsPurged', data: { ...owner, versions, blobs, bytes, at: command.at } }];
  },
  evolve(state, event) {
    switch (event.type) {
      case 'FileVersionCommitted': {
        const d = event.data;
        const stored = new Map(state.stored);
        stored.set(d.version, { size: d.size, blob: d.blob });
        const identity = state.identity ?? { fileId: d.fileId, deviceId: d.deviceId, userId: d.userId, partnerId: d.partnerId, path: d.path };
        return { identity, nextVersion: d.version + 1, stored, deleted: false };
      }
      case 'FileDeleted':
        return { ...state, deleted: true };
      case 'FileVersionsPurged': {
        const stored = new Map(state.stored);
        for (const v of event.data.versions) stored.delete(v);
        return { ...state, stored };
      }
      default:
        return state;
    }
  },
};
