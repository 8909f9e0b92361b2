/**
 * The routes (path, method, OpenAPI prose and examples) of reading the storage interface (B) and logging in: the spec's objects (storage root,
 * folder, file, version list), downloads, zips, links and session extensions.
 */
import { z } from '@burrow/contracts';
import { route } from '../http/route.js';
import { ERROR_SCHEMA, err, error, ex, pathParameter, responseRef } from '../openapi/builders.js';
import type { Parameter, Reference, Response } from '../http/openapi-types.js';
import { STORAGE_AUTH } from './storage-write.routes.js';

export const FileObject = z
  .object({
    url: z
      .string()
      .describe(
        'relative, percent-encoded: folder URL + url is the file; in a version list it ends with `?version=<n>`',
      ),
    name: z.string(),
    size: z.int().min(0),
    ctime: z.int(),
    mtime: z.int(),
    etime: z.int().describe('when this version was backed up (unix seconds)'),
    preview_25: z.string().optional().describe('relative URL of the 25 px preview (images only, once made)'),
    preview_48: z.string().optional(),
    preview_228: z.string().optional(),
    preview_800: z.string().optional(),
    versions: z.int().min(1).optional().describe('versions stored (folder listings only)'),
  })
  .meta({
    id: 'FileObject',
    description: 'A file: in a folder listing its latest version, in a version list one version.',
  });

export const FolderObject = z
  .object({
    dirs: z
      .array(z.tuple([z.string(), z.string()]))
      .describe('subfolders as [display name, relative URL ending with /]'),
    files: z.array(FileObject),
  })
  .meta({
    id: 'FolderObject',
    description: 'A folder: subfolders first, then files, each by name. Streamed a catalog page at a time.',
  });

const DeviceObject = z
  .object({
    name: z.string(),
    url: z.string().describe('relative URL of the device (storage root + url)'),
    encoded: z.string().describe('the same as url (older clients read this one)'),
    lastcommit: z.int().describe('unix seconds of the last committed version; 0 when none'),
    lastlogin: z.int().describe('unix seconds of the last device login; 0 when none'),
    sysplatform: z.string(),
  })
  .meta({ id: 'DeviceObject' });

export const StorageRootObject = z
  .object({
    stats: z.object({
      firstname: z.string(),
      lastname: z.string(),
      devices: z.int().min(0),
      backupsize: z.string().describe('stored bytes, human-readable (decimal units)'),
      size: z
        .number()
        .describe(
          'plan + bonus in GB (10^9 bytes); unlimited plans: 1000000001 (their 1000000001000000000 bytes), as the original service sent',
        ),
      backupsize_for_robots: z
        .string()
        .regex(/^\d+$/)
        .describe('stored bytes (every version), as a decimal string like the original service (clients parseInt it)'),
      size_for_robots: z.int().min(0).describe('plan + bonus in bytes; unlimited plans: 1000000001000000000'),
      billing_url: z.string().describe('where the user manages billing; empty when the partner has none'),
    }),
    devices: z
      .union([z.array(z.tuple([z.string(), z.string()])), z.array(DeviceObject)])
      .describe('[name, relative URL] pairs; with device_info=yes, device objects'),
  })
  .meta({ id: 'StorageRootObject', description: "The user's storage root." });

const b32User = pathParameter(
  'user',
  'base32 (RFC 4648, upper case, no padding) of the username or the email address',
  { type: 'string', pattern: '^[A-Za-z2-7]+=*$' },
  'MFXG4',
);

const storagePath = pathParameter(
  'path',
  '`<b32 username>/` (the root), `<b32>/<device>/<folder path>/` (a folder) or `<b32>/<device>/<file path>` (a file); segments percent-encoded and decoded once: an encoded slash, NUL, `.` or `..` is a 400',
  { type: 'string' },
  'MFXG4/laptop/Documents/report.pdf',
);

const query = (name: string, description: string, schema: Parameter['schema'], example: unknown): Parameter => ({
  name,
  in: 'query',
  description,
  required: false,
  schema,
  example,
});

const text = (description: string, value: string, headers?: Response['headers']): Response => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'text/plain': { schema: { type: 'string' }, examples: { reply: ex(description, value) } } },
});

