/** The routes (path, method, OpenAPI prose and examples) of the logged-in user's share rooms: list, create, update, delete. */
import {
  ROOM_DESCRIPTION_MAX_LENGTH,
  ROOM_NAME_MAX_LENGTH,
  SHARE_ROOM_DIRS_MAX,
  ROOM_KEY_PATTERN,
  SHARE_ROOMS_MAX,
  ShareRoomBody,
  UpdateShareRoomBody,
  z,
} from '@burrow/contracts';
import { route } from '../http/route.js';
import { empty, err, error, ex, pathParameter, reply } from '../openapi/builders.js';
import { notAnObject, notValidJson } from '../openapi/common.js';
import type { Response } from '../http/openapi-types.js';
import { STORAGE_AUTH } from './storage-write.routes.js';

export const ShareRoomObject = z
  .object({
    url: z
      .string()
      .describe(
        "the room's link as the original made it, `/browse/share/<b32 share id>/<room_key>` (redirects to the room at `/share/<b32 share id>/<room_key>/`; absolute when the server has BURROW_PUBLIC_URL)",
      ),
    room_key: z.string(),
    room_name: z.string(),
    room_description: z.string(),
    dirs: z.array(z.string()).describe('the shared folders, each `<device name>/<folder path>/`'),
    enabled: z.boolean().describe('false when the partner disabled the room: it is then not served publicly'),
    password_required: z
      .boolean()
      .describe("whether visitors must give the room password (HTTP Basic, or the room page's form)"),
    expires: z
      .int()
      .nullable()
      .describe('unix seconds after which the room answers 404 like an unknown one; null: never'),
    downloads: z
      .int()
      .min(0)
      .describe(
        'files and zips fetched from the room by its visitors (counted by the minute: a visit shows within a minute)',
      ),
    last_access: z.int().nullable().describe('unix seconds of the last visit; null: none yet'),
    number_of_files: z.int().min(0).describe('live files under the shared folders'),
    number_of_folders: z
      .int()
      .min(0)
      .describe('the shared folders that hold live files, and every folder below them that does'),
    creation_time: z.int(),
    update_time: z.int(),
  })
  .meta({ id: 'ShareRoomObject', description: "One of the logged-in user's share rooms." });

export const ShareListObject = z
  .object({
    share_id: z.string().describe("the user's share id"),
    share_id_b32: z.string().describe('the share id as it appears in share URLs (base32, upper case, no padding)'),
    share_rooms: z.array(ShareRoomObject).describe('the rooms, oldest first'),
  })
  .meta({ id: 'ShareListObject', description: "The logged-in user's share rooms (the spec's Share list object)." });

const exampleRoom = {
  url: 'https://burrow.example.com/browse/share/NJSG6ZI/holiday',
  room_key: 'holiday',
  room_name: 'Holiday 2026',
  room_description: 'Pictures from the trip',
  dirs: ['phone/DCIM/Camera/'],
  enabled: true,
  password_required: false,
  expires: null,
  downloads: 37,
  last_access: 1700090000,
  number_of_files: 214,
  number_of_folders: 3,
  creation_time: 1700000000,
  update_time: 1700000000,
} satisfies z.output<typeof ShareRoomObject>;

const userParam = pathParameter(
  'user',
  "the user's username (or the email they log in with), base32 without padding",
  { type: 'string' },
  'NJSG6ZI',
);
const USER_SECURITY = [{ userBasic: [] }];
const noRoom: Response = error('The user has no room with this key.', {
  noRoom: ex('unknown room', err('no share holiday')),
});
const badDirs = {
  noDevice: ex('unknown device', err('no device tablet (in "tablet/")', { fields: ['dirs'] })),
  noFolder: ex('no such folder', err('no folder Photos/ on device laptop', { fields: ['dirs'] })),
  badPath: ex(
    'malformed entry',
    err('invalid path: empty, "." and ".." segments are not allowed (in "laptop/../x/")', { fields: ['dirs'] }),
  ),
};
const ROOM_RULES =
  `\`room_name\` is 1 to ${ROOM_NAME_MAX_LENGTH} characters, \`room_description\` at most ${ROOM_DESCRIPTION_MAX_LENGTH} (both trimmed). ` +
  `\`dirs\` holds 1 to ${SHARE_ROOM_DIRS_MAX} shared folders, each \`<device name>/<folder path>/\` or \`<device name>/\` for a whole device ` +
  '(a leading `/` or a missing trailing `/` is accepted); each must be a live device of the user (any case) and a folder that holds live files. ' +
  'They are stored as the device spells its name, duplicates removed. A shared folder inside another of the same room is counted once.';

/**
 * POST: absent creates a room, present changes that room; DELETE: required (checked in the
 * handler, after a device URL has gone on to its own route).
 */
export const RoomKeyQuery = z.object({ room_key: z.string().regex(ROOM_KEY_PATTERN).optional() });

