/**
 * The share rooms of one user (stream `share-<userId>`), owned by the storage catalog: the user
 * creates, edits and deletes their rooms (storage interface); the partner enables and disables
 * them (interface A); either sets or removes a room's password (the hash made by the accounts
 * service beforehand). Room keys are unique within the stream; a user has at most
 * `SHARE_ROOMS_MAX` rooms. The shared folders arrive here already checked and canonical
 * (`share-dirs.ts` needs the devices and the catalog, which a pure decider cannot read).
 */
import {
  badRequest,
  type Command,
  conflict,
  type Decider,
  notFound,
  SHARE_ROOMS_MAX,
  type ShareEvent,
  type ShareRoomData,
  type ShareRoomUpdated,
} from '@burrow/contracts';

export type ShareRoomState = ShareRoomData & { enabled: boolean; has_password: boolean };

export interface ShareRoomsState {
  rooms: Map<string, ShareRoomState>;
}

export type CreateShareRoom = Command<
  'CreateShareRoom',
  ShareRoomData & { userId: string; partnerId: string; at: number }
>;
export type UpdateShareRoom = Command<
  'UpdateShareRoom',
  { room_key: string; changes: Partial<Omit<ShareRoomData, 'room_key'>>; at: number }
>;
export type DeleteShareRoom = Command<'DeleteShareRoom', { room_key: string; at: number }>;
export type SetShareRoomEnabled = Command<'SetShareRoomEnabled', { room_key: string; enabled: boolean; at: number }>;
/** password_hash: the new password's hash, or null to remove the password */
export type SetShareRoomPassword = Command<
  'SetShareRoomPassword',
  { room_key: string; password_hash: string | null; at: number }
>;
/** Visits counted since the last record (a room deleted meanwhile records nothing) */
export type RecordShareRoomAccess = Command<
  'RecordShareRoomAccess',
  { room_key: string; downloads: number; at: number }
>;
export type ShareRoomsCommand =
  | CreateShareRoom
  | UpdateShareRoom
  | DeleteShareRoom
  | SetShareRoomEnabled
  | SetShareRoomPassword
  | RecordShareRoomAccess;

const sameDirs = (a: string[], b: string[]) => a.length === b.length && a.every((d, i) => d === b[i]);

function requireRoom(state: ShareRoomsState, room_key: string): ShareRoomState {
  const room = state.rooms.get(room_key);
  if (!room) throw notFound(`no share ${room_key}`);
  return room;
}

/** Only the fields that change; none when the update changes nothing. */
function decideUpdate(command: UpdateShareRoom, room: ShareRoomState): ShareEvent[] {
  const { name, description, dirs, expires } = command.changes;
  const changed: ShareRoomUpdated['data'] = { room_key: command.room_key, at: command.at };
  if (name !== undefined && name !== room.name) changed.name = name;
  if (description !== undefined && description !== room.description) changed.description = description;
  if (dirs !== undefined && !sameDirs(dirs, room.dirs)) changed.dirs = dirs;
  if (expires !== undefined && expires !== (room.expires ?? null)) changed.expires = expires;
  return Object.keys(changed).length > 2 ? [{ type: 'ShareRoomUpdated', data: changed }] : [];
}

export const shareRoomsDecider: Decider<ShareRoomsState, ShareRoomsCommand, ShareEvent> = {
  initialState: { rooms: new Map() },
  decide(command, state) {
    switch (command.type) {
      case 'CreateShareRoom': {
        if (state.rooms.has(command.room_key))
          throw conflict(`a share room with the key ${command.room_key} exists`, ['room_key']);
        if (state.rooms.size >= SHARE_ROOMS_MAX)
          throw badRequest(`a user has at most ${SHARE_ROOMS_MAX} share rooms: delete one first`);
        const { type: _t, ...data } = command;
        return [{ type: 'ShareRoomCreated', data }];
      }
      case 'UpdateShareRoom':
        return decideUpdate(command, requireRoom(state, command.room_key));
      case 'DeleteShareRoom':
        requireRoom(state, command.room_key);
        return [{ type: 'ShareRoomDeleted', data: { room_key: command.room_key, at: command.at } }];
      case 'SetShareRoomEnabled': {
        const room = requireRoom(state, command.room_key);
        if (room.enabled === command.enabled) return [];
        return [
          {
            type: command.enabled ? 'ShareRoomEnabled' : 'ShareRoomDisabled',
            data: { room_key: command.room_key, at: command.at },
          },
        ];
      }
      case 'RecordShareRoomAccess':
        if (!state.rooms.has(command.room_key)) return [];
        return [
          {
            type: 'ShareRoomAccessed',
            data: { room_key: command.room_key, downloads: command.downloads, at: command.at },
          },
        ];
      case 'SetShareRoomPassword': {
        const room = requireRoom(state, command.room_key);
        // removing a password there is not is nothing; a new hash is always news (even of the same password)
        if (command.password_hash === null && !room.has_password) return [];
        return [
          {
            type: 'ShareRoomPasswordSet',
            data: { room_key: command.room_key, password_hash: command.password_hash, at: command.at },
          },
        ];
      }
    }
  },
  evolve(state, event) {
    const rooms = new Map(state.rooms);
    const current = rooms.get(event.data.room_key);
    switch (event.type) {
      case 'ShareRoomCreated':
        rooms.set(event.data.room_key, {
          room_key: event.data.room_key,
          name: event.data.name,
          description: event.data.description,
          dirs: event.data.dirs,
          expires: event.data.expires ?? null,
          enabled: true,
          has_password: false,
        });
        break;
      case 'ShareRoomUpdated': {
        if (!current) break;
        const { at: _at, ...changes } = event.data;
        rooms.set(event.data.room_key, { ...current, ...changes });
        break;
      }
      case 'ShareRoomEnabled':
      case 'ShareRoomDisabled':
        if (current) rooms.set(event.data.room_key, { ...current, enabled: event.type === 'ShareRoomEnabled' });
        break;
      case 'ShareRoomDeleted':
        rooms.delete(event.data.room_key);
        break;
      case 'ShareRoomPasswordSet':
        if (current) rooms.set(event.data.room_key, { ...current, has_password: event.data.password_hash !== null });
        break;
    }
    return { rooms };
  },
};