const binary = (description: string, type: string): Response => ({
  description,
  headers: {
    'Content-Length': { description: 'bytes in this response', schema: { type: 'integer' }, example: '52431' },
    ETag: {
      description: 'strong: the content hash (a zip: a hash of its entries)',
      schema: { type: 'string' },
      example: `"${'a'.repeat(64)}"`,
    },
    'Last-Modified': {
      description: "the file's mtime (a zip: its newest file's)",
      schema: { type: 'string' },
      example: 'Tue, 14 Nov 2023 22:13:20 GMT',
    },
  },
  content: { [type]: { schema: { type: 'string', format: 'binary' }, examples: { bytes: ex('content', '...') } } },
});

const DOWNLOAD_RESPONSES: Record<string, Response> = {
  '206': {
    description: 'One byte range (`Range`, honoured when `If-Range` still matches); `Content-Range` says which.',
    headers: {
      'Content-Range': { description: 'the range sent', schema: { type: 'string' }, example: 'bytes 1000-1999/52431' },
    },
    content: {
      'application/octet-stream': {
        schema: { type: 'string', format: 'binary' },
        examples: { part: ex('part', '...') },
      },
    },
  },
  '304': {
    description:
      '`If-None-Match` names the current ETag (or `If-Modified-Since` is not older than it). The body is empty.',
  },
  '416': {
    description: 'The range lies outside the content; `Content-Range: bytes */<size>`.',
    headers: {
      'Content-Range': { description: 'the whole size', schema: { type: 'string' }, example: 'bytes */52431' },
    },
    content: {
      'application/json': {
        schema: ERROR_SCHEMA,
        examples: { outside: ex('past the end', err("the range is outside the file's 52431 bytes")) },
      },
    },
  },
};

const LENIENT = { 'x-burrow-lenient-query': true } as const;
const USER_SECURITY: Record<string, string[]>[] = [{ userBasic: [] }, { userSession: [] }];

