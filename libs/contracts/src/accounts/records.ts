/**
 * What the accounts service answers: the records of interface A, declared as zod schemas so the
 * OpenAPI document is generated from the same declaration the types come from. Each record has an
 * `id` (its OpenAPI component name).
 */
import { z } from 'zod';
import { PARTNER_FEATURES } from './limits.js';
import type { ReservationKind } from './streams.js';

const unixTime = () => z.int().min(0);
/** A byte count: an exact integer, possibly beyond 2^53 (the unlimited value is). */
const bytes = (description = 'bytes') =>
  z.number().min(0).refine(Number.isInteger).meta({ type: 'integer', description });

export const Plan = z
  .object({
    plan_id: z.int().min(1),
    storage_bytes: bytes(),
    name: z.string(),
    promo: z.boolean().describe('true when the plan is normally sold with a promo code (partners set it without one)'),
  })
  .meta({ id: 'Plan', description: 'A storage plan. storage_bytes 1000000001000000000 means unlimited.' });
export type Plan = z.infer<typeof Plan>;

export const PartnerFeatures = z
  .object(
    Object.fromEntries(PARTNER_FEATURES.map((f) => [f, z.boolean()])) as Record<
      (typeof PARTNER_FEATURES)[number],
      z.ZodBoolean
    >,
  )
  .meta({ id: 'PartnerFeatures', description: 'Features the operator enabled for the partner.' });
export type PartnerFeatures = z.infer<typeof PartnerFeatures>;

export const PartnerSettings = z
  .object({
    omva_url: z.string().nullable(),
    support_email: z.string().nullable(),
    share_link_ttl: z.int().describe('minutes a share link stays valid'),
    autopurge_interval: z.int().nullable().describe('days after which deleted versions are purged; 0 or null: never'),
    purgehold_duration: z.int().describe('seconds after any deletion in the enterprise during which nothing is purged'),
    ad_domain: z.string().nullable(),
    signup_network_restriction: z.array(z.string()).describe('CIDR networks'),
    versionpurge_interval: z.int().nullable(),
    admin_email: z.string().nullable(),
    sharing_enabled: z.boolean(),
    api_version: z.string().nullable(),
  })
  .meta({ id: 'PartnerSettings', description: 'Enterprise settings.' });
export type PartnerSettings = z.infer<typeof PartnerSettings>;

export const PartnerQuota = z
  .object({
    bytes_available: bytes('null: unlimited').nullable(),
    bytes_allocated: bytes(),
    bytes_used: bytes(),
    share_count: z.int(),
    device_count: z.int(),
  })
  .meta({ id: 'PartnerQuota', description: 'The enterprise quota and what is allocated and used of it.' });
export type PartnerQuota = z.infer<typeof PartnerQuota>;

export const PartnerInfo = z
  .object({ partner_id: z.string(), company_name: z.string(), brand_identifier: z.string(), username: z.string() })
  .meta({ id: 'PartnerInfo', description: 'Who the authenticated partner is.' });
export type PartnerInfo = z.infer<typeof PartnerInfo>;

/** What the operator sees of a partner (admin CLI). */
export interface PartnerDetails extends PartnerInfo {
  bytes_available: number | null;
  features: PartnerFeatures;
}

export interface AuthenticatedPartner {
  partnerId: string;
  username: string;
  /**
   * Stands for the password the partner authenticated with (a digest of its hash; reveals nothing
   * usable): a long-lived request (the feed's SSE stream) carries it, and ends once it is no longer
   * the partner's current one (the password changed).
   */
  stamp: string;
}

/** A user whose password checked out, with what the storage interface's policy needs. */
export interface AuthenticatedUser {
  userId: string;
  partnerId: string;
  username: string;
  email: string;
  name: string;
  enabled: boolean;
  /** the user's group allows the storage web interface (true without a group) */
  webapi_enable: boolean;
  /**
   * Changes when the password changes (a hash of the stored password hash, which reveals nothing
   * usable): a cookie session records it, so a password change ends every session.
   */
  sessionStamp: string;
  /** the partner's settings that govern sharing: may the user share, and how long a share link lasts (minutes) */
  sharing_enabled: boolean;
  share_link_ttl: number;
}

export const Group = z
  .object({
    group_id: z.int().min(1),
    name: z.string(),
    plan_id: z.int(),
    webapi_enable: z.boolean(),
    check_domain: z.boolean(),
    device_policy: z
      .int()
      .min(1)
      .nullable()
      .describe('the device policy of its members (GET /devicepolicies/<id>), or null'),
    plan_status: z
      .enum(['current', 'updating'])
      .optional()
      .describe(
        '`updating` while a plan change is reaching the members (it is acknowledged at once; a group of thousands takes a while), else `current`',
      ),
    plan_members_pending: z
      .int()
      .min(0)
      .optional()
      .describe('GET of one group, while `updating`: members not yet on `plan_id`'),
  })
  .meta({ id: 'Group', description: 'A group of users sharing a plan and policies.' });
export type Group = z.infer<typeof Group>;

export const UserShareRoom = z
  .object({
    room_key: z.string(),
    name: z.string(),
    description: z.string(),
    enabled: z.boolean(),
    password_required: z.boolean(),
    expires: unixTime()
      .nullable()
      .optional()
      .describe(
        'when the room stops working (unix seconds; it then answers 404 like an unknown room); null or absent: never',
      ),
    creation_time: unixTime(),
    update_time: unixTime(),
    last_login: unixTime().nullable().describe('the last visit of the room (the same as last_access)'),
    downloads: z
      .int()
      .min(0)
      .optional()
      .describe('files and zips fetched from the room by its visitors (absent: none counted yet)'),
    last_access: unixTime().nullable().optional().describe('unix seconds of the last visit; null or absent: none yet'),
  })
  .meta({ id: 'UserShareRoom', description: "One of a user's share rooms." });
