/**
 * Every limit of the accounts interface, declared once. The request schemas, the handlers and the
 * OpenAPI document import these; none restates a number.
 */

/** 1,000,000,001,000,000,000 bytes: the "unlimited" storage value clients test for. */
export const UNLIMITED_BYTES = 1000000001000000000;
export const GIGABYTE = 1_000_000_000;

/** Page size cap: bulk clients page 1000 at a time; nobody gets an unbounded list. */
export const MAX_PAGE = 10_000;
/** Page size cap of the operator's lists (reservations, unfinished multi-step writes). */
export const OPERATOR_PAGE_MAX = 1000;
/** Groups have no paging parameters in the spec; the list is bounded all the same. */
export const MAX_GROUPS = 10_000;

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;

export const NAME_MAX_LENGTH = 255;
export const USERNAME_MAX_LENGTH = 128;
/** A username: letters, digits and `._@+-`, starting with a letter or digit. */
export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$/;
/** A partner's login name (operator-created). */
export const PARTNER_USERNAME_PATTERN = /^[A-Za-z0-9._@-]{1,128}$/;
export const SEARCH_MAX_LENGTH = 255;

/** User fields a list can be ordered and searched by (`order_by`, `search_by`). */
export const USER_SORTABLE_FIELDS = [
  'avatar_id',
  'username',
  'name',
  'email',
  'creation_time',
  'last_login',
  'bytes_stored',
  'bonus_bytes',
  'plan_id',
  'group_id',
  'enabled',
  'purgehold_active',
  'num_devices',
] as const;
export type UserSortableField = (typeof USER_SORTABLE_FIELDS)[number];
export const USER_NUMERIC_FIELDS: readonly UserSortableField[] = [
  'avatar_id',
  'creation_time',
  'last_login',
  'bytes_stored',
  'bonus_bytes',
  'plan_id',
  'group_id',
  'num_devices',
];
export const USER_BOOLEAN_FIELDS: readonly UserSortableField[] = ['enabled', 'purgehold_active'];
export const SEARCH_BY_OPERATORS = ['=', '>', '>=', '<', '<='] as const;
/**
 * `search_by=recently_stopped_uploading=<A>|<B>` (seconds): users whose most recent backup is
 * within the last A seconds but not within the last B. Each bound is at most this many digits.
 */
export const RECENTLY_STOPPED_UPLOADING = 'recently_stopped_uploading';
export const WINDOW_SECONDS_MAX_DIGITS = 10;

/** The longest an SMTP send may take (connection included) before it is refused as not sent. */
export const MAIL_SEND_TIMEOUT_MS = 20_000;
export type SearchByOperator = (typeof SEARCH_BY_OPERATORS)[number];

/** Settings: integers fit a signed 32-bit column in the original service. */
export const SETTINGS_INT_MAX = 2_147_483_647;
export const API_VERSION_MAX_LENGTH = 32;

export const PARTNER_FEATURES = [
  'netkes',
  'ldap',
  'group_permissions',
  'signup_restrictions',
  'email_as_username',
] as const;