export const STORAGE_READ_ROUTES = {
  get: route({
    method: 'get',
    path: 'storage/*path',
    operation: {
      operationId: 'readStorage',
      tags: ['storage'],
      summary:
        'The storage root, a folder, a file (any version), a preview, a version list, a zip or a session extension',
      description:
        'Logged in by HTTP Basic (username or email), the session cookie, or `se=` (a session extension: that file only, never a folder of the same ' +
        'path, from its address, while the file is the one it was made for: once it is deleted or its device removed, a 410). ' +
        'On `<b32>/`: the storage root object (`device_info=yes`: device objects). On a folder URL (ending with `/`): the folder object, or with ' +
        "`format=zip` the folder as a zip (entries stored under the folder's name, UTF-8 names, zip64 when needed) with a precomputed " +
        '`Content-Length`, an `ETag`, and `Range` support (resume a broken download). On a file URL: the bytes of the latest version, of ' +
        '`version=<n>` (its integer prefix: `1cb=17000` is 1), or of a preview (`?preview_48`, the bare key); `format=version_info` lists ' +
        'every version (a bare array, oldest first); `format=session_extension&ip=<addr>` (on a file URL, logged in by Basic or the cookie: an ' +
        'extension never makes another) returns a string that, appended as `se=`, lets that address GET this URL without login for the ' +
        "partner's `share_link_ttl` minutes (default 10080), while the partner keeps sharing on and the user is neither disabled nor has changed the password since. Downloads honour `Range`, `If-Range`, " +
        '`If-None-Match` and `If-Modified-Since`. A file whose stored bytes are missing from the blob store is a 500 with that reason; a zip ' +
        'that meets one after its first byte is cut off (the connection is reset short of its `Content-Length`), never completed. ' +
        'Unknown query parameters are ignored.',
      security: USER_SECURITY,
      ...LENIENT,
      parameters: [
        storagePath,
        query('device_info', 'yes: devices as objects (storage root only)', { type: 'string', enum: ['yes'] }, 'yes'),
        query(
          'format',
          'zip (folders), version_info or session_extension (files)',
          { type: 'string', enum: ['zip', 'version_info', 'session_extension'] },
          'version_info',
        ),
        query('version', 'a version number (from 0); its integer prefix is used', { type: 'string' }, '2'),
        query('ip', 'the third party address for format=session_extension', { type: 'string' }, '203.0.113.7'),
        query('se', 'a session extension string', { type: 'string' }, 'eyJ1Ijoi...'),
        query(
          'preview_48',
          'present (no value needed): the 48 px preview; also preview_25, preview_228, preview_800',
          { type: 'string', enum: [''] },
          '',
        ),
      ],
      responses: {
        '200': {
          description: 'The object (JSON), the file or preview bytes, the zip, or the session extension (text/plain).',
          content: {
            'application/json': {
              schema: {
                oneOf: [
                  { $ref: '#/components/schemas/StorageRootObject' },
                  { $ref: '#/components/schemas/FolderObject' },
                  { type: 'array', items: { $ref: '#/components/schemas/FileObject' } },
                ],
              },
              examples: {
                root: ex('GET /storage/MFXG4/', {
                  stats: {
                    firstname: 'Ann',
                    lastname: 'Lee',
                    devices: 1,
                    backupsize: '1.2 GB',
                    size: 100,
                    backupsize_for_robots: '1200000000',
                    size_for_robots: 100000000000,
                    billing_url: '',
                  },
                  devices: [['laptop', 'laptop/']],
                }),
                folder: ex('GET /storage/MFXG4/laptop/Documents/', {
                  dirs: [['Sub dir', 'Sub%20dir/']],
                  files: [
                    {
                      url: 'report.pdf',
                      name: 'report.pdf',
                      size: 52431,
                      ctime: 1690000000,
                      mtime: 1700000000,
                      etime: 1700000100,
                      versions: 2,
                    },
                  ],
                }),
                versions: ex('?format=version_info', [
                  {
                    url: 'photo.jpg?version=0',
                    name: 'photo.jpg',
                    size: 1000,
                    ctime: 1690000000,
                    mtime: 1690000000,
                    etime: 1690000100,
                    preview_800: 'photo.jpg?version=0&preview_800',
                  },
                ]),
              },
            },
            'application/octet-stream': {
              schema: { type: 'string', format: 'binary' },
              examples: { file: ex('file bytes', '...') },
            },
            'application/zip': {
              schema: { type: 'string', format: 'binary' },
              examples: { zip: ex('folder as zip', '...') },
            },
            'text/plain': {
              schema: { type: 'string' },
              examples: { se: ex('format=session_extension', 'eyJ1IjoiLi4uIn0.k1.c2ln') },
            },
          },
          headers: binary('', 'application/octet-stream').headers,
        },
        ...DOWNLOAD_RESPONSES,
        '400': error('A malformed path, version, ip or preview width; a session extension asked for a folder.', {
          path: ex('encoded slash', err('invalid path: a name cannot contain a slash', { fields: ['path'] })),
        }),
        '410': error(
          'A session extension whose file was deleted (or its device removed) since it was made, even if something was uploaded to that name again.',
          {
            gone: ex(
              'file deleted',
              err('the file this link or session extension was made for has been deleted or replaced'),
            ),
          },
        ),
        '404': error("No such device, folder, file, version or preview; or another user's storage.", {
          file: ex('unknown file', err('no file Documents/x.txt')),
        }),
        ...STORAGE_AUTH,
        '403': error(
          'A disabled account, a group without the web interface, sharing turned off, a session extension that is expired, altered, for another resource or another address, or one used to make another.',
          {
            disabled: ex('disabled user', err('this account is disabled')),
            extension: ex(
              'bad se',
              err('this session extension is not valid: expired, altered, for another resource or for another address'),
            ),
            renewal: ex(
              'se making se',
              err('a session extension cannot make another: log in (cookie or HTTP Basic) to make one'),
            ),
          },
        ),
      },
    },
  }),
  post: route({
    method: 'post',
    path: 'storage/*path',
    operation: {
      operationId: 'shareFile',
      tags: ['storage'],
      summary: 'A single-file share link',
      description:
        "POST on a file URL (any body is ignored): a path beginning with `/` that downloads this file's current version (or `?version=n`) " +
        'without login for 3 days, or until `?expires=` (unix seconds, an ISO 8601 date (through its end, UTC) or date-time in the future; `never`: no expiry). ' +
        'It keeps serving that version after later uploads; a password change or disabling the user revokes it, ' +
        'and deleting the file (or removing its device) ends it for good, even if something is uploaded to that name again.',
      security: USER_SECURITY,
      ...LENIENT,
      parameters: [
        storagePath,
        query('version', 'the version to share (latest when absent)', { type: 'string' }, '1'),
        query(
          'expires',
          'when the link stops working: unix seconds, an ISO 8601 date or date-time (in the future), or `never`; default 3 days',
          { type: 'string' },
          '2026-12-31',
        ),
      ],
      responses: {
        '200': text('The link, a path to append to the service URL.', '/link/eyJ1Ijoi...In0.k1.c2ln/report.pdf'),
        '400': error('Not a file URL, or an `expires` that is malformed or past.', {
          folder: ex('a folder', err('a share link is made by a POST on a file URL', { fields: ['path'] })),
          expires: ex('a past expiry', err('expires must be in the future (or never)', { fields: ['expires'] })),
        }),
        '404': error("No such file or version; or another user's storage.", {
          file: ex('unknown file', err('no file Documents/x.txt')),
        }),
        ...STORAGE_AUTH,
      },
    },
  }),
};

