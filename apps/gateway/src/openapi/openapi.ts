/**
 * The OpenAPI 3.1 document of interface A (the partner accounts interface) and the operator
 * endpoints, served at `GET /openapi.json`. Written by hand from the controllers and the accounts
 * and billing handlers; `openapi.test.ts` keeps its path list equal to the gateway's routes and
 * checks every example against its schema. The human guide is docs/api.md.
 *
 * Examples are typed with the contract records (`satisfies`), so a change to a record type that
 * the document does not follow fails the build.
 */
import type {
  BrandShareEntry,
  ClientRevisionCount,
  CreateUserReply,
  DeviceRecord,
  ErrorBody,
  Group,
  PartnerFeatures,
  PartnerInfo,
  PartnerQuota,
  PartnerSettings,
  Plan,
  UserRecord,
  UserShareRoom,
} from '@burrow/contracts';
import { UNLIMITED_BYTES } from '@burrow/contracts';
import { JSON_BODY_LIMIT } from '../http/json-body.js';

// ---------------------------------------------------------------------------------------------
// Types: just enough of OpenAPI 3.1 to keep the document below well formed.

export type Schema = { [keyword: string]: unknown };
export interface Reference {
  $ref: string;
}
export interface Example {
  summary: string;
  value: unknown;
}
export interface MediaType {
  schema: Schema;
  examples: Record<string, Example>;
}
export interface Header {
  description: string;
  schema: Schema;
  example?: string;
}
export interface Response {
  description: string;
  headers?: Record<string, Header>;
  content?: Record<string, MediaType>;
}
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  description: string;
  required?: boolean;
  schema: Schema;
  example?: unknown;
}
export interface RequestBody {
  description: string;
  required: boolean;
  content: Record<string, MediaType>;
}
export interface Operation {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  security?: Record<string, string[]>[];
  parameters?: (Parameter | Reference)[];
  requestBody?: RequestBody;
  responses: Record<string, Response | Reference>;
}
export interface Server {
  url: string;
  description: string;
}
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
export type PathItem = { summary?: string; description?: string; servers?: Server[] } & { [M in HttpMethod]?: Operation };

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; summary: string; description: string };
  jsonSchemaDialect: string;
  servers: Server[];
  security: Record<string, string[]>[];
  tags: { name: string; description: string }[];
  paths: Record<string, PathItem>;
  components: {
    schemas: Record<string, Schema>;
    responses: Record<string, Response>;
    parameters: Record<string, Parameter>;
    securitySchemes: Record<string, Schema>;
  };
}

// ---------------------------------------------------------------------------------------------
// Helpers.

const schemaRef = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const responseRef = (name: string): Reference => ({ $ref: `#/components/responses/${name}` });
const paramRef = (name: string): Reference => ({ $ref: `#/components/parameters/${name}` });

const JSON_TYPE = 'application/json';
/** The spec's content type for request bodies; real clients send application/json (both parsed alike). */
const SPEC_BODY_TYPE = 'text/javascript';

function content(schema: Schema, examples: Record<string, Example>): Record<string, MediaType> {
  return { [JSON_TYPE]: { schema, examples } };
}

function reply(description: string, schema: Schema, examples: Record<string, Example>, headers?: Record<string, Header>): Response {
  return { description, ...(headers ? { headers } : {}), content: content(schema, examples) };
}

/** A response with the Error body; every 4xx/5xx below uses it. */
function error(description: string, examples: Record<string, Example>): Response {
  return reply(description, schemaRef('Error'), examples);
}

const empty = (description: string): Response => ({ description: `${description} The body is empty.` });

/** A JSON request body, parsed the same whatever the content type. */
function body(description: string, schema: Schema, examples: Record<string, Example>, required = true): RequestBody {
  return {
    description: `${description} Parsed as JSON whatever the content type (application/json, text/javascript, or a form content type holding JSON); at most ${JSON_BODY_LIMIT} bytes.`,
    required,
    content: { [JSON_TYPE]: { schema, examples }, [SPEC_BODY_TYPE]: { schema, examples } },
  };
}

const ex = (summary: string, value: unknown): Example => ({ summary, value });

const queryParam = (name: string, description: string, schema: Schema, example?: unknown): Parameter => ({
  name,
  in: 'query',
  description,
  required: false,
  schema,
  ...(example === undefined ? {} : { example }),
});

/** Responses every partner-authenticated operation can give. */
const AUTHENTICATED = { '401': responseRef('Unauthorized'), '429': responseRef('TooManyRequests'), '503': responseRef('ServiceUnavailable') };
/** ... and those reading a JSON body. */
const WITH_BODY = { ...AUTHENTICATED, '413': responseRef('PayloadTooLarge') };

const OPERATOR_ONLY: Pick<PathItem, 'servers'> = {
  servers: [{ url: '/', description: 'operator endpoints are served at the root only (not under /apis/accounts/v1)' }],
};

// ---------------------------------------------------------------------------------------------
// Example records (typed against the contracts).

const GB = 1_000_000_000;
const T0 = 1_700_000_000;

const examplePlans = [
  { plan_id: 1, storage_bytes: 100 * GB, name: '100 GB', promo: false },
  { plan_id: 2, storage_bytes: 1000 * GB, name: '1 TB', promo: false },
  { plan_id: 3, storage_bytes: 5000 * GB, name: '5 TB', promo: false },
  { plan_id: 4, storage_bytes: 2000 * GB, name: '2 TB promotion', promo: true },
  { plan_id: 5, storage_bytes: UNLIMITED_BYTES, name: 'Unlimited', promo: false },
] satisfies Plan[];

const exampleRoom = {
  room_key: 'k7Pq2mXa',
  name: 'Holiday photos',
  description: 'Pictures from the lake, summer 2024',
  enabled: true,
  password_required: false,
  creation_time: T0 + 86_400,
  update_time: T0 + 90_000,
  last_login: T0 + 400_000,
} satisfies UserShareRoom;

const exampleUser = {
  avatar_id: 17,
  username: 'jdoe',
  name: 'Jane Doe',
  email: 'jane.doe@example.com',
  share_id: 'jdoe',
  share_identifier: 'jdoe',
  promo: null,
  creation_time: T0,
  last_login: T0 + 500_000,
  bytes_stored: 52_428_800_000,
  storage_bytes: 1000 * GB + 5 * GB,
  bonus_bytes: 5 * GB,
  plan_id: 2,
  group_id: 3,
  enabled: true,
  purgehold_active: false,
  share_rooms: [exampleRoom],
  num_devices: 2,
} satisfies UserRecord;

const exampleNewUser = {
  ...exampleUser,
  avatar_id: 18,
  username: 'bsmith',
  name: 'Bob Smith',
  email: 'bob.smith@example.com',
  share_id: 'bsmith',
  share_identifier: 'bsmith',
  creation_time: T0 + 600_000,
  last_login: null,
  bytes_stored: 0,
  storage_bytes: 100 * GB,
  bonus_bytes: 0,
  plan_id: 1,
  group_id: null,
  share_rooms: [],
  num_devices: 0,
} satisfies UserRecord;

const exampleCreated = { user: exampleNewUser, username: 'bsmith', temp_password: 'q3VZ0pLwK8sXe1Rt' } satisfies CreateUserReply;

