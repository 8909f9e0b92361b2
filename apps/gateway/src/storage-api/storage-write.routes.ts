/** The routes (path, method, OpenAPI prose and examples) of writing into the storage namespace: device registration, uploads, deletes. */
import { RegisterDeviceBody, z } from '@burrow/contracts';
import { JSON_BODY_LIMIT } from '../http/json-body.js';
import { route } from '../http/route.js';
import { ERROR_SCHEMA, empty, err, error, ex, pathParameter, reply } from '../openapi/builders.js';
import { jsonSchema } from '../openapi/schemas.js';
import type { Reference, Response } from '../http/openapi-types.js';

export const DeviceReply = z
  .object({
    name: z.string(),
    sysplatform: z.string(),
    client_revision: z.int(),
    creation_time: z.int(),
    lastlogin: z.int().nullable(),
    lastcommit: z.int().nullable(),
    last_backup_complete: z.int().nullable(),
  })
  .meta({ id: 'DeviceReply', description: 'A device after its registration or login.' });

export const UploadReply = z
  .object({
    path: z.string().describe('the file path within its device'),
    name: z.string(),
    version: z.int().min(0).describe('counts from 0'),
    size: z.int().min(0),
    sha256: z.string().describe('the content hash (identical content is stored once)'),
    crc32: z.int().min(0),
    sha1: z
      .string()
      .regex(/^[0-9a-f]{40}$/)
      .describe('SHA-1 of the content, lowercase hex (what WebDAV serves as oc:checksums and OC-Checksum)'),
    md5: z
      .string()
      .regex(/^[0-9a-f]{32}$/)
      .describe('MD5 of the content, lowercase hex'),
    mtime: z.int(),
    ctime: z.int(),
  })
  .meta({ id: 'UploadReply', description: 'The version an upload committed.' });

const storagePath = pathParameter(
  'path',
  '`<b32 username>/<device>/` (a device), `<b32 username>/<device>/<folder path>/` (a folder) or `<b32 username>/<device>/<file path>` (a file); each segment percent-encoded, decoded once: an encoded slash, NUL, `.` or `..` is a 400; any other character (backslashes, control characters, quotes) is part of the name, kept exactly (docs/api.md, "File names")',
  { type: 'string' },
  'QW5O/laptop/Documents/report.pdf',
);

/** What every storage request can answer without a valid login (user HTTP Basic; cookie sessions later). */
export const STORAGE_AUTH: Record<string, Response | Reference> = {
  '401': {
    description: 'Not logged in: HTTP Basic with the username (or email) and password is required.',
    headers: {
      'WWW-Authenticate': {
        description: 'Basic challenge, realm `burrow/<b32 username>`',
        schema: { type: 'string' },
        example: 'Basic realm="burrow/MFXG4"',
      },
    },
    content: {
      'application/json': {
        schema: ERROR_SCHEMA,
        examples: {
          missing: ex('no credentials', err('login required (HTTP Basic with your username or email and password)')),
        },
      },
    },
  },
  '403': error('The account is disabled, or its group has the web interface turned off.', {
    disabled: ex('disabled user', err('this account is disabled')),
    group: ex('web interface off for the group', err("the web interface is turned off for this user's group")),
  }),
  '429': {
    description: 'Too many failed logins for this name or from this address.',
    headers: {
      'Retry-After': { description: 'seconds to wait', schema: { type: 'integer', minimum: 1 }, example: '60' },
    },
    content: {
      'application/json': {
        schema: ERROR_SCHEMA,
        examples: {
          locked: ex('locked', err('too many failed logins for this account; retry later', { retry_after: 60 })),
        },
      },
    },
  },
  '503': { $ref: '#/components/responses/ServiceUnavailable' },
};

const USER_SECURITY = [{ userBasic: [] }];