const LOGIN_FORM = {
  description: 'Form-encoded (or JSON) `username` and `password`.',
  required: true,
  content: {
    'application/x-www-form-urlencoded': {
      schema: {
        type: 'object',
        properties: { username: { type: 'string' }, password: { type: 'string' } },
        required: ['password'],
      },
      examples: { form: ex('a login', { username: 'ann', password: 'correct horse' }) },
    },
  },
};

const LOGIN_REFUSED: Record<string, Response | Reference> = {
  '400': error('username or password missing.', {
    missing: ex('no password', err('password required', { fields: ['password'] })),
  }),
  '403': error(
    'Invalid username or password (no Basic challenge, so a browser shows no dialog); a disabled account; a group without the web interface.',
    {
      invalid: ex('bad credentials', err('invalid username or password')),
    },
  ),
  '429': STORAGE_AUTH['429'],
  '503': responseRef('ServiceUnavailable'),
};

export const STORAGE_SESSION_ROUTES = {
  browseLogin: route({
    method: 'post',
    path: 'browse/login',
    operation: {
      operationId: 'browseLogin',
      tags: ['storage login'],
      summary: 'Start a login: where to POST the credentials next',
      description:
        'Checks the credentials and answers `login:/storage/<b32 username>/login` (plain text, no space after the colon), where the client repeats the POST.',
      security: [],
      requestBody: LOGIN_FORM,
      responses: { '200': text('Where to log in.', 'login:/storage/MFXG4/login'), ...LOGIN_REFUSED },
    },
  }),
  login: route({
    method: 'post',
    path: 'storage/:user/login',
    operation: {
      operationId: 'storageLogin',
      tags: ['storage login'],
      summary: 'Log in: a session cookie and the web interface location',
      description:
        'The URL names the user by username or email; the form carries `password`. Sets the session cookie (`HttpOnly`, `SameSite=Lax`, `Path=/`, ' +
        '`Secure` over TLS; 12 hours; valid on every gateway) and answers `location:/storage/<b32 username>/` (always the internal username).',
      security: [],
      parameters: [b32User],
      requestBody: LOGIN_FORM,
      responses: {
        '200': text('Logged in.', 'location:/storage/MFXG4/', {
          'Set-Cookie': {
            description: 'the session cookie',
            schema: { type: 'string' },
            example: 'burrow_session=eyJ1Ijoi...; Path=/; HttpOnly; SameSite=Lax',
          },
        }),
        '404': error('A malformed b32, or the name is not this user.', { b32: ex('bad b32', err('no such storage')) }),
        ...LOGIN_REFUSED,
      },
    },
  }),
  logout: route({
    method: 'get',
    path: 'storage/:user/logout',
    operation: {
      operationId: 'storageLogout',
      tags: ['storage login'],
      summary: 'Log out',
      description: 'Ends the cookie session on every gateway (a replayed cookie is refused) and clears the cookie.',
      security: [],
      parameters: [b32User],
      responses: { '200': text('Logged out.', 'logged out'), '503': responseRef('ServiceUnavailable') },
    },
  }),
  logoutPost: route({
    method: 'post',
    path: 'storage/:user/logout',
    operation: {
      operationId: 'storageLogoutPost',
      tags: ['storage login'],
      summary: 'Log out (POST)',
      description: 'The same as GET.',
      security: [],
      parameters: [b32User],
      responses: { '200': text('Logged out.', 'logged out'), '503': responseRef('ServiceUnavailable') },
    },
  }),
};