const exampleDevices = [
  { name: 'laptop', creation_time: T0 + 3600, last_backup_complete: T0 + 499_000, lastlogin: T0 + 500_000, lastcommit: T0 + 499_000, client_revision: 1207, sysplatform: 'darwin' },
  { name: 'office-pc', creation_time: T0 + 7200, last_backup_complete: null, lastlogin: T0 + 100_000, lastcommit: null, client_revision: 1185, sysplatform: 'win32' },
] satisfies DeviceRecord[];

const exampleGroup = { group_id: 3, name: 'Engineering', plan_id: 2, webapi_enable: true, check_domain: false, device_policy: null } satisfies Group;
const exampleGroups = [exampleGroup, { group_id: 4, name: 'Sales', plan_id: 1, webapi_enable: false, check_domain: true, device_policy: null }] satisfies Group[];

const exampleSettings = {
  omva_url: 'https://appliance.example.com/omva',
  support_email: 'help@example.com',
  share_link_ttl: 10080,
  autopurge_interval: 30,
  purgehold_duration: 86400,
  ad_domain: 'corp.example.com',
  signup_network_restriction: ['10.0.0.0/8', '2001:db8::/32'],
  versionpurge_interval: null,
  admin_email: 'admin@example.com',
  sharing_enabled: true,
  api_version: null,
} satisfies PartnerSettings;

const exampleFeatures = { netkes: false, ldap: true, group_permissions: true, signup_restrictions: false, email_as_username: false } satisfies PartnerFeatures;
const exampleQuota = { bytes_available: 10_000 * GB, bytes_allocated: 3105 * GB, bytes_used: 812 * GB, share_count: 14, device_count: 57 } satisfies PartnerQuota;
const exampleInfo = { partner_id: '0f6c1d2e-4b7a-4c1e-9a51-5d3c2b1a0f9e', company_name: 'Example Backup Co', brand_identifier: 'examplebackup', username: 'examplebackup' } satisfies PartnerInfo;

const exampleBrandShares = [{ username: 'jdoe', name: 'Jane Doe', email: 'jane.doe@example.com', shares: [exampleRoom] }] satisfies BrandShareEntry[];
const exampleRevisions = [
  { revision: 1185, count: 12 },
  { revision: 1207, count: 45 },
] satisfies ClientRevisionCount[];

const billingAddress = {
  name: 'Example Backup Co',
  address: ['100 Main Street', 'Suite 400'],
  city: 'Springfield',
  state: 'IL',
  postal_code: '62701',
  country: 'US',
};
const exampleBillingInvoice = { billing_mode: 'invoice', ...billingAddress, card: null, updated_at: T0 + 700_000 };
const exampleBillingPrepaid = {
  billing_mode: 'prepaid',
  ...billingAddress,
  card: { brand: 'visa', last4: '4242', expiration_month: 12, expiration_year: 2030 },
  updated_at: T0 + 700_000,
};
const exampleBillingNothing = { billing_mode: 'invoice', name: null, address: null, city: null, state: null, postal_code: null, country: null, card: null, updated_at: null };

const err = (reason: string, extra: Omit<ErrorBody, 'reason'> = {}): ErrorBody => ({ reason, ...extra });

// ---------------------------------------------------------------------------------------------
// Schemas.

const int = (description: string, extra: Schema = {}): Schema => ({ type: 'integer', description, ...extra });
const nullableInt = (description: string, extra: Schema = {}): Schema => ({ type: ['integer', 'null'], description, ...extra });
const str = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
const nullableStr = (description: string, extra: Schema = {}): Schema => ({ type: ['string', 'null'], description, ...extra });
const bool = (description: string, extra: Schema = {}): Schema => ({ type: 'boolean', description, ...extra });
const unixTime = (description: string): Schema => int(`${description} (unix seconds)`, { format: 'int64' });
const nullableUnixTime = (description: string): Schema => nullableInt(`${description} (unix seconds, null when never)`, { format: 'int64' });
const object = (description: string, properties: Record<string, Schema>, required: string[] = Object.keys(properties), extra: Schema = {}): Schema => ({
  type: 'object',
  description,
  properties,
  required,
  ...extra,
});
const listOf = (name: string, description: string): Schema => ({ type: 'array', description, items: schemaRef(name) });

export const CONFLICT_TOKENS = ['name', 'plan_id', 'group_id', 'username', 'email', 'avatars_over_quota', 'move_to'] as const;
const SORTABLE_USER_FIELDS = ['avatar_id', 'username', 'name', 'email', 'creation_time', 'last_login', 'bytes_stored', 'bonus_bytes', 'plan_id', 'group_id', 'enabled', 'purgehold_active', 'num_devices'];
/** The users handler's page cap (apps/accounts users.handlers.ts MAX_PAGE; apps cannot import apps). */
export const MAX_PAGE = 10_000;
const UNLIMITED_NOTE = `${UNLIMITED_BYTES} means unlimited`;

