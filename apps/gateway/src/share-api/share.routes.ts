/** The routes (path, method, OpenAPI prose and examples) of public share rooms and single-file links (no login). */
import { z } from '@burrow/contracts';
import { route } from '../http/route.js';
import { err, error, ex, pathParameter, responseRef } from '../openapi/builders.js';

export const ShareRootObject = z
  .object({
    browse_url: z
      .string()
      .describe(
        'the room link for people, as the original made it: `/browse/share/<b32 share id>/<room key>` (absolute with BURROW_PUBLIC_URL), which leads here',
      ),
    stats: z.object({
      start_date: z.literal('').describe('always empty (the original service sends "")'),
      room_name: z.string(),
      room_description: z.string(),
      number_of_files: z.int().min(0),
      number_of_folders: z.int().min(0),
      firstname: z.string(),
      lastname: z.string(),
      room_size: z.string().describe('bytes of the latest versions, human-readable'),
    }),
    dirs: z.array(z.tuple([z.string(), z.string()])).describe('the room folders as [name, relative URL]'),
  })
  .meta({ id: 'ShareRootObject', description: "A share room's root." });

const sharePath = pathParameter(
  'path',
  '`<b32 share id>/<room key>/` (the room; the share id may also be given as it is), then a folder (ending with `/`) or a file under one of its folders',
  { type: 'string' },
  'GEZDGNBV/holiday/Photos/beach.jpg',
);
const unavailable = responseRef('ServiceUnavailable');

