/** The routes of users, their devices and share rooms: path, method, the schemas the handlers parse with, and their OpenAPI prose and examples. */
import {
  ActivationEmailSent,
  CreateUserBody,
  CreateUserReply,
  DeviceRecord,
  ListUsersQuery,
  MAX_PAGE,
  SendActivationEmailBody,
  RECENTLY_STOPPED_UPLOADING,
  ShareActionQuery,
  ChangeUserShareBody,
  UpdateUserBody,
  UserActionQuery,
  type UserCount,
  USER_SORTABLE_FIELDS,
  UserRecord,
  UserShareRoom,
  WINDOW_SECONDS_MAX_DIGITS,
} from '@burrow/contracts';
import { JSON_BODY_LIMIT } from '../../http/json-body.js';
import { route } from '../../http/route.js';
import {
  content,
  empty,
  err,
  ERROR_SCHEMA,
  error,
  ex,
  JSON_TYPE,
  listOf,
  pathParameter,
  reply,
  SPEC_BODY_TYPE,
} from '../../openapi/builders.js';
import { jsonSchema } from '../../openapi/schemas.js';
import { AUTHENTICATED, notAnObject, notValidJson, WITH_BODY } from '../../openapi/common.js';
import { exampleCreated, exampleDevices, exampleRoom, exampleUser } from '../examples.js';

const userParam = pathParameter('user', 'username (any case) or email address', { type: 'string' }, 'jdoe');
const roomParam = pathParameter('room', 'the room key', { type: 'string' }, 'k7Pq2mXa');
const noUser = (u = 'nobody') =>
  error('No such user for this partner.', { noUser: ex('unknown user', err(`no user ${u}`)) });