export const SHARE_ROOM_ROUTES = {
  list: route({
    method: 'get',
    path: 'storage/:user/shares',
    operation: {
      operationId: 'listShareRooms',
      tags: ['storage'],
      summary: "The logged-in user's share rooms",
      description:
        "The spec's Share list object: the user's share id and their rooms (at most " +
        `${SHARE_ROOMS_MAX}), oldest first, each with its friendly URL and what it holds. Rooms the partner disabled are listed with \`enabled: false\`.`,
      security: USER_SECURITY,
      parameters: [userParam],
      responses: {
        '200': reply('The share list.', ShareListObject, {
          list: ex('GET /storage/NJSG6ZI/shares', {
            share_id: 'jdoe',
            share_id_b32: 'NJSG6ZI',
            share_rooms: [exampleRoom],
          }),
          none: ex('no rooms yet', { share_id: 'jdoe', share_id_b32: 'NJSG6ZI', share_rooms: [] }),
        }),
        '404': error("Another user's storage (not revealed), or a deleted user.", {
          other: ex("another user's storage", err('no such storage')),
        }),
        ...STORAGE_AUTH,
      },
    },
  }),
  write: route({
    method: 'post',
    path: 'storage/:user/shares',
    query: RoomKeyQuery,
    body: z.union([ShareRoomBody, UpdateShareRoomBody]),
    operation: {
      operationId: 'writeShareRoom',
      tags: ['storage'],
      summary: 'Create a share room, or (with room_key) change one',
      description:
        'Without `room_key` in the query: creates a room (201) under `room_key` from the body, or a random 16-character URL-safe key when the body has none; ' +
        `a key the user already uses is a 409 naming \`room_key\`; a user has at most ${SHARE_ROOMS_MAX} rooms (400 beyond). ` +
        'With `?room_key=K`: changes the fields given (UpdateShareRoomBody; absent fields stay, a `room_key` in the body is ignored) and answers 200. ' +
        '`password` (8 to 1024 characters, stored as a scrypt hash; null or "" removes it) makes visitors give it: HTTP Basic with any user name, or the room page\'s form. ' +
        '`expires` (unix seconds, an ISO 8601 date or date-time, in the future; null or "never": never, the default) is when the room stops working: it then answers 404 like an unknown room. ' +
        `${ROOM_RULES} The partner's brand-wide share list and the user's \`share_rooms\` (interface A) show the change as soon as this answers.`,
      security: USER_SECURITY,
      parameters: [userParam],
      queryNotes: { room_key: { description: 'the room to change; absent: create a room', example: 'holiday' } },
      requestBody: {
        description: 'A new room (ShareRoomBody), or the fields to change (UpdateShareRoomBody).',
        examples: {
          create: ex('POST /storage/NJSG6ZI/shares', {
            room_key: 'holiday',
            room_name: 'Holiday 2026',
            room_description: 'Pictures from the trip',
            dirs: ['phone/DCIM/Camera/'],
          }),
          generated: ex('a generated key', { room_name: 'Work', dirs: ['laptop/Documents/Work/', 'laptop/Projects/'] }),
          update: ex('POST /storage/NJSG6ZI/shares?room_key=holiday', {
            room_name: 'Holiday 2026 (all)',
            dirs: ['phone/DCIM/'],
          }),
          password: ex('protect the room with a password', { password: 'summer-2026-photos' }),
          noPassword: ex('remove the password', { password: null }),
          expiry: ex('stop serving the room after a date (through its end, UTC)', { expires: '2026-12-31' }),
          noExpiry: ex('never expire', { expires: null }),
        },
      },
      responses: {
        '200': reply('The room, changed.', ShareRoomObject, {
          updated: ex('renamed', { ...exampleRoom, room_name: 'Holiday 2026 (all)', update_time: 1700003600 }),
          protected: ex('a password set', { ...exampleRoom, password_required: true, update_time: 1700003600 }),
        }),
        '201': reply('The room, created.', ShareRoomObject, { created: ex('created', exampleRoom) }),
        '400': error(
          'A malformed body, query or shared folder (named in `fields`), or the user already has as many rooms as allowed.',
          {
            ...badDirs,
            name: ex('empty name', err('invalid or missing parameters: room_name', { fields: ['room_name'] })),
            key: ex(
              'a key outside A-Z a-z 0-9 _ -',
              err('invalid or missing parameters: room_key', { fields: ['room_key'] }),
            ),
            tooMany: ex('room limit', err(`a user has at most ${SHARE_ROOMS_MAX} share rooms: delete one first`)),
            notAnObject,
            notValidJson,
          },
        ),
        '404': noRoom,
        '409': error('The user already has a room with this key.', {
          taken: ex('key in use', err('a share room with the key holiday exists', { conflicts: ['room_key'] })),
        }),
        '413': { $ref: '#/components/responses/PayloadTooLarge' },
        ...STORAGE_AUTH,
      },
    },
  }),
  remove: route({
    method: 'delete',
    path: 'storage/:user/shares',
    query: RoomKeyQuery,
    operation: {
      operationId: 'deleteShareRoom',
      tags: ['storage'],
      summary: 'Delete a share room',
      description: 'Deletes the room: its address stops working at once, and its key is free for a new room.',
      security: USER_SECURITY,
      parameters: [userParam],
      queryNotes: { room_key: { description: 'the room to delete', example: 'holiday', required: true } },
      responses: {
        '200': empty('Deleted.'),
        '400': error('room_key is missing or malformed.', {
          missing: ex('no room_key', err('name the room to delete: ?room_key=<key>', { fields: ['room_key'] })),
          malformed: ex('not a room key', err('invalid query parameters: room_key', { fields: ['room_key'] })),
        }),
        '404': noRoom,
        ...STORAGE_AUTH,
      },
    },
  }),
};