const schemas: Record<string, Schema> = {
  Error: object(
    'Every error body. `conflicts` only on 409 (a list, always); `fields` on 400 when specific fields are invalid or missing; `code` on the billing 409 (card refused).',
    {
      reason: str('human-readable reason'),
      conflicts: {
        type: 'array',
        description: 'the conflicting fields, as tokens clients test for (409 only)',
        items: { type: 'string', enum: [...CONFLICT_TOKENS] },
      },
      fields: { type: 'array', description: 'the invalid or missing request fields or query parameters (400)', items: { type: 'string' } },
      code: str('the card processor response code (billing 409 only)'),
      retry_after: int('seconds to wait before trying again (429 only; also the Retry-After header)', { minimum: 1 }),
    },
    ['reason'],
  ),
  Plan: object('A storage plan. All plans are listed, promo-code plans included.', {
    plan_id: int('plan identifier'),
    storage_bytes: int(`plan storage quota in bytes; ${UNLIMITED_NOTE}`, { format: 'int64', minimum: 0 }),
    name: str('display name'),
    promo: bool('normally sold with a promo code (partners assign it without one)'),
  }),
  Group: object('A group of users sharing a plan and policy flags.', {
    group_id: int('group identifier', { minimum: 1 }),
    name: str('group name, unique per partner (case-insensitive)'),
    plan_id: int('plan of the group; members follow it'),
    webapi_enable: bool('members may use the storage web interface'),
    check_domain: bool('restrict client installs to machines in the directory domain (`ad_domain` setting)'),
    device_policy: { type: 'null', description: 'always null (device policies are not offered)' },
  }),
  GroupCreate: object(
    'A new group. Unknown keys are ignored.',
    {
      name: str('unique group name', { minLength: 1, maxLength: 255 }),
      plan_id: int('an existing plan (else 409 `plan_id`)'),
      webapi_enable: bool('default true', { default: true }),
      check_domain: bool('default false', { default: false }),
    },
    ['name', 'plan_id'],
  ),
  GroupUpdate: object(
    'Any subset of the group fields. A changed plan is applied to every member; `force` applies it even when members would then exceed their quota.',
    {
      name: str('new unique name', { minLength: 1, maxLength: 255 }),
      plan_id: int('an existing plan'),
      webapi_enable: bool('web interface access'),
      check_domain: bool('directory domain check'),
      force: bool('apply plan_id even if members would exceed their quota (else 409 `avatars_over_quota`)'),
    },
    [],
  ),
  ShareRoom: object("One of a user's share rooms (spec: UserShareRoom).", {
    room_key: str('room key (unique per user)'),
    name: str('room name'),
    description: str('room description'),
    enabled: bool('the room is reachable'),
    password_required: bool('always false: shares have no password'),
    creation_time: unixTime('created'),
    update_time: unixTime('last changed'),
    last_login: nullableUnixTime('last visit'),
  }),
  User: object('A user record. Every list element carries all of these fields.', {
    avatar_id: int('numeric user id'),
    username: str('login name, unique'),
    name: str('full name'),
    email: str('email address, unique', { format: 'email' }),
    share_id: str('share id (used in share URLs)'),
    share_identifier: str('same as share_id'),
    promo: nullableStr('promo code (always null: partners assign promo plans without one)'),
    creation_time: unixTime('created'),
    last_login: nullableUnixTime('last login'),
    bytes_stored: int('bytes currently stored', { format: 'int64', minimum: 0 }),
    storage_bytes: int(`quota in bytes: plan + bonus; ${UNLIMITED_NOTE}`, { format: 'int64', minimum: 0 }),
    bonus_bytes: int('bonus bytes on top of the plan (never null)', { format: 'int64', minimum: 0 }),
    plan_id: int('plan'),
    group_id: nullableInt('group, or null'),
    enabled: bool('the user may log in and back up'),
    purgehold_active: bool('purging of deleted data is on hold'),
    share_rooms: listOf('ShareRoom', "the user's share rooms"),
    num_devices: int('number of devices', { minimum: 0 }),
  }),
  UserCreate: object(
    'A new user (beyond the spec). Without `username` one is derived from the email (the whole address when the partner has `email_as_username`). Without `plan_id` the group\'s plan is used, else the first plan. Without `password` a temporary one is generated and returned. `bonus_bytes` wins over `bonus_gigs`. Unknown keys are ignored.',
    {
      name: str('full name', { minLength: 1, maxLength: 255 }),
      email: str('email address, unique', { format: 'email', maxLength: 254 }),
      username: str('login name: a letter or digit, then letters, digits, `._@+-`; at most 128 characters', { pattern: '^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$' }),
      plan_id: int('an existing plan (else 409 `plan_id`)'),
      group_id: nullableInt('an existing group of the partner (else 409 `group_id`)'),
      bonus_bytes: int('bonus bytes', { format: 'int64', minimum: 0 }),
      bonus_gigs: int('bonus in GB (10^9 bytes)', { minimum: 0 }),
      password: str('initial password', { minLength: 8, maxLength: 1024 }),
    },
    ['name', 'email'],
  ),
  UserCreated: object('The created user.', {
    user: schemaRef('User'),
    username: str('the username (given or derived)'),
    temp_password: str('generated password; present only when no password was given'),
  }, ['user', 'username']),
  UserUpdate: object(
    'Any subset of the settable attributes; several may be set in one request. Joining a group adopts its plan unless the request also names `plan_id`. `bonus_bytes` wins over `bonus_gigs`. Unknown keys are ignored.',
    {
      name: str('full name', { minLength: 1, maxLength: 255 }),
      email: str('email address, unique', { format: 'email', maxLength: 254 }),
      plan_id: int('an existing plan (promo plans need no promo code)'),
      group_id: nullableInt('an existing group, or null to leave the group'),
      bonus_bytes: int('bonus bytes', { format: 'int64', minimum: 0 }),
      bonus_gigs: int('bonus in GB (10^9 bytes): the spec\'s "bonus gigs"', { minimum: 0 }),
      enabled: bool('enable (true) or disable (false) the user'),
      purgehold_active: bool('hold purging of deleted data'),
      password: str('new password for the user', { minLength: 8, maxLength: 1024 }),
    },
    [],
  ),
  UserList: listOf('User', 'a page of users'),
  UserCount: object('`GET /users/?action=user_count`', { user_count: int('number of users matching the filters', { minimum: 0 }) }),
  Device: object("One of a user's devices.", {
    name: str('device name'),
    creation_time: unixTime('registered'),
    last_backup_complete: nullableUnixTime('last complete backup'),
    lastlogin: nullableUnixTime('last device login'),
    lastcommit: nullableUnixTime('last commit'),
    client_revision: int('client software revision'),
    sysplatform: str('client platform'),
  }),
  BrandShareEntry: object('A user of the brand that has shares, with its rooms.', {
    username: str('username'),
    name: str('full name'),
    email: str('email'),
    shares: listOf('ShareRoom', "the user's rooms"),
  }),
  ClientRevisionCount: object('How many devices run one client revision.', {
    revision: int('client revision'),
    count: int('devices with this revision', { minimum: 1 }),
  }),
  PartnerSettings: object('Enterprise settings.', {
    omva_url: nullableStr('root URL of the partner\'s virtual appliance (http or https)', { format: 'uri' }),
    support_email: nullableStr('address for user support'),
    share_link_ttl: int('validity of generated share links, minutes', { minimum: 1 }),
    autopurge_interval: nullableInt('purge deleted blocks after this many days; 0 or null disables', { minimum: 0 }),
    purgehold_duration: int('seconds after a deletion during which purging is inhibited', { minimum: 0 }),
    ad_domain: nullableStr('directory domain users must belong to; null disables the check'),
    signup_network_restriction: { type: 'array', description: 'CIDR netblocks that may not sign up directly', items: { type: 'string' } },
    versionpurge_interval: nullableInt('days after which old versions are purged; null disables', { minimum: 0 }),
    admin_email: nullableStr('administrator address'),
    sharing_enabled: bool('users may create shares'),
    api_version: nullableStr('free-form API version marker kept for clients', { maxLength: 32 }),
  }),
  PartnerSettingsUpdate: {
    type: 'object',
    description:
      'Any subset of the settings. Unknown keys are refused (400 naming them). Empty string or null clears the nullable ones; integers may be numeric strings; every integer is at most 2147483647.',
    properties: {
      omva_url: nullableStr('http(s) URL, or null / "" to clear'),
      support_email: nullableStr('email address, or null / "" to clear'),
      share_link_ttl: int('minutes, at least 1', { minimum: 1, maximum: 2147483647 }),
      autopurge_interval: nullableInt('days; 0 or null disables', { minimum: 0, maximum: 2147483647 }),
      purgehold_duration: int('seconds', { minimum: 0, maximum: 2147483647 }),
      ad_domain: nullableStr('domain name (stored lower-case), or null / "" to clear'),
      signup_network_restriction: { type: ['array', 'null'], description: 'CIDR netblocks (IPv4 or IPv6); null clears', items: { type: 'string' } },
      versionpurge_interval: nullableInt('days, or null', { minimum: 0, maximum: 2147483647 }),
      admin_email: nullableStr('email address, or null / "" to clear'),
      sharing_enabled: bool('users may create shares'),
      api_version: nullableStr('at most 32 characters', { maxLength: 32 }),
    },
    additionalProperties: false,
  },
  PartnerFeatures: object('Enterprise features (read only; set by the operator).', {
    netkes: bool('key escrow server enabled'),
    ldap: bool('LDAP support enabled'),
    group_permissions: bool('group permissions enabled'),
    signup_restrictions: bool('signup restrictions enabled'),
    email_as_username: bool('users are identified by email rather than username'),
  }),
  PartnerQuota: object('Enterprise quota (read only).', {
    bytes_available: nullableInt('space the enterprise may divide among its users; null = unlimited', { format: 'int64' }),
    bytes_allocated: int('space allocated to users (sum of plan + bonus)', { format: 'int64' }),
    bytes_used: int('space used', { format: 'int64' }),
    share_count: int('shares of all users', { minimum: 0 }),
    device_count: int('devices of all users', { minimum: 0 }),
  }),
  PartnerInfo: object('Who the authenticated partner is (beyond the spec).', {
    partner_id: str('internal partner id'),
    company_name: str('company name'),
    brand_identifier: str('brand identifier'),
    username: str('API username'),
  }),
  PartnerPassword: {
    description: 'The new API / management console password: a bare JSON string (the spec), or `{"password": "..."}`.',
    oneOf: [
      { type: 'string', minLength: 8, maxLength: 1024 },
      object('alternative form', { password: { type: 'string', minLength: 8, maxLength: 1024 } }),
    ],
  },
  BillingInformation: object(
    'Billing information as sent. The six common fields are always required; the four card fields are required for prepaid billing and refused for invoice billing (empty values allowed there). The partner\'s billing mode is set by the operator.',
    {
      name: str('billed entity, shown on invoices; for prepaid billing the name on the card', { minLength: 1, maxLength: 255 }),
      address: { type: 'array', description: 'address lines', minItems: 1, maxItems: 10, items: { type: 'string', minLength: 1, maxLength: 255 } },
      city: str('city', { minLength: 1, maxLength: 255 }),
      state: str('state or province', { minLength: 1, maxLength: 255 }),
      postal_code: str('postal code (a string: a JSON number is refused)', { minLength: 1, maxLength: 32 }),
      country: str('an officially assigned ISO 3166-1 alpha-2 country code, any case (UK, EU, XK are refused)', { pattern: '^[A-Za-z]{2}$' }),
      card_number: str('prepaid only: 12 to 19 digits, spaces and dashes allowed, Luhn-valid'),
      security_code: { type: ['string', 'integer'], description: 'prepaid only: 3 or 4 digits' },
      expiration_month: int('prepaid only: 1 to 12', { minimum: 1, maximum: 12 }),
      expiration_year: int('prepaid only: four-digit year, not in the past', { minimum: 1000, maximum: 9999 }),
      billing_mode: str('optional; when given it must equal the partner\'s mode', { enum: ['prepaid', 'invoice'] }),
    },
    ['name', 'address', 'city', 'state', 'postal_code', 'country'],
  ),
  CardSummary: object('All that is kept of a card: never the number or security code.', {
    brand: str('card brand, e.g. visa'),
    last4: str('last four digits', { pattern: '^\\d{4}$' }),
    expiration_month: int('1 to 12', { minimum: 1, maximum: 12 }),
    expiration_year: int('year'),
  }),
  PartnerBilling: object('The stored billing information (fields null before the first update).', {
    billing_mode: str('set by the operator; invoice unless set', { enum: ['prepaid', 'invoice'] }),
    name: nullableStr('billed entity'),
    address: { type: ['array', 'null'], description: 'address lines', items: { type: 'string' } },
    city: nullableStr('city'),
    state: nullableStr('state or province'),
    postal_code: nullableStr('postal code'),
    country: nullableStr('ISO 3166-1 alpha-2, upper case'),
    card: { oneOf: [schemaRef('CardSummary'), { type: 'null' }], description: 'the card on file (prepaid)' },
    updated_at: nullableUnixTime('last accepted update'),
  }),
  Health: object('Liveness.', { status: str('always ok', { const: 'ok' }) }),
  Readiness: object('Readiness: every service answered and its stores are reachable, and the blob store answers.', {
    status: str('ready or not ready', { enum: ['ready', 'not ready'] }),
    checks: { type: 'object', description: 'per dependency: "ok", "failing" or the error message', additionalProperties: { type: 'string' } },
  }),
};