export type UserShareRoom = z.infer<typeof UserShareRoom>;

export const UserRecord = z
  .object({
    avatar_id: z.int(),
    username: z.string(),
    name: z.string(),
    email: z.string(),
    share_id: z.string(),
    share_identifier: z.string(),
    promo: z.string().nullable(),
    creation_time: unixTime(),
    last_login: unixTime().nullable(),
    bytes_stored: bytes(),
    storage_bytes: bytes('plan + bonus; 1000000001000000000 means unlimited'),
    bonus_bytes: bytes(),
    plan_id: z.int(),
    group_id: z.int().nullable(),
    enabled: z.boolean(),
    purgehold_active: z.boolean(),
    share_rooms: z.array(UserShareRoom),
    num_devices: z.int().min(0),
  })
  .meta({ id: 'UserRecord', description: 'A user, as every list item and read carries it.' });
export type UserRecord = z.infer<typeof UserRecord>;

export const DeviceRecord = z
  .object({
    name: z.string(),
    creation_time: unixTime(),
    last_backup_complete: unixTime().nullable(),
    lastlogin: unixTime().nullable(),
    last_login: unixTime()
      .nullable()
      .describe('the same as lastlogin: the last device login (report scripts read this name)'),
    lastcommit: unixTime().nullable(),
    client_revision: z.int(),
    sysplatform: z.string(),
  })
  .meta({ id: 'DeviceRecord', description: "One of a user's backup devices." });
export type DeviceRecord = z.infer<typeof DeviceRecord>;

export const CreateUserReply = z
  .object({
    user: UserRecord,
    username: z.string(),
    temp_password: z.string().optional().describe('only when no password was given'),
  })
  .meta({ id: 'CreateUserReply', description: 'The created user.' });
export type CreateUserReply = z.infer<typeof CreateUserReply>;

export const ActivationEmailSent = z
  .object({
    email: z.string().describe('where the email went'),
    expires_at: unixTime().describe('when its set-password link stops working (unix seconds)'),
  })
  .meta({ id: 'ActivationEmailSent', description: 'The activation / set-password email was accepted for delivery.' });
export type ActivationEmailSent = z.infer<typeof ActivationEmailSent>;

/** What the set-password page shows about a live link (bus only). */
export interface SetPasswordLinkInfo {
  username: string;
  name: string;
  company_name: string;
  expires_at: number;
}

export const UserCount = z
  .object({ user_count: z.int().min(0) })
  .meta({ id: 'UserCount', description: 'How many users match.' });
export type UserCount = z.infer<typeof UserCount>;

export const BrandShareEntry = z
  .object({ username: z.string(), name: z.string(), email: z.string(), shares: z.array(UserShareRoom) })
  .meta({ id: 'BrandShareEntry', description: 'A user of the brand with their share rooms.' });
export type BrandShareEntry = z.infer<typeof BrandShareEntry>;

export const ClientRevisionCount = z
  .object({ revision: z.int(), count: z.int().min(1) })
  .meta({ id: 'ClientRevisionCount', description: 'How many devices run one client revision.' });
export type ClientRevisionCount = z.infer<typeof ClientRevisionCount>;

// ---- operator (admin CLI): reservations and unfinished multi-step writes ------------------------

/**
 * live: held by an existing user, partner or group of that name; in_flight: its owner is an
 * unfinished multi-step write (or what one is creating or changing), which finishes or undoes it;
 * stuck: neither, so nothing will ever release it on its own.
 */
export type ReservationStatus = 'live' | 'in_flight' | 'stuck';

export interface ReservationRecord {
  kind: ReservationKind;
  /** the name as the reservation keys it (trimmed, lower-cased) */
  name: string;
  /** groupname only: the partner the group name belongs to (id, and username if it exists) */
  partner_id?: string;
  partner?: string;
  stream: string;
  /** what reserved it: a user or partner id, or a multi-step write's id */
  owner: string;
  /** ISO 8601 */
  reserved_at: string;
  status: ReservationStatus;
  /** who holds it, which write is in flight, or that nothing does */
  reason: string;
}

export interface ReservationPage {
  reservations: ReservationRecord[];
  /** pass as `after` for the next page; null when the end was reached */
  next: string | null;
}

export interface ReleasedReservation {
  kind: ReservationKind;
  name: string;
  partner_id?: string;
  owner: string;
  /** what it was when released (live or in_flight only with force) */
  status: ReservationStatus;
  forced: boolean;
}

export interface PendingWrite {
  id: string;
  /** CreateUser, ChangeUser, CreateGroup, ... */
  kind: string;
  /** ISO 8601 */
  started_at: string;
  age_seconds: number;
  /** what recovery needs to finish or undo it (never a secret) */
  data: object;
  /** older than the grace period: the next recovery settles it */
  due: boolean;
}

export interface PendingWritesPage {
  grace_seconds: number;
  pending: PendingWrite[];
  /** more than `limit` are pending */
  more: boolean;
}

export interface RecoveredWrite {
  id: string;
  kind: string;
}

export interface RecoverWritesReport {
  grace_seconds: number;
  /** the commit point had happened: the rest was done */
  completed: RecoveredWrite[];
  /** it had not: the steps taken were undone */
  compensated: RecoveredWrite[];
  /** left pending; the next recovery tries again */
  failed: (RecoveredWrite & { error: string })[];
}