export const STORAGE_WRITE_ROUTES = {
  put: route({
    method: 'put',
    path: 'storage/*path',
    operation: {
      operationId: 'writeStorage',
      tags: ['storage'],
      summary: 'Register a device, or upload a new version of a file',
      description:
        'On a device URL (ending with `/`): registers the device or updates it (a JSON body, parsed whatever the content type, at most ' +
        `${JSON_BODY_LIMIT} bytes); every such write is a device login and moves the user's last_login. On a file URL: the body is the file's bytes, ` +
        'streamed into the blob store and committed as the next version (numbered from 0); missing folders appear with it; `X-Burrow-Mtime` and ' +
        '`X-Burrow-Ctime` (unix seconds) set its times (default: now). An upload that would take the user past plan + bonus bytes is refused with 507 ' +
        'and stores nothing: before reading the body when `Content-Length` is given, otherwise (chunked) as soon as the bytes pass what the quota still ' +
        'holds; the connection is then closed. A client that disconnects half way, or sends nothing for BURROW_IDLE_TIMEOUT_SECONDS, leaves no version ' +
        'and no blob. The bytes are stored as sent: a body in a transfer coding other than chunked is refused (501), one with a Content-Encoding (415).',
      security: USER_SECURITY,
      parameters: [
        storagePath,
        {
          name: 'X-Burrow-Mtime',
          in: 'header',
          description: 'modification time, unix seconds (file uploads)',
          required: false,
          schema: { type: 'integer', minimum: 0 },
          example: 1700000000,
        },
        {
          name: 'X-Burrow-Ctime',
          in: 'header',
          description: 'creation time, unix seconds (file uploads)',
          required: false,
          schema: { type: 'integer', minimum: 0 },
          example: 1690000000,
        },
      ],
      requestBody: {
        description: 'A device registration (JSON) on a device URL; the file bytes on a file URL.',
        required: false,
        content: {
          'application/json': {
            schema: jsonSchema(RegisterDeviceBody),
            examples: {
              device: ex('a device login', { sysplatform: 'linux', client_revision: 1207, backup_complete: true }),
            },
          },
          'application/octet-stream': {
            schema: { type: 'string', format: 'binary' },
            examples: { bytes: ex('file content', 'hello world') },
          },
        },
      },
      responses: {
        '200': reply('The device, registered or logged in.', DeviceReply, {
          device: ex('PUT /storage/MFXG4/laptop/', {
            name: 'laptop',
            sysplatform: 'linux',
            client_revision: 1207,
            creation_time: 1700000000,
            lastlogin: 1700500000,
            lastcommit: 1700499000,
            last_backup_complete: 1700500000,
          }),
        }),
        '201': reply('The version committed.', UploadReply, {
          upload: ex('PUT /storage/MFXG4/laptop/Documents/report.pdf', {
            path: 'Documents/report.pdf',
            name: 'report.pdf',
            version: 3,
            size: 52431,
            sha256: 'a'.repeat(64),
            crc32: 3735928559,
            sha1: 'b'.repeat(40),
            md5: 'c'.repeat(32),
            mtime: 1700000000,
            ctime: 1690000000,
          }),
        }),
        '400': error('A malformed path or body, or a PUT on a folder URL (folders appear with their files).', {
          path: ex('encoded slash', err('invalid path: a name cannot contain a slash', { fields: ['path'] })),
        }),
        '404': error("No such device (register it first), or another user's storage.", {
          device: ex('unknown device', err('no device phone')),
        }),
        '415': error('A Content-Encoding (gzip, ...) on a file upload: the bytes would be stored still encoded.', {
          coding: ex('gzip body', err("Content-Encoding gzip is not supported: upload the file's own bytes")),
        }),
        '501': error(
          'A transfer coding other than chunked (e.g. `Transfer-Encoding: gzip, chunked`), which the gateway does not decode.',
          {
            coding: ex(
              'gzip transfer coding',
              err('transfer coding gzip is not supported: send the body as it is, chunked or with a Content-Length'),
            ),
          },
        ),
        '507': error(
          "The upload would take the user past plan + bonus bytes, or the server's disk is low or full (a device registration too, when it is full); nothing was stored.",
          {
            quota: ex(
              'quota full',
              err('storage quota exceeded: the upload would take the user past plan + bonus bytes'),
            ),
            diskLow: ex(
              'disk below BURROW_MIN_FREE_DISK_MB',
              err('the server is low on disk space: uploads are refused until space is freed'),
            ),
            diskFull: ex(
              'disk full',
              err('the server has no disk space left: nothing was stored; retry once space is freed'),
            ),
          },
        ),
        ...STORAGE_AUTH,
      },
    },
  }),
  remove: route({
    method: 'delete',
    path: 'storage/*path',
    operation: {
      operationId: 'deleteStorage',
      tags: ['storage'],
      summary: 'Delete a file, a folder and everything under it, or a device',
      description:
        'A file or folder is hidden from listings at once; its versions stay until purged (autopurge_interval). A device URL removes the device: hidden at once, its stored versions purged after.',
      security: USER_SECURITY,
      parameters: [storagePath],
      responses: {
        '200': empty('Deleted.'),
        '400': error('A malformed path, or the device root given as a folder.', {
          path: ex('bad path', err('invalid path: empty, "." and ".." segments are not allowed', { fields: ['path'] })),
        }),
        '404': error('No such device, folder or file.', { file: ex('unknown file', err('no file Documents/x.txt')) }),
        ...STORAGE_AUTH,
      },
    },
  }),
};