export const USER_ROUTES = {
  list: route({
    method: 'get',
    path: 'users/',
    query: ListUsersQuery,
    operation: {
      operationId: 'listUsers',
      tags: ['users'],
      summary: 'List users, or count them',
      description:
        "A page of the partner's users (ordered by username unless `order_by`), or with `action=user_count` their number. Filters combine with AND. " +
        'Bulk clients page with limit=1000 and growing offsets.',
      queryNotes: {
        action: {
          description:
            '`user_count` returns `{"user_count": N}` for the same filters instead of the list (limit, offset and order_by do not apply)',
          example: 'user_count',
        },
        plan_id: { description: 'only users on this plan', example: 2 },
        group_id: { description: 'only users in this group', example: 3 },
        search: { description: 'case-insensitive substring of the full name or email address', example: 'doe' },
        search_by: {
          description:
            `\`field<op>value\` with op one of \`= > >= < <=\`; field one of ${USER_SORTABLE_FIELDS.join(', ')}. Numeric fields need an integer value, \`enabled\`/\`purgehold_active\` need 0, 1, true or false; others compare as strings. ` +
            `Or \`${RECENTLY_STOPPED_UPLOADING}=<A>|<B>\` (seconds, at most ${WINDOW_SECONDS_MAX_DIGITS} digits each): users whose most recent backup (a completed backup or a committed file, on any device they still have) is within the last A seconds but not within the last B: now - A <= latest < now - B; A <= B matches nobody.`,
          example: 'last_login>1700000000',
        },
        order_by: {
          description: 'a user field, optionally prefixed with `-` for descending; ties are broken by username',
          example: '-bytes_stored',
        },
        limit: { description: `page size, at most ${MAX_PAGE} (the default)`, example: 1000 },
        offset: { description: 'users to skip', example: 0 },
      },
      responses: {
        '200': reply(
          'The page of users, or the count with `action=user_count`.',
          { oneOf: [listOf(UserRecord, 'users'), { $ref: '#/components/schemas/UserCount' }] },
          {
            list: ex('GET /users/?limit=1000&offset=0', [exampleUser]),
            count: ex('GET /users/?action=user_count&group_id=3', { user_count: 42 } satisfies UserCount),
            stopped: ex(
              'GET /users/?search_by=recently_stopped_uploading%3D7776000%7C259200&limit=1000 (backed up in the last 90 days, not in the last 3)',
              [exampleUser],
            ),
          },
        ),
        '400': error('A malformed, repeated or bracketed query parameter (named in `fields`).', {
          searchBy: ex('bad search_by', err('invalid query parameters: search_by', { fields: ['search_by'] })),
          window: ex(
            'recently_stopped_uploading without |<B>',
            err('invalid query parameters: search_by', { fields: ['search_by'] }),
          ),
          orderBy: ex('unknown order_by field', err('invalid query parameters: order_by', { fields: ['order_by'] })),
          limit: ex('non-numeric limit', err('invalid query parameters: limit', { fields: ['limit'] })),
        }),
        ...AUTHENTICATED,
      },
    },
  }),
  create: route({
    method: 'post',
    path: 'users/',
    body: CreateUserBody,
    operation: {
      operationId: 'createUser',
      tags: ['users'],
      summary: 'Create a user (beyond the spec)',
      requestBody: {
        description: 'The new user.',
        examples: {
          chosen: ex('username and plan chosen, password generated', {
            name: 'Bob Smith',
            email: 'bob.smith@example.com',
            username: 'bsmith',
            plan_id: 1,
          }),
          minimal: ex('name and email only (username bob.smith derived from the email)', {
            name: 'Bob Smith',
            email: 'bob.smith@example.com',
          }),
          withPassword: ex('with a password (no temp_password in the reply)', {
            name: 'Bob Smith',
            email: 'bob.smith@example.com',
            group_id: 4,
            bonus_gigs: 10,
            password: 'correct horse battery',
          }),
        },
      },
      responses: {
        '201': reply('Created. `temp_password` only when no password was given.', CreateUserReply, {
          created: ex('reply to the `chosen` request: username bsmith, generated password', exampleCreated),
        }),
        '400': error(
          'Invalid or missing fields (named in `fields`), an invalid derived username, or a body that is not a JSON object.',
          {
            fields: ex(
              'missing email, bad plan_id',
              err('invalid or missing parameters: plan_id, email', { fields: ['plan_id', 'email'] }),
            ),
            password: ex(
              'password too short',
              err('invalid or missing parameters: password', { fields: ['password'] }),
            ),
            json: notValidJson,
          },
        ),
        '402': error('Allocating the plan would exceed the bytes available to the enterprise.', {
          payment: ex('over the enterprise allocation', err('payment required')),
        }),
        '409': error(
          "Duplicate username or email (across the service; usernames and emails are one namespace of login names: a username equal to any user's email is `username`, an email equal to any user's username is `email`), or a nonexistent plan or group.",
          {
            username: ex('username taken', err('username already in use', { conflicts: ['username'] })),
            email: ex('email taken', err('email already in use', { conflicts: ['email'] })),
            plan: ex('no such plan', err('plan 99 does not exist', { conflicts: ['plan_id'] })),
            group: ex('no such group', err('group 99 does not exist', { conflicts: ['group_id'] })),
          },
        ),
        '507': error("The server's disk is full: nothing was stored; the same request succeeds once space is freed.", {
          diskFull: ex(
            'disk full',
            err('the server has no disk space left: nothing was stored; retry once space is freed'),
          ),
        }),
        ...WITH_BODY,
      },
    },
  }),
  get: route({
    method: 'get',
    path: 'users/:user',
    operation: {
      operationId: 'getUser',
      tags: ['users'],
      summary: 'User details',
      parameters: [userParam],
      responses: {
        '200': reply('The user.', UserRecord, { user: ex('GET /users/jdoe', exampleUser) }),
        '404': noUser(),
        ...AUTHENTICATED,
      },
    },
  }),
  devices: route({
    method: 'get',
    path: 'users/:user/devices',
    operation: {
      operationId: 'listUserDevices',
      tags: ['users'],
      summary: "A user's devices",
      parameters: [userParam],
      responses: {
        '200': reply('The devices, oldest first.', listOf(DeviceRecord, 'devices'), {
          devices: ex('two devices', exampleDevices),
        }),
        '404': noUser(),
        ...AUTHENTICATED,
      },
    },
  }),
  update: route({
    method: 'post',
    path: 'users/:user',
    query: UserActionQuery,
    operation: {
      operationId: 'updateUser',
      tags: ['users'],
      summary:
        'Change a user, delete it (?action=delete), or send it an activation email (?action=sendactivationemail)',
      description:
        'Sets any number of attributes in one request and returns the updated record. With `action=delete` the body is ignored, the user is purged (same as DELETE) and the reply is empty. A promo plan needs no promo code.\n\n' +
        'With `action=sendactivationemail` (beyond the spec) the user is mailed a link to a set-password page (`/set-password/{token}`): the body is `{"template_name": ...}` or empty. ' +
        "The link works once, until it expires (BURROW_SET_PASSWORD_LINK_TTL_SECONDS, default 3 days), and only the latest one sent works. The mail comes from the partner (its company name as the sender's name and in the text, its brand identifier in `X-Burrow-Brand`, its support email as Reply-To) and never holds a password. " +
        'It is sent over SMTP when SMTP_URL is set, else written as an `.eml` file under the data directory. 200 = accepted for delivery; 409 = it could not be sent (the reason says why; an earlier link keeps working); 429 = too many activation emails to this user or for this partner within the window (BURROW_ACTIVATION_MAIL_PER_USER, default 5, and BURROW_ACTIVATION_MAIL_PER_PARTNER, default 500, per BURROW_ACTIVATION_MAIL_WINDOW_SECONDS, default an hour): wait `Retry-After` seconds. A deleted user is a 404.',
      parameters: [userParam],
      queryNotes: {
        action: {
          description:
            '`delete`: purge the user (same as DELETE); `sendactivationemail`: mail the user a set-password link; any other value is 400',
        },
      },
      requestBody: {
        description: `The attributes to change (UpdateUserBody); ignored with action=delete; with action=sendactivationemail a SendActivationEmailBody (optional). Parsed as JSON whatever the content type; at most ${JSON_BODY_LIMIT} bytes.`,
        required: false,
        content: Object.fromEntries(
          [JSON_TYPE, SPEC_BODY_TYPE].map((type) => [
            type,
            {
              schema: { anyOf: [jsonSchema(UpdateUserBody), jsonSchema(SendActivationEmailBody)] },
              examples: {
                several: ex('move to a group, add bonus, disable', { group_id: 3, bonus_gigs: 5, enabled: false }),
                plan: ex('change plan (a promo plan needs no promo code)', { plan_id: 4 }),
                activation: ex('with ?action=sendactivationemail', { template_name: 'set_password' }),
              },
            },
          ]),
        ),
      },
      responses: {
        '200': reply(
          'The updated user; the email sent with action=sendactivationemail; empty with action=delete.',
          { anyOf: [jsonSchema(UserRecord), jsonSchema(ActivationEmailSent)] },
          {
            updated: ex('after the change', exampleUser),
            sent: ex('POST /users/jdoe?action=sendactivationemail', {
              email: 'jane.doe@example.com',
              expires_at: 1700259200,
            } satisfies ActivationEmailSent),
          },
        ),
        '400': error('Invalid fields (named in `fields`), or an unknown action.', {
          fields: ex(
            'bad values',
            err('invalid or missing parameters: email, enabled', { fields: ['email', 'enabled'] }),
          ),
          action: ex('unknown action', err('invalid query parameters: action', { fields: ['action'] })),
          template: ex(
            'template_name not a string',
            err('invalid or missing parameters: template_name', { fields: ['template_name'] }),
          ),
          notObject: notAnObject,
        }),
        '402': error('The new plan or bonus would exceed the bytes available to the enterprise.', {
          quota: ex('quota exceeded', err('quota exceeded')),
        }),
        '404': noUser(),
        '409': error(
          'Email already used by another user (as an email or as a username), or a nonexistent plan or group; with action=sendactivationemail, the email could not be sent.',
          {
            email: ex('email taken', err('email already in use', { conflicts: ['email'] })),
            plan: ex('no such plan', err('plan 99 does not exist', { conflicts: ['plan_id'] })),
            group: ex('no such group', err('group 99 does not exist', { conflicts: ['group_id'] })),
            notSent: ex(
              'the mail server refused the recipient',
              err('the activation email could not be sent: the mail server refused the recipient or sender (550)', {
                conflicts: ['email'],
              }),
            ),
          },
        ),
        ...WITH_BODY,
        '429': {
          description:
            'Too many failed logins (see the partner credentials), or, with action=sendactivationemail, too many activation emails to this user or for this partner within the window.',
          headers: {
            'Retry-After': { description: 'seconds to wait', schema: { type: 'integer', minimum: 1 }, example: '3600' },
          },
          content: content(ERROR_SCHEMA, {
            user: ex(
              'activation emails to one user',
              err('too many activation emails to this user: at most 5 per 3600 s; retry in 3412 s', {
                retry_after: 3412,
              }),
            ),
            partner: ex(
              'activation emails of one partner',
              err('too many activation emails for this partner: at most 500 per 3600 s; retry in 1800 s', {
                retry_after: 1800,
              }),
            ),
            logins: ex(
              'failed logins',
              err('too many failed logins for this account; retry later', { retry_after: 60 }),
            ),
          }),
        },
      },
    },
  }),
  remove: route({
    method: 'delete',
    path: 'users/:user',
    operation: {
      operationId: 'deleteUser',
      tags: ['users'],
      summary: 'Purge a user',
      description: 'Deletes the user with its devices and shares, releases its allocation, username and email.',
      parameters: [userParam],
      responses: { '200': empty('Deleted.'), '404': noUser(), ...AUTHENTICATED },
    },
  }),
  shares: route({
    method: 'get',
    path: 'users/:user/shares/',
    operation: {
      operationId: 'listUserShares',
      tags: ['shares'],
      summary: "A user's share rooms (beyond the spec)",
      parameters: [userParam],
      responses: {
        '200': reply('The rooms.', listOf(UserShareRoom, 'rooms'), { rooms: ex('one room', [exampleRoom]) }),
        '404': noUser(),
        ...AUTHENTICATED,
      },
    },
  }),
  share: route({
    method: 'get',
    path: 'users/:user/shares/:room',
    operation: {
      operationId: 'getUserShare',
      tags: ['shares'],
      summary: 'One share room of a user (beyond the spec)',
      parameters: [userParam, roomParam],
      responses: {
        '200': reply('The room.', UserShareRoom, { room: ex('a room', exampleRoom) }),
        '404': error('No such user or room.', {
          noRoom: ex('unknown room', err('no share nosuchroom')),
          noUser: ex('unknown user', err('no user nobody')),
        }),
        ...AUTHENTICATED,
      },
    },
  }),
  setShareEnabled: route({
    method: 'post',
    path: 'users/:user/shares/:room',
    query: ShareActionQuery,
    body: ChangeUserShareBody,
    operation: {
      operationId: 'changeUserShare',
      tags: ['shares'],
      summary: 'Enable or disable a share room, or set its password (beyond the spec)',
      description:
        'With `?action=enable|disable` the room is enabled or disabled; clients send the body `{}`, and any body is ignored. Without an action, the body ' +
        '`{"password": "..."}` sets the room\'s password (8 to 1024 characters, stored as a scrypt hash) and `{"password": null}` removes it: visitors ' +
        "must then give it (HTTP Basic, or the room page's form). Returns the room as it now is.",
      parameters: [userParam, roomParam],
      queryNotes: {
        action: { description: 'enable or disable; absent: the body sets the password', example: 'disable' },
      },
      requestBody: {
        description: 'Ignored with an action; without one, the password to set (null removes it).',
        required: false,
        examples: {
          empty: ex('what clients send with an action', {}),
          password: ex('set a password', { password: 'summer-2026-photos' }),
          remove: ex('remove it', { password: null }),
        },
      },
      responses: {
        '200': reply('The room after the change.', UserShareRoom, {
          disabled: ex('after ?action=disable', { ...exampleRoom, enabled: false }),
          protected: ex('after a password was set', { ...exampleRoom, password_required: true }),
        }),
        '400': error(
          '`action` not enable/disable, or (no action) no valid `password` in the body (neither: both named).',
          {
            action: ex('bad action', err('invalid query parameters: action', { fields: ['action'] })),
            password: ex('too short', err('invalid or missing parameters: password', { fields: ['password'] })),
          },
        ),
        '404': error('No such user or room.', { noRoom: ex('unknown room', err('no share nosuchroom')) }),
        ...AUTHENTICATED,
      },
    },
  }),
};
