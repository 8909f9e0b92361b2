/**
 * A share room as the read models show it (`UserShareRoom`: the partner interface's record of a
 * user's room), evolved by one pure function. Three projections keep such a view (the catalog's
 * rooms, accounts' brand-wide share list, and each user record's `share_rooms`); each adds fields
 * of its own (the catalog the shared folders and the password hash, the others their ids) and
 * calls this for the rest, so a change of what an event means is made once.
 */
import type { UserShareRoom } from '../accounts/records.js';
import type { ShareEvent, ShareRoomCreated } from './events.js';

/** A new room's view, from its creation. */
export const createdShareRoom = (d: ShareRoomCreated['data']): UserShareRoom => ({
  room_key: d.room_key,
  name: d.name,
  description: d.description,
  enabled: true,
  password_required: false,
  expires: d.expires ?? null,
  creation_time: d.at,
  update_time: d.at,
  last_login: null,
  downloads: 0,
  last_access: null,
});

/**
 * `room` after `event` (any share event but its creation): a copy with the view's fields changed
 * and every other field kept; null once the room is deleted; `room` itself for an event it does not
 * show (a caller then has nothing to write).
 */
export function evolveShareRoom<R extends UserShareRoom>(
  room: R,
  event: Exclude<ShareEvent, ShareRoomCreated>,
): R | null {
  switch (event.type) {
    case 'ShareRoomUpdated': {
      const { name, description, expires, at } = event.data;
      return {
        ...room,
        ...(name !== undefined ? { name } : {}),
        ...(description !== undefined ? { description } : {}),
        ...(expires !== undefined ? { expires } : {}),
        update_time: at,
      };
    }
    case 'ShareRoomEnabled':
    case 'ShareRoomDisabled':
      return { ...room, enabled: event.type === 'ShareRoomEnabled', update_time: event.data.at };
    case 'ShareRoomDeleted':
      return null;
    case 'ShareRoomAccessed': {
      const last = Math.max(room.last_access ?? 0, event.data.at);
      return { ...room, downloads: (room.downloads ?? 0) + event.data.downloads, last_access: last, last_login: last };
    }
    case 'ShareRoomPasswordSet':
      return { ...room, password_required: event.data.password_hash !== null, update_time: event.data.at };
    default:
      // an event of the stream this view does not show: the very same object, unchanged
      return room;
  }
}
