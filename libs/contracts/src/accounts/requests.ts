/**
 * What the accounts service is asked: the request schemas (parsed at the edge with
 * `parseRequest` / `parseQuery`; the OpenAPI document is generated from them) and the bus request
 * types its handlers receive, already validated. Every partner request carries `partnerId`, set by
 * the gateway from the credentials, never from client input.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { SharePassword } from './share-passwords.js';
import type { PartnerScoped } from '../bus.js';
import { emailAddress, EMAIL_PATTERN, formBool, formInt, text } from '../validation.js';
import {
  API_VERSION_MAX_LENGTH,
  GIGABYTE,
  NAME_MAX_LENGTH,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  RECENTLY_STOPPED_UPLOADING,
  SEARCH_BY_OPERATORS,
  type SearchByOperator,
  SETTINGS_INT_MAX,
  USER_BOOLEAN_FIELDS,
  USER_NUMERIC_FIELDS,
  USER_SORTABLE_FIELDS,
  USERNAME_MAX_LENGTH,
  USERNAME_PATTERN,
  type UserSortableField,
  WINDOW_SECONDS_MAX_DIGITS,
} from './limits.js';
import type { PartnerSettings } from './records.js';

// ---- field rules shared by several requests ---------------------------------------------------

/** A new password: 8 to 1024 characters, no NUL (scrypt would treat trailing NULs as absent). */
export const Password = z
  .string()
  .min(PASSWORD_MIN_LENGTH)
  .max(PASSWORD_MAX_LENGTH)
  .refine((s) => !s.includes('\0'), 'a password cannot contain NUL characters')
  .describe(`${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`);

export const Username = z.string().trim().min(1).max(USERNAME_MAX_LENGTH).regex(USERNAME_PATTERN);
/** Largest bonus in gigabytes whose byte count is still an exact integer. */
export const BONUS_GIGS_MAX = Math.floor(Number.MAX_SAFE_INTEGER / GIGABYTE);

// ---- users ------------------------------------------------------------------------------------

const userWriteFields = {
  name: text(NAME_MAX_LENGTH),
  email: emailAddress(),
  plan_id: formInt(),
  group_id: formInt().nullable(),
  bonus_bytes: formInt({ min: 0 }),
  bonus_gigs: formInt({ min: 0, max: BONUS_GIGS_MAX }).describe(
    'the bonus in gigabytes (10^9 bytes); bonus_bytes wins when both are given',
  ),
  enabled: formBool(),
  purgehold_active: formBool(),
  password: Password,
};

/** `POST /users/<u>`: any of the user's writable fields; unknown keys are ignored. */
export const UpdateUserBody = z
  .object(userWriteFields)
  .partial()
  .meta({ id: 'UpdateUserBody', description: 'The fields to change; each is optional.' });
export type UpdateUserBody = z.output<typeof UpdateUserBody>;

/** `POST /users/`: create a user. */
export const CreateUserBody = z
  .object({ ...userWriteFields, username: Username })
  .partial()
  .required({ name: true, email: true })
  .meta({ id: 'CreateUserBody', description: 'A new user. Without username one is derived from the email.' });
export type CreateUserBody = z.output<typeof CreateUserBody>;

/** The bonus in bytes a body asks for (bonus_bytes, else bonus_gigs), or undefined. */
export const bonusBytesOf = (body: { bonus_bytes?: number; bonus_gigs?: number }): number | undefined =>
  body.bonus_bytes ?? (body.bonus_gigs === undefined ? undefined : body.bonus_gigs * GIGABYTE);

export interface UserChanges {
  name?: string;
  email?: string;
  plan_id?: number;
  group_id?: number | null;
  bonus_bytes?: number;
  enabled?: boolean;
  purgehold_active?: boolean;
  password?: string;
}

export interface CreateUserRequest extends PartnerScoped, Omit<UserChanges, 'name' | 'email'> {
  username?: string;
  name: string;
  email: string;
}

export interface UpdateUserRequest extends PartnerScoped {
  /** username or email */
  user: string;
  changes: UserChanges;
}

/** A cookie session's user: valid while the password is the one the session was opened with. */
export interface SessionUserRequest {
  userId: string;
  /** `AuthenticatedUser.sessionStamp` at login */
  stamp: string;
}