// ---------------------------------------------------------------------------------------------
// Shared parameters and responses.

const parameters: Record<string, Parameter> = {
  user: {
    name: 'user',
    in: 'path',
    required: true,
    description: 'username or email address (raw in the path, e.g. `users/a@b.com`); another partner\'s user is 404',
    schema: { type: 'string' },
    example: 'jdoe',
  },
  groupId: {
    name: 'id',
    in: 'path',
    required: true,
    description: 'group_id; anything but a positive integer names no group (404)',
    schema: { type: 'integer', minimum: 1 },
    example: 3,
  },
  room: { name: 'room', in: 'path', required: true, description: 'room key of one of the user\'s shares', schema: { type: 'string' }, example: 'k7Pq2mXa' },
  limit: queryParam('limit', `page size; at most ${MAX_PAGE} (larger values are capped), which is also the default`, { type: 'integer', minimum: 0 }, 1000),
  offset: queryParam('offset', 'number of entries to skip (default 0)', { type: 'integer', minimum: 0, default: 0 }, 1000),
  moveTo: queryParam('move_to', 'group to move the members to; required when the group has users', { type: 'integer', minimum: 1 }, 4),
};

const responses: Record<string, Response> = {
  Unauthorized: {
    description: 'Missing or invalid partner credentials.',
    headers: {
      'WWW-Authenticate': { description: 'Basic challenge', schema: { type: 'string' }, example: 'Basic realm="burrow"' },
    },
    content: content(schemaRef('Error'), {
      invalid: ex('wrong username or password', err('invalid partner credentials')),
      missing: ex('no Authorization header', err('partner credentials required (HTTP Basic)')),
    }),
  },
  TooManyRequests: {
    description:
      'Too many failed logins: 20 per partner username in 5 minutes, or 100 per client address in a minute on one gateway. Further requests are refused until the window has passed, even with the right password (unless those exact credentials were verified moments before).',
    headers: {
      'Retry-After': { description: 'seconds to wait', schema: { type: 'integer', minimum: 1 }, example: '240' },
    },
    content: content(schemaRef('Error'), {
      account: ex('this username failed too often', err('too many failed logins for this account; retry later', { retry_after: 240 })),
      address: ex('this client address failed too often', err('too many failed logins from this address; retry later', { retry_after: 35 })),
    }),
  },
  ServiceUnavailable: error('A service behind the gateway did not answer in time, or was too contended. After a timeout a write may still have been applied: read back before retrying.', {
    timeout: ex('service timed out', err('accounts service did not answer in time')),
  }),
  PayloadTooLarge: error(`The request body is over ${JSON_BODY_LIMIT} bytes.`, {
    tooLarge: ex('body too large', err(`request body over ${JSON_BODY_LIMIT} bytes`)),
  }),
};

const notValidJson = ex('body is not JSON', err('request body is not valid JSON'));
const notAnObject = ex('body is not a JSON object', err('request body must be a JSON object'));
const noUser = (u = 'nobody') => error('No such user for this partner.', { noUser: ex('unknown user', err(`no user ${u}`)) });
const noGroup = error('No such group for this partner (or the id is not a positive integer).', { noGroup: ex('unknown group', err('no group 99')) });

