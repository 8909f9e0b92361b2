/**
 * The routes of WebDAV (`/dav/`), served by a middleware (not controllers), declared for the OpenAPI
 * document as far as OpenAPI can say it: it describes HTTP's own methods
 * (OPTIONS, GET, HEAD, PUT, DELETE) and cannot name PROPFIND, PROPPATCH, MKCOL, COPY, MOVE, LOCK
 * or UNLOCK, which the path's description lists (also as `x-webdav-methods`), with how to mount
 * Burrow from macOS, Windows and Linux. The full guide is docs/api.md, "WebDAV".
 */
import { route } from '../http/route.js';
import { ERROR_SCHEMA, empty, err, error, ex } from '../openapi/builders.js';
import type { Reference, Response } from '../http/openapi-types.js';
import {
  DEAD_PROPERTIES_MAX,
  DEAD_PROPERTIES_MAX_BYTES,
  DEAD_PROPERTIES_PER_USER_MAX_BYTES,
  DEAD_PROPERTY_WRITES_PER_DAY_MAX_BYTES,
} from '@burrow/contracts';
import { DAV_METHODS, DAV_XML_BODY_LIMIT } from './dav.middleware.js';
import { LOCK_OWNER_MAX_BYTES, LOCKS_PER_RESOURCE_MAX, LOCKS_PER_USER_MAX } from './locks.js';
import { PROPERTY_NAMES_MAX_CHARS } from './xml.js';

/** Where the WebDAV middleware is mounted (DavModule). */
export const DAV_MOUNT = 'dav';

const MOUNTING = `
**Mounting** (HTTPS in production: Windows and macOS send Basic credentials only over TLS by default):
- macOS Finder: Go > Connect to Server, \`https://burrow.example.com/dav/alice/\` (read-write: Burrow is class 2).
- Windows Explorer: Map network drive, \`https://burrow.example.com/dav/alice/\` (or \`net use B: https://burrow.example.com/dav/alice/ /user:alice\`).
- Linux, GNOME Files: Other Locations, \`davs://burrow.example.com/dav/alice/\`; davfs2: \`mount -t davfs https://burrow.example.com/dav/alice/ /mnt/burrow\`.
- rclone: \`rclone config create burrow webdav url=https://burrow.example.com/dav/alice/ vendor=owncloud user=alice pass=$(rclone obscure '...')\`;
  restic through it: \`restic -r rclone:burrow:laptop/restic init\`.
`.trim();

const DESCRIPTION = `
A user's storage over WebDAV (RFC 4918, class 1 and 2): \`/dav/<username or email>/\` lists the user's devices as collections,
\`/dav/<user>/<device>/<path>\` is a folder or file. HTTP Basic with the user's login and password, under the storage interface's
policy and failed-login limits; another user's storage is a 404 through every method.

Methods OpenAPI cannot describe: **PROPFIND** (Depth 0 or 1; infinity is a 403 with \`propfind-finite-depth\`; properties resourcetype,
getcontentlength, getlastmodified, getetag, getcontenttype, creationdate, displayname, lockdiscovery, supportedlock, quota-available-bytes,
quota-used-bytes, and dead properties), **PROPPATCH** (dead properties, in document order, all or nothing; live ones are protected),
**MKCOL** (a folder; at the top, a device), **COPY** and **MOVE** (within the user's storage, metadata only: no byte is copied; Depth,
Overwrite; \`Destination\` must be the user's own storage), **LOCK** and **UNLOCK** (exclusive or shared write locks, Depth 0 or
infinity, refreshed with the token in the If header; a LOCK on an unmapped URL makes an empty file). Writes honour the If header
(412) and locks (423 with \`lock-token-submitted\`). XML bodies: at most ${DAV_XML_BODY_LIMIT} bytes, no DTD or entities (400).

**Limits**: the properties one PROPFIND or PROPPATCH names take at most ${PROPERTY_NAMES_MAX_CHARS} characters in all (namespaces and
names; 413). What a PROPPATCH sets takes at most ${DEAD_PROPERTIES_MAX_BYTES} bytes written as XML (413); a file or folder holds at most
${DEAD_PROPERTIES_MAX} dead properties and ${DEAD_PROPERTIES_MAX_BYTES} bytes (507 in the multistatus); a user's hold at most
${DEAD_PROPERTIES_PER_USER_MAX_BYTES} bytes (507) and a user writes at most ${DEAD_PROPERTY_WRITES_PER_DAY_MAX_BYTES} bytes of them a UTC day, each change
counting the whole set of its file or folder (429 with \`Retry-After\`; a change that changes nothing is free), by default. A lock's
owner takes at most ${LOCK_OWNER_MAX_BYTES} bytes as XML (413); a resource takes at most ${LOCKS_PER_RESOURCE_MAX} locks (423) and a user holds at most
${LOCKS_PER_USER_MAX} (403).

${MOUNTING}
`.trim();

const davPath = {
  name: 'path',
  in: 'path' as const,
  required: true,
  description:
    '`<device>/<folder or file path>`, each segment percent-encoded (decoded once: an encoded slash, NUL, `.` or `..` is a 400)',
  schema: { type: 'string' },
  example: 'laptop/Documents/report.pdf',
};
const davUser = {
  name: 'user',
  in: 'path' as const,
  required: true,
  description: 'the username or email address the user logs in with',
  schema: { type: 'string' },
  example: 'alice',
};