export interface AuthenticateUserRequest {
  /** username or email, any case */
  login: string;
  password: string;
  /** the client's address, for throttling failed logins */
  address?: string;
}

export interface UserRef extends PartnerScoped {
  /** username or email */
  user: string;
}

export interface ShareRef extends UserRef {
  room_key: string;
}

export interface FieldSearch {
  field: UserSortableField;
  op: SearchByOperator;
  value: number | boolean | string;
}

/**
 * `recently_stopped_uploading=<A>|<B>`: the user's most recent backup (completed backup or
 * committed file, on any live device) is within the last `within` seconds and not within the
 * last `notWithin` seconds: `now - within <= last backup < now - notWithin`.
 */
export interface StoppedUploadingSearch {
  field: typeof RECENTLY_STOPPED_UPLOADING;
  within: number;
  notWithin: number;
}

export type SearchBy = FieldSearch | StoppedUploadingSearch;

const SEARCH_BY = /^([a-z_]+)\s*(>=|<=|=|>|<)\s*(.*)$/;
const WINDOW = new RegExp(`^(\\d{1,${WINDOW_SECONDS_MAX_DIGITS}})\\s*\\|\\s*(\\d{1,${WINDOW_SECONDS_MAX_DIGITS}})$`);

/** `field<op>value`, with the value typed by the field (number, boolean or text). */
export const SearchByParam = z
  .string()
  .regex(SEARCH_BY)
  .transform((raw, ctx): SearchBy => {
    const [, field, op, rawValue] = SEARCH_BY.exec(raw)!;
    const value = rawValue.trim();
    const bad = (message: string) => {
      ctx.issues.push({ code: 'custom', message, input: raw });
      return z.NEVER;
    };
    if (field === RECENTLY_STOPPED_UPLOADING) {
      const window = op === '=' ? WINDOW.exec(value) : null;
      if (!window) return bad(`search_by ${RECENTLY_STOPPED_UPLOADING} needs =<seconds>|<seconds>`);
      return { field: RECENTLY_STOPPED_UPLOADING, within: Number(window[1]), notWithin: Number(window[2]) };
    }
    if (!(USER_SORTABLE_FIELDS as readonly string[]).includes(field)) return bad(`cannot search by ${field}`);
    const f = field as UserSortableField;
    if (USER_NUMERIC_FIELDS.includes(f)) {
      return /^-?\d{1,16}$/.test(value)
        ? { field: f, op: op as SearchByOperator, value: Number(value) }
        : bad(`search_by ${f} needs a number`);
    }
    if (USER_BOOLEAN_FIELDS.includes(f)) {
      return /^(0|1|true|false)$/i.test(value)
        ? { field: f, op: op as SearchByOperator, value: /^(1|true)$/i.test(value) }
        : bad(`search_by ${f} needs a boolean`);
    }
    return { field: f, op: op as SearchByOperator, value };
  })
  .describe(
    `field<op>value: field one of ${USER_SORTABLE_FIELDS.join(', ')}; op one of ${SEARCH_BY_OPERATORS.join(' ')}; ` +
      `or ${RECENTLY_STOPPED_UPLOADING}=<A>|<B> (seconds): the most recent backup is within the last A seconds but not the last B`,
  );

export const ORDER_BY_PATTERN = new RegExp(`^-?(${USER_SORTABLE_FIELDS.join('|')})$`);

/** `GET /users/` query (also `?action=user_count`). */
export const ListUsersQuery = z.object({
  plan_id: formInt().optional(),
  group_id: formInt().optional(),
  search: z.string().optional().describe('matches name or email, case-insensitively'),
  search_by: SearchByParam.optional(),
  order_by: z
    .string()
    .regex(ORDER_BY_PATTERN)
    .optional()
    .describe('a user field, optionally prefixed with - for descending'),
  limit: formInt({ min: 0 }).optional(),
  offset: formInt({ min: 0 }).optional(),
  action: z
    .string()
    .optional()
    .describe('`user_count` returns `{"user_count": N}` for the same filters instead of the list'),
});
export type ListUsersQuery = z.output<typeof ListUsersQuery>;

export interface ListUsersRequest extends PartnerScoped {
  plan_id?: number;
  group_id?: number;
  search?: string;
  search_by?: SearchBy;
  order_by?: string;
  limit?: number;
  offset?: number;
}