// ---------------------------------------------------------------------------------------------
// Paths.

const paths: Record<string, PathItem> = {
  '/ping': {
    get: {
      operationId: 'ping',
      tags: ['partner'],
      summary: 'Credential check',
      description: 'Clients use this to check credentials: 200 with the JSON string "pong" for good ones, 401 otherwise. GET, not POST (unlike the earlier interface).',
      responses: {
        '200': reply('Credentials are good.', { type: 'string', const: 'pong' }, { pong: ex('good credentials', 'pong') }),
        ...AUTHENTICATED,
      },
    },
  },
  '/plans': {
    get: {
      operationId: 'listPlans',
      tags: ['plans'],
      summary: 'List all plans',
      description: 'Every plan, promo-code plans included (there is no `promo` parameter and no single-plan resource). An unlimited plan always exists.',
      responses: {
        '200': reply('All plans, by plan_id.', listOf('Plan', 'plans'), { plans: ex('default catalogue', examplePlans) }),
        ...AUTHENTICATED,
      },
    },
  },
  '/users/': {
    get: {
      operationId: 'listUsers',
      tags: ['users'],
      summary: 'List users, or count them',
      description:
        'A page of the partner\'s users (ordered by username unless `order_by`), or with `action=user_count` their number. Filters combine with AND. ' +
        'Bulk clients page with limit=1000 and growing offsets.',
      parameters: [
        queryParam('action', '`user_count` returns `{"user_count": N}` for the same filters instead of the list (limit, offset and order_by do not apply)', { type: 'string', enum: ['user_count'] }),
        queryParam('plan_id', 'only users on this plan', { type: 'integer' }, 2),
        queryParam('group_id', 'only users in this group', { type: 'integer' }, 3),
        queryParam('search', 'case-insensitive substring of the full name or email address', { type: 'string' }, 'doe'),
        queryParam(
          'search_by',
          `\`field<op>value\` with op one of \`= > >= < <=\`; field one of ${SORTABLE_USER_FIELDS.join(', ')}. Numeric fields need an integer value, \`enabled\`/\`purgehold_active\` need 0, 1, true or false; others compare as strings.`,
          { type: 'string', pattern: '^[a-z_]+\\s*(>=|<=|=|>|<)\\s*.*$' },
          'last_login>1700000000',
        ),
        queryParam('order_by', 'a user field, optionally prefixed with `-` for descending; ties are broken by username', {
          type: 'string',
          enum: SORTABLE_USER_FIELDS.flatMap((f) => [f, `-${f}`]),
        }, '-bytes_stored'),
        paramRef('limit'),
        paramRef('offset'),
      ],
      responses: {
        '200': reply(
          'The page of users, or the count with `action=user_count`.',
          { oneOf: [schemaRef('UserList'), schemaRef('UserCount')] },
          { list: ex('GET /users/?limit=1000&offset=0', [exampleUser]), count: ex('GET /users/?action=user_count&group_id=3', { user_count: 42 }) },
        ),
        '400': error('A malformed query parameter (named in `fields`).', {
          searchBy: ex('bad search_by', err('search_by must look like field<op>value with op one of = > >= < <=', { fields: ['search_by'] })),
          orderBy: ex('unknown order_by field', err('cannot order by shoe_size', { fields: ['order_by'] })),
          limit: ex('non-numeric limit', err('invalid query parameter: limit', { fields: ['limit'] })),
        }),
        ...AUTHENTICATED,
      },
    },
    post: {
      operationId: 'createUser',
      tags: ['users'],
      summary: 'Create a user (beyond the spec)',
      requestBody: body('The new user.', schemaRef('UserCreate'), {
        chosen: ex('username and plan chosen, password generated', { name: 'Bob Smith', email: 'bob.smith@example.com', username: 'bsmith', plan_id: 1 }),
        minimal: ex('name and email only (username bob.smith derived from the email)', { name: 'Bob Smith', email: 'bob.smith@example.com' }),
        withPassword: ex('with a password (no temp_password in the reply)', { name: 'Bob Smith', email: 'bob.smith@example.com', group_id: 4, bonus_gigs: 10, password: 'correct horse battery' }),
      }),
      responses: {
        '201': reply('Created. `temp_password` only when no password was given.', schemaRef('UserCreated'), { created: ex('reply to the `chosen` request: username bsmith, generated password', exampleCreated) }),
        '400': error('Invalid or missing fields (named in `fields`), an invalid derived username, or a body that is not a JSON object.', {
          fields: ex('missing email, bad plan_id', err('invalid or missing parameters: plan_id, email', { fields: ['plan_id', 'email'] })),
          password: ex('password too short', err('password must be a string of 8 to 1024 characters', { fields: ['password'] })),
          json: notValidJson,
        }),
        '402': error('Allocating the plan would exceed the bytes available to the enterprise.', { payment: ex('over the enterprise allocation', err('payment required')) }),
        '409': error('Duplicate username or email (across the service), or a nonexistent plan or group.', {
          username: ex('username taken', err('username already in use', { conflicts: ['username'] })),
          email: ex('email taken', err('email already in use', { conflicts: ['email'] })),
          plan: ex('no such plan', err('plan 99 does not exist', { conflicts: ['plan_id'] })),
          group: ex('no such group', err('group 99 does not exist', { conflicts: ['group_id'] })),
        }),
        ...WITH_BODY,
      },
    },
  },
  '/users/{user}': {
    get: {
      operationId: 'getUser',
      tags: ['users'],
      summary: 'User details',
      parameters: [paramRef('user')],
      responses: { '200': reply('The user.', schemaRef('User'), { user: ex('GET /users/jdoe', exampleUser) }), '404': noUser(), ...AUTHENTICATED },
    },
    post: {
      operationId: 'updateUser',
      tags: ['users'],
      summary: 'Change a user, or delete it with ?action=delete',
      description:
        'Sets any number of attributes in one request and returns the updated record. With `action=delete` the body is ignored, the user is purged (same as DELETE) and the reply is empty. A promo plan needs no promo code.',
      parameters: [
        paramRef('user'),
        queryParam('action', '`delete`: purge the user (same as DELETE); any other value is 400', { type: 'string', enum: ['delete'] }),
      ],
      requestBody: body(
        'The attributes to change (ignored with action=delete).',
        schemaRef('UserUpdate'),
        {
          several: ex('move to a group, add bonus, disable', { group_id: 3, bonus_gigs: 5, enabled: false }),
          plan: ex('change plan (a promo plan needs no promo code)', { plan_id: 4 }),
        },
        false,
      ),
      responses: {
        '200': reply('The updated user (empty body with action=delete).', schemaRef('User'), { updated: ex('after the change', exampleUser) }),
        '400': error('Invalid fields (named in `fields`), or an unknown action.', {
          fields: ex('bad values', err('invalid or missing parameters: email, enabled', { fields: ['email', 'enabled'] })),
          action: ex('unknown action', err('unknown action purge', { fields: ['action'] })),
          notObject: notAnObject,
        }),
        '402': error('The new plan or bonus would exceed the bytes available to the enterprise.', { quota: ex('quota exceeded', err('quota exceeded')) }),
        '404': noUser(),
        '409': error('Email already used by another user, or a nonexistent plan or group.', {
          email: ex('email taken', err('email already in use', { conflicts: ['email'] })),
          plan: ex('no such plan', err('plan 99 does not exist', { conflicts: ['plan_id'] })),
          group: ex('no such group', err('group 99 does not exist', { conflicts: ['group_id'] })),
        }),
        ...WITH_BODY,
      },
    },
    delete: {
      operationId: 'deleteUser',
      tags: ['users'],
      summary: 'Purge a user',
      description: 'Deletes the user with its devices and shares, releases its allocation, username and email.',
      parameters: [paramRef('user')],
      responses: { '200': empty('Deleted.'), '404': noUser(), ...AUTHENTICATED },
    },
  },
  '/users/{user}/devices': {
    get: {
      operationId: 'listUserDevices',
      tags: ['users'],
      summary: "A user's devices",
      parameters: [paramRef('user')],
      responses: {
        '200': reply('The devices, oldest first.', listOf('Device', 'devices'), { devices: ex('two devices', exampleDevices) }),
        '404': noUser(),
        ...AUTHENTICATED,
      },
    },
  },
  '/users/{user}/shares/': {
    get: {
      operationId: 'listUserShares',
      tags: ['shares'],
      summary: "A user's share rooms (beyond the spec)",
      parameters: [paramRef('user')],
      responses: {
        '200': reply('The rooms.', listOf('ShareRoom', 'rooms'), { rooms: ex('one room', [exampleRoom]) }),
        '404': noUser(),
        ...AUTHENTICATED,
      },
    },
  },
  '/users/{user}/shares/{room}': {
    get: {
      operationId: 'getUserShare',
      tags: ['shares'],
      summary: 'One share room of a user (beyond the spec)',
      parameters: [paramRef('user'), paramRef('room')],
      responses: {
        '200': reply('The room.', schemaRef('ShareRoom'), { room: ex('a room', exampleRoom) }),
        '404': error('No such user or room.', { noRoom: ex('unknown room', err('no share nosuchroom')), noUser: ex('unknown user', err('no user nobody')) }),
        ...AUTHENTICATED,
      },
    },
    post: {
      operationId: 'setUserShareEnabled',
      tags: ['shares'],
      summary: 'Enable or disable a share room (beyond the spec)',
      description: 'Clients send the body `{}`; any body is ignored. Returns the room as it now is.',
      parameters: [
        paramRef('user'),
        paramRef('room'),
        { name: 'action', in: 'query', required: true, description: 'enable or disable', schema: { type: 'string', enum: ['enable', 'disable'] }, example: 'disable' },
      ],
      requestBody: {
        description: 'Ignored.',
        required: false,
        content: { [JSON_TYPE]: { schema: { type: 'object' }, examples: { empty: ex('what clients send', {}) } } },
      },
      responses: {
        '200': reply('The room after the change.', schemaRef('ShareRoom'), { disabled: ex('after ?action=disable', { ...exampleRoom, enabled: false }) }),
        '400': error('`action` missing or not enable/disable.', { action: ex('bad action', err('action must be enable or disable', { fields: ['action'] })) }),
        '404': error('No such user or room.', { noRoom: ex('unknown room', err('no share nosuchroom')) }),
        ...AUTHENTICATED,
      },
    },
  },
  '/groups/': {
    get: {
      operationId: 'listGroups',
      tags: ['groups'],
      summary: 'List groups',
      parameters: [queryParam('search', 'only groups whose name contains this text (case-insensitive)', { type: 'string' }, 'eng')],
      responses: {
        '200': reply('Every matching group, by group_id.', listOf('Group', 'groups'), { groups: ex('two groups', exampleGroups) }),
        ...AUTHENTICATED,
      },
    },
    post: {
      operationId: 'createGroup',
      tags: ['groups'],
      summary: 'Create a group',
      requestBody: body('The new group.', schemaRef('GroupCreate'), {
        group: ex('a group', { name: 'Engineering', plan_id: 2, webapi_enable: true, check_domain: false }),
      }),
      responses: {
        '201': reply('Created; `Location` ends in `/<group_id>` (no trailing slash, no query) on the mount that was called.', schemaRef('Group'), { created: ex('the new group', exampleGroup) }, {
          Location: { description: 'path of the new group', schema: { type: 'string' }, example: '/groups/3' },
        }),
        '400': error('Invalid or missing parameters (named in `fields`).', {
          fields: ex('missing name, bad plan_id', err('invalid or missing parameters: plan_id, name', { fields: ['plan_id', 'name'] })),
          notObject: notAnObject,
        }),
        '409': error('A group with that name exists (case-insensitive), or plan_id names no plan.', {
          name: ex('name taken', err('name already in use', { conflicts: ['name'] })),
          plan: ex('no such plan', err('plan 99 does not exist', { conflicts: ['plan_id'] })),
        }),
        ...WITH_BODY,
      },
    },
  },
  '/groups/{id}': {
    get: {
      operationId: 'getGroup',
      tags: ['groups'],
      summary: 'Group details',
      parameters: [paramRef('groupId')],
      responses: { '200': reply('The group.', schemaRef('Group'), { group: ex('GET /groups/3', exampleGroup) }), '404': noGroup, ...AUTHENTICATED },
    },
    post: {
      operationId: 'updateGroup',
      tags: ['groups'],
      summary: 'Change a group, or delete it with ?action=delete',
      description:
        'Returns the updated group. A new plan_id is applied to every member. With `action=delete` (and optional `move_to`) the group is deleted as by DELETE, the body is ignored and the reply is empty.',
      parameters: [
        paramRef('groupId'),
        queryParam('action', '`delete`: delete the group (same as DELETE); any other value is 400', { type: 'string', enum: ['delete'] }),
        paramRef('moveTo'),
      ],
      requestBody: body(
        'The fields to change (ignored with action=delete).',
        schemaRef('GroupUpdate'),
        {
          rename: ex('rename', { name: 'Platform engineering' }),
          forcePlan: ex('change plan even if members go over quota', { plan_id: 1, force: true }),
        },
        false,
      ),
      responses: {
        '200': reply('The updated group (empty body with action=delete).', schemaRef('Group'), { updated: ex('after a rename', { ...exampleGroup, name: 'Platform engineering' }) }),
        '400': error('Invalid parameters (named in `fields`), an unknown action, or (action=delete) an invalid move_to.', {
          fields: ex('bad values', err('invalid or missing parameters: webapi_enable', { fields: ['webapi_enable'] })),
          moveTo: ex('move_to names no group', err('move_to: no group 99', { fields: ['move_to'] })),
        }),
        '402': error('The new plan would make the enterprise allocation exceed the bytes available.', {
          quota: ex('over the enterprise allocation', err('plan change would make the allocation exceed the bytes available')),
        }),
        '404': noGroup,
        '409': error('plan_id names no plan; the name is used by another group; members would exceed their quota under the new plan (send force); or (action=delete) the group has users and no move_to.', {
          plan: ex('no such plan', err('plan 99 does not exist', { conflicts: ['plan_id'] })),
          name: ex('name taken', err('name already in use', { conflicts: ['name'] })),
          overQuota: ex('members over quota', err('members would exceed their quota under the new plan (use force)', { conflicts: ['avatars_over_quota'] })),
          hasUsers: ex('action=delete on a group with users', err('group has users; supply move_to', { conflicts: ['move_to'] })),
        }),
        ...WITH_BODY,
      },
    },
    delete: {
      operationId: 'deleteGroup',
      tags: ['groups'],
      summary: 'Delete a group',
      description: 'With move_to, every member moves to that group (and takes its plan). Without it, a group with users is refused (409).',
      parameters: [paramRef('groupId'), paramRef('moveTo')],
      responses: {
        '200': empty('Deleted.'),
        '400': error('move_to is not a positive integer, names this group, or names no group.', {
          same: ex('move_to is the group itself', err('move_to must name another group', { fields: ['move_to'] })),
          unknown: ex('move_to names no group', err('move_to: no group 99', { fields: ['move_to'] })),
        }),
        '404': noGroup,
        '409': error('The group has users and move_to was not given.', {
          hasUsers: ex('members present', err('group has users; supply move_to', { conflicts: ['move_to'] })),
        }),
        ...AUTHENTICATED,
      },
    },
  },
  '/partner/password': {
    post: {
      operationId: 'changePartnerPassword',
      tags: ['partner'],
      summary: 'Change the API / management console password',
      description: 'Takes effect at once on every gateway: the old password gets 401 from then on.',
      requestBody: body('The new password.', schemaRef('PartnerPassword'), {
        bare: ex('a bare JSON string (the spec)', 'n3w-Secret-passphrase'),
        object: ex('an object', { password: 'n3w-Secret-passphrase' }),
      }),
      responses: {
        '200': empty('Changed.'),
        '400': error('Not a string of 8 to 1024 characters.', {
          notString: ex('not a string', err('body must be a JSON string holding the new password', { fields: ['password'] })),
          short: ex('too short', err('password must be a string of 8 to 1024 characters', { fields: ['password'] })),
        }),
        ...WITH_BODY,
      },
    },
  },
  '/partner/settings': {
    get: {
      operationId: 'getPartnerSettings',
      tags: ['partner'],
      summary: 'Enterprise settings',
      responses: { '200': reply('The settings.', schemaRef('PartnerSettings'), { settings: ex('settings', exampleSettings) }), ...AUTHENTICATED },
    },
    post: {
      operationId: 'updatePartnerSettings',
      tags: ['partner'],
      summary: 'Change enterprise settings',
      description: 'Changes only the settings named; returns all settings.',
      requestBody: body('Any subset of the settings.', schemaRef('PartnerSettingsUpdate'), {
        some: ex('partial update; null clears', { share_link_ttl: 120, autopurge_interval: null, ad_domain: 'corp.example.com' }),
      }),
      responses: {
        '200': reply('All settings after the change.', schemaRef('PartnerSettings'), { settings: ex('after the change', { ...exampleSettings, share_link_ttl: 120, autopurge_interval: null }) }),
        '400': error('Invalid values or unknown keys (all named in `fields`).', {
          fields: ex('bad CIDR and an unknown key', err('invalid settings: signup_network_restriction, colour', { fields: ['signup_network_restriction', 'colour'] })),
          notObject: ex('not an object', err('settings must be a JSON object')),
        }),
        ...WITH_BODY,
      },
    },
  },
  '/partner/features': {
    get: {
      operationId: 'getPartnerFeatures',
      tags: ['partner'],
      summary: 'Enterprise features',
      responses: { '200': reply('The features.', schemaRef('PartnerFeatures'), { features: ex('features', exampleFeatures) }), ...AUTHENTICATED },
    },
  },
  '/partner/quota': {
    get: {
      operationId: 'getPartnerQuota',
      tags: ['partner'],
      summary: 'Enterprise quota',
      responses: {
        '200': reply('The quota.', schemaRef('PartnerQuota'), {
          limited: ex('a limited enterprise', exampleQuota),
          unlimited: ex('no limit', { ...exampleQuota, bytes_available: null }),
        }),
        ...AUTHENTICATED,
      },
    },
  },
  '/partner/info': {
    get: {
      operationId: 'getPartnerInfo',
      tags: ['partner'],
      summary: 'Who am I (beyond the spec)',
      responses: { '200': reply('The partner.', schemaRef('PartnerInfo'), { info: ex('info', exampleInfo) }), ...AUTHENTICATED },
    },
  },
  '/partner/billing': {
    get: {
      operationId: 'getPartnerBilling',
      tags: ['billing'],
      summary: 'Stored billing information (beyond the spec)',
      description: 'The billing mode and what is stored; of a card only brand, last four digits and expiry.',
      responses: {
        '200': reply('The stored information.', schemaRef('PartnerBilling'), {
          prepaid: ex('prepaid, card on file', exampleBillingPrepaid),
          nothingYet: ex('before the first update', exampleBillingNothing),
        }),
        ...AUTHENTICATED,
      },
    },
    post: {
      operationId: 'updatePartnerBilling',
      tags: ['billing'],
      summary: 'Set billing information',
      description: 'Prepaid billing: the card is checked with the card processor first; nothing is stored when it is refused. Returns what is stored.',
      requestBody: body('The billing information.', schemaRef('BillingInformation'), {
        invoice: ex('invoice billing', billingAddress),
        prepaid: ex('prepaid billing', { ...billingAddress, card_number: '4242 4242 4242 4242', security_code: '123', expiration_month: 12, expiration_year: 2030 }),
      }),
      responses: {
        '200': reply('Updated; the stored information.', schemaRef('PartnerBilling'), {
          invoice: ex('invoice billing', exampleBillingInvoice),
          prepaid: ex('prepaid billing', exampleBillingPrepaid),
        }),
        '400': error('Invalid or missing fields (all named in `fields`; values are never echoed).', {
          missing: ex(
            'prepaid, card fields missing',
            err('invalid or missing parameters: card_number (required for prepaid billing), security_code (required for prepaid billing)', { fields: ['card_number', 'security_code'] }),
          ),
          invoiceCard: ex('a card sent for invoice billing', err('invalid or missing parameters: card_number (not accepted for invoice billing)', { fields: ['card_number'] })),
        }),
        '409': error('Prepaid only: the card processor refused the card (`code` is its response code).', {
          declined: ex('card declined', err('the card was declined', { code: 'card_declined', conflicts: [] })),
          funds: ex('insufficient funds', err('the card has insufficient funds', { code: 'insufficient_funds', conflicts: [] })),
        }),
        ...WITH_BODY,
        '503': error('The card processor did not answer (nothing was stored), or the billing service did not answer in time (read back before retrying).', {
          processor: ex('card processor down', err('the card processor did not answer; nothing was stored, retry')),
          timeout: ex('billing service timed out', err('billing service did not answer in time')),
        }),
      },
    },
  },
  '/shares/': {
    get: {
      operationId: 'listBrandShares',
      tags: ['shares'],
      summary: 'All shares within the brand',
      description: 'Users of the partner that have shares (by username), each with its rooms. `limit` and `offset` count users.',
      parameters: [paramRef('limit'), paramRef('offset')],
      responses: {
        '200': reply('Users with their shares.', listOf('BrandShareEntry', 'entries'), { shares: ex('one user with one room', exampleBrandShares) }),
        '400': error('limit or offset not a non-negative integer.', { limit: ex('bad limit', err('invalid query parameter: limit', { fields: ['limit'] })) }),
        ...AUTHENTICATED,
      },
    },
  },
  '/clientrevisions/': {
    get: {
      operationId: 'listClientRevisions',
      tags: ['reports'],
      summary: 'Device counts by client revision',
      parameters: [
        queryParam('min_revision', 'lowest revision counted (default 0, the lowest possible)', { type: 'integer', minimum: 0, default: 0 }, 1100),
        queryParam('max_revision', 'highest revision counted; -1 = no maximum (default)', { type: 'integer', minimum: -1, default: -1 }),
        queryParam('max_days_since_login', 'only devices that logged in within this many days; -1 = no maximum (default)', { type: 'integer', minimum: -1, default: -1 }, 30),
      ],
      responses: {
        '200': reply('Counts, by revision ascending.', listOf('ClientRevisionCount', 'counts'), { counts: ex('two revisions in use', exampleRevisions) }),
        '400': error('A parameter is not an integer or below its minimum.', {
          min: ex('negative min_revision', err('invalid query parameter: min_revision', { fields: ['min_revision'] })),
        }),
        ...AUTHENTICATED,
      },
    },
  },
  '/healthz': {
    ...OPERATOR_ONLY,
    get: {
      operationId: 'healthz',
      tags: ['operations'],
      summary: 'Liveness',
      security: [],
      responses: { '200': reply('The process is alive.', schemaRef('Health'), { ok: ex('alive', { status: 'ok' }) }) },
    },
  },
  '/readyz': {
    ...OPERATOR_ONLY,
    get: {
      operationId: 'readyz',
      tags: ['operations'],
      summary: 'Readiness',
      description: 'Asks every service (accounts, billing, storage-catalog) for its health, with a 1.5 s timeout each, and pings the blob store.',
      security: [],
      responses: {
        '200': reply('Ready.', schemaRef('Readiness'), {
          ready: ex('all good', { status: 'ready', checks: { accounts: 'ok', billing: 'ok', 'storage-catalog': 'ok', blobs: 'ok' } }),
        }),
        '503': reply('Not ready; `checks` says what failed.', schemaRef('Readiness'), {
          notReady: ex('billing down', { status: 'not ready', checks: { accounts: 'ok', billing: 'billing service did not answer in time', 'storage-catalog': 'ok', blobs: 'ok' } }),
        }),
      },
    },
  },
  '/metrics': {
    ...OPERATOR_ONLY,
    get: {
      operationId: 'metrics',
      tags: ['operations'],
      summary: 'Prometheus metrics',
      security: [],
      responses: {
        '200': {
          description: 'Prometheus text exposition: `burrow_http_requests_total{method,route,status}`, `burrow_http_request_duration_seconds{method,route}`, and process metrics prefixed `burrow_gateway_`.',
          content: {
            'text/plain': {
              schema: { type: 'string' },
              examples: {
                sample: ex(
                  'an excerpt',
                  '# HELP burrow_http_requests_total HTTP requests handled by the gateway\n# TYPE burrow_http_requests_total counter\nburrow_http_requests_total{method="GET",route="/users",status="200"} 12\n',
                ),
              },
            },
          },
        },
      },
    },
  },
  '/openapi.json': {
    ...OPERATOR_ONLY,
    get: {
      operationId: 'openapi',
      tags: ['operations'],
      summary: 'This document',
      security: [],
      responses: {
        '200': reply('The OpenAPI 3.1 document.', { type: 'object', required: ['openapi', 'info', 'paths'] }, {
          document: ex('the start of it', { openapi: '3.1.0', info: { title: 'Burrow accounts interface (A)', version: '1' }, paths: {} }),
        }),
      },
    },
  },
};