const DAV_AUTH: Record<string, Response | Reference> = {
  '401': {
    description: 'Not logged in: HTTP Basic with the username (or email) and password.',
    headers: {
      'WWW-Authenticate': {
        description: 'Basic challenge',
        schema: { type: 'string' },
        example: 'Basic realm="Burrow WebDAV", charset="UTF-8"',
      },
    },
    content: {
      'application/json': {
        schema: ERROR_SCHEMA,
        examples: {
          missing: ex('no credentials', err('login required: HTTP Basic with your username or email and password')),
        },
      },
    },
  },
  '403': error('The account is disabled, or its group has the web interface turned off.', {
    disabled: ex('disabled user', err('this account is disabled')),
  }),
  '404': error("Nothing there, or another user's storage.", { other: ex('not yours', err('no such storage')) }),
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

const security = [{ userBasic: [] }];
const parameters = [davUser, davPath];

/** The methods OpenAPI can describe, relative to DAV_MOUNT; the others are in the path's description and `x-webdav-methods`. */
export const DAV_ROUTES = [
  route({
    method: 'options',
    path: ':user/*path',
    pathItem: {
      description: DESCRIPTION,
      'x-webdav-methods': DAV_METHODS,
    },
    operation: {
      operationId: 'davOptions',
      tags: ['webdav'],
      summary: 'WebDAV capabilities',
      description: 'Answers `DAV: 1, 2` and the methods in `Allow`.',
      security,
      parameters,
      responses: {
        '200': {
          ...empty('The capabilities, in headers.'),
          headers: { DAV: { description: 'compliance classes', schema: { type: 'string' }, example: '1, 2' } },
        },
        ...DAV_AUTH,
      },
    },
  }),
  route({
    method: 'get',
    path: ':user/*path',
    operation: {
      operationId: 'davGet',
      tags: ['webdav'],
      summary: "A file's bytes",
      description:
        'Streamed from the blob store; Range (206, 416), If-Range, If-None-Match (304); ETag is the content hash (sha256, base64url). A collection answers a short note.',
      security,
      parameters,
      responses: {
        '200': {
          description: 'The file.',
          content: {
            'application/octet-stream': {
              schema: { type: 'string', format: 'binary' },
              examples: { file: ex('a file', 'hello world') },
            },
          },
        },
        ...DAV_AUTH,
      },
    },
  }),
  route({
    method: 'head',
    path: ':user/*path',
    operation: {
      operationId: 'davHead',
      tags: ['webdav'],
      summary: "A file's headers",
      description: 'What GET would send, without the body.',
      security,
      parameters,
      responses: { '200': empty('The headers of the file.'), ...DAV_AUTH },
    },
  }),
  route({
    method: 'put',
    path: ':user/*path',
    operation: {
      operationId: 'davPut',
      tags: ['webdav'],
      summary: 'A new version of a file',
      description:
        "The body streams into the blob store through the storage interface's ingest (quota, dedup, durability alike). The folder must exist (409); " +
        '`X-OC-Mtime` (unix seconds) sets the modification time and is answered `X-OC-Mtime: accepted`; If-Match / If-None-Match are honoured (412). ' +
        'Over the quota: 507, before a byte is read when the length is declared. A client that stops half way leaves the old version as it was.',
      security,
      parameters: [
        ...parameters,
        {
          name: 'X-OC-Mtime',
          in: 'header',
          required: false,
          description: 'modification time, unix seconds',
          schema: { type: 'integer', minimum: 0 },
          example: 1700000000,
        },
      ],
      requestBody: {
        description: 'The file bytes.',
        required: false,
        content: {
          'application/octet-stream': {
            schema: { type: 'string', format: 'binary' },
            examples: { bytes: ex('file content', 'hello world') },
          },
        },
      },
      responses: {
        '201': empty('Created.'),
        '204': empty('A new version of an existing file.'),
        '405': error('A collection is not a file.', {
          folder: ex('a folder', err('a folder is not a file: PUT a file inside it')),
        }),
        '409': error('The folder that would hold it does not exist.', {
          parent: ex('no parent', err('no folder Documents/ to put report.pdf in', { conflicts: ['path'] })),
        }),
        '412': error('If-Match, If-None-Match or the If header does not hold.', {
          precondition: ex('changed', err('If-Match does not hold')),
        }),
        '507': error("Over the quota, or the server's disk is low or full; nothing was stored.", {
          quota: ex(
            'quota full',
            err('storage quota exceeded: the upload would take the user past plan + bonus bytes'),
          ),
          diskFull: ex(
            'disk full',
            err('the server has no disk space left: nothing was stored; retry once space is freed'),
          ),
        }),
        ...DAV_AUTH,
      },
    },
  }),
  route({
    method: 'delete',
    path: ':user/*path',
    operation: {
      operationId: 'davDelete',
      tags: ['webdav'],
      summary: 'Delete a file, a folder, or a device',
      description:
        'As the storage interface deletes: hidden at once, versions kept until purged. Locks on it go with it.',
      security,
      parameters,
      responses: { '204': empty('Deleted.'), ...DAV_AUTH },
    },
  }),
];