/** `POST /users/<u>` and `POST /groups/<id>` take `?action=delete`. */
export const ActionQuery = z.object({ action: z.enum(['delete']).optional() });

/** `POST /users/<u>` also takes `?action=sendactivationemail`. */
export const UserActionQuery = z.object({ action: z.enum(['delete', 'sendactivationemail']).optional() });

export const TEMPLATE_NAME_MAX_LENGTH = 64;

/** `POST /users/<u>?action=sendactivationemail`: an optional body; unknown keys are ignored. */
export const SendActivationEmailBody = z
  .object({
    template_name: z
      .string()
      .trim()
      .max(TEMPLATE_NAME_MAX_LENGTH)
      .optional()
      .describe('`set_password` (the default) or `activation`; another name gets the default wording'),
  })
  .meta({ id: 'SendActivationEmailBody', description: 'Which email to send; the body may be absent or `{}`.' });
export type SendActivationEmailBody = z.output<typeof SendActivationEmailBody>;

export interface SendActivationEmailRequest extends UserRef {
  template_name?: string;
  /** the origin the partner reached the gateway at, used for the link when BURROW_PUBLIC_URL is unset */
  origin?: string;
}

/** The set-password page: the link's token (from the URL) is the only credential. */
export interface SetPasswordLinkRef {
  token: string;
}

export interface SetPasswordByLinkRequest extends SetPasswordLinkRef {
  /** already checked against the password rule (`SetPasswordForm`) */
  password: string;
}

/** The set-password page's form (urlencoded): the new password twice. */
export const SetPasswordForm = z.object({
  password: Password,
  confirm: z.string().max(PASSWORD_MAX_LENGTH),
});
export type SetPasswordForm = z.output<typeof SetPasswordForm>;

export const ShareActionQuery = z.object({ action: z.enum(['enable', 'disable']).optional() });

/** `POST /users/<u>/shares/<room_key>` without an action: the partner sets (or, with null, removes) the room's password. */
export const ChangeUserShareBody = z.object({ password: SharePassword.optional() }).meta({
  id: 'ChangeUserShareBody',
  description: 'A share room\'s password, set by the partner; null or "" removes it.',
});

// ---- groups -----------------------------------------------------------------------------------

/** No device policy: null, or what the management console's group form posts for it ("" when none is chosen, "None" as it renders null). */
const NO_DEVICE_POLICY = z.union([
  z.null(),
  z
    .string()
    .regex(/^\s*(none|null)?\s*$/i)
    .transform(() => null),
]);

const groupFields = {
  name: text(NAME_MAX_LENGTH),
  plan_id: formInt(),
  webapi_enable: formBool(),
  check_domain: formBool(),
  device_policy: z
    .union([NO_DEVICE_POLICY, formInt({ min: 1 })])
    .describe(
      'a device policy id of this partner, or null ("" and "None", what the management console\'s group form posts for no policy, are null too)',
    ),
};

export const CreateGroupBody = z
  .object({
    ...groupFields,
    webapi_enable: groupFields.webapi_enable.optional(),
    check_domain: groupFields.check_domain.optional(),
    device_policy: groupFields.device_policy.optional(),
  })
  .meta({ id: 'CreateGroupBody', description: 'A new group.' });
export type CreateGroupBody = z.output<typeof CreateGroupBody>;

export const UpdateGroupBody = z
  .object({ ...groupFields, force: formBool().describe('change the plan even if members would be over quota') })
  .partial()
  .meta({ id: 'UpdateGroupBody', description: 'The fields to change; each is optional.' });
export type UpdateGroupBody = z.output<typeof UpdateGroupBody>;

export const MoveToQuery = z.object({ move_to: formInt({ min: 1 }).optional() });
export const DeleteGroupQuery = MoveToQuery.extend({ action: z.enum(['delete']).optional() });

export const ListGroupsQuery = z.object({ search: z.string().optional() });

export type CreateGroupRequest = PartnerScoped & CreateGroupBody;

export interface GroupChanges {
  name?: string;
  plan_id?: number;
  webapi_enable?: boolean;
  check_domain?: boolean;
  device_policy?: number | null;
  force?: boolean;
}

export interface GroupRef extends PartnerScoped {
  group_id: number;
}

export interface UpdateGroupRequest extends GroupRef {
  changes: GroupChanges;
}