// ---------------------------------------------------------------------------------------------
// The document.

const DESCRIPTION = `
The partner accounts interface (interface A) of Burrow: plans, users, groups, partner password,
settings, features, quota, billing, the brand-wide share list and client revisions, plus the
operator endpoints (/healthz, /readyz, /metrics, /openapi.json). The human guide is docs/api.md.

**Mounts.** Every interface-A path is also served under \`/apis/accounts/v1/\` (where existing
clients point), e.g. \`/apis/accounts/v1/users/\`; the two \`servers\` below are the two mounts. The
operator endpoints are at the root only. Trailing slashes are optional: \`/users/\` and \`/users\`
are the same resource.

**Authentication.** HTTP Basic with the partner's username and API password on every interface-A
request (send it pre-emptively). Missing or bad credentials get 401 with
\`WWW-Authenticate: Basic realm="burrow"\`. \`GET /ping\` is the credential check. After too many
failed logins (20 per username in 5 minutes, 100 per client address in a minute on one gateway)
requests are refused with 429 and \`Retry-After\` until the window has passed.

**Lenient input.** Request bodies are JSON whatever the content type: application/json,
text/javascript (the spec's), or a form content type holding JSON. Integer fields accept numeric
strings (\`"3"\`); boolean fields accept true/false, 1/0 and the strings "true"/"false", "1"/"0",
"yes"/"no", "on"/"off" in any case (so \`"True"\`). Anything else is 400 naming the field. Strings are
trimmed. Unknown keys are ignored, except in partner settings, where they are refused. Integer
query parameters accept the same numeric strings; unknown query parameters are ignored.

**Errors.** Every error is JSON \`{"reason": "..."}\` (schema Error). 400 lists the invalid or missing
fields in \`fields\`; 409 always carries \`conflicts\`, a list of tokens (${CONFLICT_TOKENS.join(', ')}),
except the billing card refusal, which carries the processor's \`code\`. 402 is a storage quota
refusal, 404 an unknown resource or one of another partner, 429 too many failed logins, 413 a body over ${JSON_BODY_LIMIT} bytes, 503
a service that did not answer in time (a write may still have been applied: read back, then retry).

**Pagination.** \`GET /users/\` and \`GET /shares/\` take \`limit\` (at most ${MAX_PAGE}, the default) and
\`offset\`.
`.trim();

export const openApiDocument: OpenApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Burrow accounts interface (A)',
    version: '1',
    summary: 'Partner administration of plans, users, groups, billing and settings.',
    description: DESCRIPTION,
  },
  jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
  servers: [
    { url: '/', description: 'interface A at the root' },
    { url: '/apis/accounts/v1', description: 'the same interface under the mount existing clients use' },
  ],
  security: [{ basicAuth: [] }],
  tags: [
    { name: 'partner', description: 'credential check, password, settings, features, quota, info' },
    { name: 'plans', description: 'the plan catalogue' },
    { name: 'users', description: 'users of the partner' },
    { name: 'groups', description: 'groups of users' },
    { name: 'shares', description: 'share rooms: per user and brand-wide' },
    { name: 'billing', description: 'partner billing information' },
    { name: 'reports', description: 'client revisions' },
    { name: 'operations', description: 'health, metrics and this document (no authentication)' },
  ],
  paths,
  components: {
    schemas,
    responses,
    parameters,
    securitySchemes: {
      basicAuth: { type: 'http', scheme: 'basic', description: "The partner's username and API password (HTTP Basic, UTF-8)." },
    },
  },
};
