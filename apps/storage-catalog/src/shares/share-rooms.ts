/**
 * The share rooms of one user (stream `share-<userId>`), owned by the storage catalog. Room
 * creation and editing arrive with the storage interface; enabling and disabling a room is what
 * the partner interface needs now.
 */
import { type Command, type Decider, notFound, type ShareEvent, type ShareRoomData } from '@burrow/contracts';

export interface ShareRoomsState {
  rooms: Map<string, ShareRoomData & { enabled: boolean }>;
}

export type SetShareRoomEnabled = Command<'SetShareRoomEnabled', { room_key: string; enabled: boolean; at: number }>;
export type ShareRoomsCommand = SetShareRoomEnabled;

export const shareRoomsDecider: Decider<ShareRoomsState, ShareRoomsCommand, ShareEvent> = {
  initialState: { rooms: new Map() },
  decide(command, state) {
    const room = state.rooms.get(command.room_key);
    if (!room) throw notFound(`no share ${command.room_key}`);
    if (room.enabled === command.enabled) return [];
    return [{ type: command.enabled ? 'ShareRoomEnabled' : 'ShareRoomDisabled', data: { room_key: command.room_key, at: command.at } }];
  },
  evolve(state, event) {
    const rooms = new Map(state.rooms);
    const current = rooms.get(event.data.room_key);
    switch (event.type) {
      case 'ShareRoomCreated':
        rooms.set(event.data.room_key, { room_key: event.data.room_key, name: event.data.name, description: event.data.description, dirs: event.data.dirs, enabled: true });
        break;
      case 'ShareRoomUpdated':
        if (current) rooms.set(event.data.room_key, { ...current, ...event.data });
        break;
      case 'ShareRoomEnabled':
      case 'ShareRoomDisabled':
        if (current) rooms.set(event.data.room_key, { ...current, enabled: event.type === 'ShareRoomEnabled' });
        break;
      case 'ShareRoomDeleted':
        rooms.delete(event.data.room_key);
        break;
    }
    return { rooms };
  },
};
