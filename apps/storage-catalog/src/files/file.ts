/**
 * The file aggregate (stream `file-<fileId>`): the versions of one file of one device. Version
 * numbers count from 0 and come from this stream, appended with optimistic concurrency, so two
 * concurrent uploads of one path get different numbers. The stream grows only with this file's
 * versions.
 */
import {
  type Command,
  type DeadProperties,
  type Decider,
  type FileEvent,
  type FileVersionData,
} from '@burrow/contracts';
import { changedProperties, sameProperties } from './dead-properties.js';

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
  /** WebDAV dead properties: they belong to the file, not a version, and go when it is deleted */
  props: DeadProperties;
}

/** A new version; `props` (a COPY or MOVE carries the source's) replace the file's dead properties in the same append. */
export type CommitVersion = Command<
  'CommitVersion',
  { data: Omit<FileVersionData, 'version'>; props?: DeadProperties }
>;
export type DeleteFile = Command<'DeleteFile', { at: number }>;
export type PurgeVersions = Command<'PurgeVersions', { versions: number[]; at: number }>;
export type SetProperties = Command<'SetProperties', { set: DeadProperties; remove: string[]; at: number }>;
/** A MOVE took `version` (the latest when the move was decided) to `to`; nothing if it is no longer stored here. */
export type MoveOut = Command<'MoveOut', { version: number; to: { deviceId: string; path: string }; at: number }>;
export type FileCommand = CommitVersion | DeleteFile | PurgeVersions | SetProperties | MoveOut;

export const fileDecider: Decider<FileState, FileCommand, FileEvent> = {
  initialState: { identity: null, nextVersion: 0, stored: new Map(), deleted: false, props: {} },
  decide(command, state) {
    if (command.type === 'CommitVersion') {
      const committed: FileEvent = {
        type: 'FileVersionCommitted',
        data: { ...command.data, version: state.nextVersion },
      };
      return command.props
        ? [committed, { type: 'FilePropertiesSet', data: { props: command.props, at: command.data.at } }]
        : [committed];
    }
    const id = state.identity;
    if (!id) return [];
    const owner = { userId: id.userId, partnerId: id.partnerId, deviceId: id.deviceId, path: id.path };
    if (command.type === 'DeleteFile')
      return state.deleted ? [] : [{ type: 'FileDeleted', data: { ...owner, at: command.at } }];
    if (command.type === 'SetProperties') {
      const props = changedProperties(state.props, command.set, command.remove);
      return sameProperties(props, state.props) ? [] : [{ type: 'FilePropertiesSet', data: { props, at: command.at } }];
    }
    if (command.type === 'MoveOut') {
      const stored = state.stored.get(command.version);
      if (!stored) return [];
      return [
        {
          type: 'FileMovedOut',
          data: { ...owner, version: command.version, bytes: stored.size, to: command.to, at: command.at },
        },
      ];
    }
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
        const identity = state.identity ?? {
          fileId: d.fileId,
          deviceId: d.deviceId,
          userId: d.userId,
          partnerId: d.partnerId,
          path: d.path,
        };
        // a deleted file written again is a new resource: its old dead properties do not come back
        return {
          identity,
          nextVersion: d.version + 1,
          stored,
          deleted: false,
          props: state.deleted ? {} : state.props,
        };
      }
      case 'FileDeleted':
        return { ...state, deleted: true, props: {} };
      case 'FilePropertiesSet':
        return { ...state, props: event.data.props };
      case 'FileMovedOut': {
        const stored = new Map(state.stored);
        stored.delete(event.data.version);
        const latest = event.data.version === state.nextVersion - 1;
        return { ...state, stored, deleted: state.deleted || latest, props: latest ? {} : state.props };
      }
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