export const SHARE_ROUTES = {
  room: route({
    method: 'get',
    path: 'share/*path',
    operation: {
      operationId: 'readShare',
      tags: ['shares'],
      summary: 'A share room: its root, folders, files, previews, zips',
      description:
        'No login. The room\'s root object lists its folders under their own names (a second folder of the same name gets " (2)"); below it ' +
        'folder objects and files as in the storage interface (`?version=n`, `?preview_48`, `?format=version_info`, Range and conditional requests); ' +
        '`?format=zip` on any folder, or on the room root for all its folders. A path may end with `//` (the mobile app adds a `/` to a room URL): ' +
        'it is the folder. An unknown, disabled or deleted room, or one whose owner is disabled, is a 404.',
      security: [],
      'x-burrow-lenient-query': true,
      parameters: [
        sharePath,
        {
          name: 'format',
          in: 'query',
          description: 'zip: the folder as a zip; version_info: the versions of a file',
          required: false,
          schema: { type: 'string', enum: ['zip', 'version_info'] },
          example: 'zip',
        },
        {
          name: 'auth_required_format',
          in: 'query',
          description:
            'json: a room whose password was not given answers 200 `{"password_required": true}` instead of 401 (what the mobile app asks)',
          required: false,
          schema: { type: 'string', enum: ['json'] },
          example: 'json',
        },
      ],
      responses: {
        '200': {
          description: 'The room root or a folder (JSON), file bytes, or a zip.',
          content: {
            'application/json': {
              schema: {
                oneOf: [
                  { $ref: '#/components/schemas/ShareRootObject' },
                  { $ref: '#/components/schemas/FolderObject' },
                  {
                    type: 'object',
                    properties: { password_required: { const: true } },
                    required: ['password_required'],
                    additionalProperties: false,
                  },
                ],
              },
              examples: {
                room: ex('GET /share/GEZDGNBV/holiday/', {
                  browse_url: 'https://burrow.example.com/browse/share/GEZDGNBV/holiday',
                  stats: {
                    start_date: '',
                    room_name: 'Holiday',
                    room_description: 'Pictures\nfrom the trip',
                    number_of_files: 12,
                    number_of_folders: 2,
                    firstname: 'Ann',
                    lastname: 'Lee',
                    room_size: '35.2 MB',
                  },
                  dirs: [['Photos', 'Photos/']],
                }),
                passwordPrompt: ex('a room with a password, asked with ?auth_required_format=json and no password', {
                  password_required: true,
                }),
              },
            },
            'application/octet-stream': {
              schema: { type: 'string', format: 'binary' },
              examples: { file: ex('file bytes', '...') },
            },
          },
        },
        '206': {
          description: 'A byte range of a file or zip.',
          content: {
            'application/octet-stream': {
              schema: { type: 'string', format: 'binary' },
              examples: { part: ex('part', '...') },
            },
          },
        },
        '304': { description: 'Not modified (If-None-Match / If-Modified-Since). The body is empty.' },
        '400': error('A malformed path.', {
          path: ex('encoded slash', err('invalid path: a name cannot contain a slash', { fields: ['path'] })),
        }),
        '401': {
          ...error(
            'The room has a password and none was given (HTTP Basic with any user name and the room password, or the room cookie its page sets), or a wrong one. With `?auth_required_format=json` a missing password is a 200 `{"password_required": true}` instead.',
            {
              needed: ex('no password given', {
                reason: 'this share room needs its password',
                password_required: true,
              }),
              wrong: ex('a wrong password', err('wrong password for this share room')),
            },
          ),
          headers: {
            'WWW-Authenticate': {
              description: 'Basic challenge',
              schema: { type: 'string' },
              example: 'Basic realm="burrow share room", charset="UTF-8"',
            },
          },
        },
        '403': error(
          "The room owner's partner has sharing turned off (sharing_enabled false): every room of its users stops until it is turned back on.",
          { off: ex('sharing off', err('sharing is turned off for this account')) },
        ),
        '404': error('No such room (or disabled), folder or file.', {
          room: ex('unknown room', err('no share holiday')),
        }),
        '429': { $ref: '#/components/responses/TooManyRequests' },
        '503': unavailable,
      },
    },
  }),
  roomPost: route({
    method: 'post',
    path: 'share/*path',
    operation: {
      operationId: 'writeShare',
      tags: ['shares'],
      summary: 'Refused: share rooms are read-only',
      security: [],
      parameters: [sharePath],
      responses: {
        '200': { description: 'Never: every POST is refused.' },
        '405': error('Share rooms are read-only (`Allow: GET, HEAD`).', {
          refused: ex('POST on a share file', err('share rooms are read-only: only GET and HEAD are allowed here')),
        }),
      },
    },
  }),
  browseShare: route({
    method: 'get',
    path: 'browse/share/*path',
    operation: {
      operationId: 'browseShare',
      tags: ['shares'],
      summary: 'A room by the link people are handed (redirects to the room)',
      description:
        "The room link Burrow hands out (the share list's `url`, a room's `browse_url`), as the original did: `/browse/share/<share id>/<room key>[/<path>]`, with the share id " +
        'in base32 or as it is (how the management appliance shows it). Redirects to the same place under `/share/<b32 share id>/<room key>/`, query kept; that address says whether the room exists.',
      security: [],
      'x-burrow-lenient-query': true,
      parameters: [
        pathParameter(
          'path',
          '`<share id>/<room key>`, then optionally a folder or file of the room',
          { type: 'string' },
          '12345/holiday',
        ),
      ],
      responses: {
        '302': {
          description: 'The room at its own address.',
          headers: {
            Location: { description: 'the room URL', schema: { type: 'string' }, example: '/share/GEZDGNBV/holiday/' },
          },
        },
        '400': error('A malformed path.', {
          path: ex('encoded slash', err('invalid path: a name cannot contain a slash', { fields: ['path'] })),
        }),
        '404': error('No share id or room key in the path.', { missing: ex('no room key', err('no such share')) }),
      },
    },
  }),
  link: route({
    method: 'get',
    path: 'link/:token/*name',
    operation: {
      operationId: 'downloadLink',
      tags: ['shares'],
      summary: 'A single-file share link',
      description:
        'The file version the link was made for, without login, for 3 days; Range and conditional requests as for any download. An expired, altered or revoked link is a 403.',
      security: [],
      parameters: [
        pathParameter('token', 'the signed link token', { type: 'string' }, 'eyJ1Ijoi...In0.k1.c2ln'),
        pathParameter('name', 'the file name (for the browser)', { type: 'string' }, 'report.pdf'),
      ],
      responses: {
        '200': {
          description: 'The bytes.',
          content: {
            'application/octet-stream': {
              schema: { type: 'string', format: 'binary' },
              examples: { file: ex('file bytes', '...') },
            },
          },
        },
        '206': {
          description: 'A byte range.',
          content: {
            'application/octet-stream': {
              schema: { type: 'string', format: 'binary' },
              examples: { part: ex('part', '...') },
            },
          },
        },
        '304': { description: 'Not modified. The body is empty.' },
        '403': error('Expired, altered or revoked; or sharing is off for the account.', {
          expired: ex('expired', err('this link is not valid: it has expired or been altered')),
        }),
        '404': error('The version is gone (purged).', { gone: ex('gone', err('no version 2 of Documents/x.txt')) }),
        '410': error(
          'The file the link was made for was deleted, or its device removed, since (even if something was uploaded to that name again).',
          {
            deleted: ex(
              'file deleted',
              err('the file this link or session extension was made for has been deleted or replaced'),
            ),
          },
        ),
        '503': unavailable,
      },
    },
  }),
};