export interface DeleteGroupRequest extends GroupRef {
  move_to?: number;
}

// ---- partner ----------------------------------------------------------------------------------

/**
 * What the gateway sends to authenticate a partner: the HTTP Basic credentials and the client's
 * address as the gateway saw it (`req.ip`, which honours BURROW_TRUST_PROXY), for login throttling.
 */
export interface AuthenticatePartnerRequest {
  username: string;
  password: string;
  address: string;
}

/**
 * The payload field in which the gateway sends a partner's credentials along with an accounts
 * request instead of authenticating first (interface A in one bus round trip): the accounts
 * service takes the field out and authenticates them as `authenticatePartner` does (same check,
 * same throttle, same errors), then sets the payload's `partnerId` to the authenticated partner,
 * before any handler sees the payload. So a handler never sees the credentials (they are never
 * logged, stored or put in an event) and takes the partner from the authentication only.
 */
export const PARTNER_CREDENTIALS_FIELD = 'partnerCredentials';

/** Operator only: forget a partner username's failed logins and lock (the admin CLI's `unlock-login`). */
export interface UnlockPartnerLoginRequest {
  username: string;
}

/** `POST /partner/password`: a bare JSON string (the spec) or `{"password": "..."}`. */
export const ChangePasswordBody = z
  .union([
    Password,
    z
      .object({ password: Password })
      .transform((b) => b.password)
      .pipe(Password),
  ])
  .meta({ id: 'ChangePasswordBody', description: 'The new API password, as a bare JSON string.' });

const emptyToNull = z.union([
  z.null(),
  z
    .literal('')
    .transform(() => null)
    .pipe(z.null()),
]);
const nullable = <T extends z.ZodType>(schema: T) => z.union([emptyToNull, schema]);
const settingsInt = (min: number) => formInt({ min, max: SETTINGS_INT_MAX });
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

export function isCidr(value: string): boolean {
  const [addr, bits, ...rest] = value.split('/');
  if (rest.length || bits === undefined || !/^\d{1,3}$/.test(bits)) return false;
  const family = isIP(addr);
  if (family === 0) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

const httpUrl = z.string().refine((v) => {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an http(s) URL');
const settingsEmail = z.string().trim().regex(EMAIL_PATTERN);

/** `POST /partner/settings`: a partial update; unknown keys are refused so a typo is not ignored. */
export const UpdateSettingsBody = z
  .strictObject({
    omva_url: nullable(httpUrl),
    support_email: nullable(settingsEmail),
    share_link_ttl: settingsInt(1),
    autopurge_interval: nullable(settingsInt(0)),
    purgehold_duration: settingsInt(0),
    ad_domain: nullable(z.string().trim().regex(DOMAIN).toLowerCase()),
    signup_network_restriction: z.union([
      z
        .null()
        .transform((): string[] => [])
        .pipe(z.array(z.string())),
      z.array(z.string().trim().refine(isCidr, 'must be a CIDR network')),
    ]),
    versionpurge_interval: nullable(settingsInt(0)),
    admin_email: nullable(settingsEmail),
    sharing_enabled: formBool(),
    api_version: z.string().max(API_VERSION_MAX_LENGTH).nullable(),
  })
  .partial()
  .meta({
    id: 'UpdateSettingsBody',
    description: 'The settings to change; each is optional. Empty strings clear nullable settings.',
  });
export type UpdateSettingsBody = z.output<typeof UpdateSettingsBody>;

export interface UpdateSettingsRequest extends PartnerScoped {
  settings: Partial<PartnerSettings>;
}

export interface ChangePartnerPasswordRequest extends PartnerScoped {
  password: string;
}

// ---- reports ----------------------------------------------------------------------------------

export const PageQuery = z.object({ limit: formInt({ min: 0 }).optional(), offset: formInt({ min: 0 }).optional() });

export const ClientRevisionsQuery = z.object({
  min_revision: formInt({ min: 0 }).optional(),
  max_revision: formInt({ min: -1 }).optional(),
  max_days_since_login: formInt({ min: -1 }).optional(),
});

export interface BrandSharesRequest extends PartnerScoped {
  limit?: number;
  offset?: number;
}

export interface ClientRevisionsRequest extends PartnerScoped {
  min_revision: number;
  /** -1: no upper bound */
  max_revision: number;
  /** -1: any */
  max_days_since_login: number;
}
