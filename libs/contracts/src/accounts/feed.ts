/**
 * The partner's event feed: the public vocabulary of what happened in a partner's brand, as
 * `GET /events/` pages it, as Server-Sent Events stream it and as webhooks deliver it. Each type's
 * payload is a strict zod schema (the OpenAPI document is generated from it, and the mapping from
 * internal events is tested against it), so a payload carries exactly the fields declared here and
 * never an internal one (password hashes, card data, tokens, internal ids).
 *
 * Positions are increasing integers, stable for good (they derive from the event store's global
 * positions), with gaps; a partner resumes after the last one it saw.
 */
import { z } from 'zod';
import type { PartnerScoped } from '../bus.js';
import type { Event } from '../event.js';
import { formInt } from '../validation.js';

/** Page size of `GET /events/` (and of each SSE fetch). */
export const FEED_PAGE_DEFAULT = 100;
export const FEED_PAGE_MAX = 1000;
/** Quota thresholds (percent of a user's storage) whose crossing, either way, is an event. */
export const QUOTA_THRESHOLDS = [80, 90, 100] as const;
/** The longest one `accounts.feed.read` may wait for a new entry (the SSE stream's long poll). */
export const FEED_WAIT_MAX_MS = 30_000;

const username = z.string().describe('the user (their username)');
const groupId = z.int().min(1).describe('the group');
const bytes = (description: string) =>
  z.number().min(0).refine(Number.isInteger).meta({ type: 'integer', description });
const device = z.string().describe("the device's name");
const roomKey = z.string().describe('the share room');

/** Every public event type with its payload: the one list the feed, the webhooks and the docs use. */
export const PUBLIC_EVENT_PAYLOADS = {
  'user.created': z.strictObject({
    username,
    name: z.string(),
    email: z.string(),
    plan_id: z.int(),
    group_id: z.int().nullable(),
    bonus_bytes: bytes('extra bytes on top of the plan'),
    avatar_id: z.int(),
    creation_time: z.int().describe('unix seconds'),
  }),
  'user.changed': z.strictObject({
    username,
    name: z.string().optional(),
    email: z.string().optional(),
    bonus_bytes: bytes('extra bytes on top of the plan').optional(),
    purgehold_active: z.boolean().optional(),
  }),
  'user.plan_changed': z.strictObject({ username, plan_id: z.int() }),
  'user.group_changed': z.strictObject({ username, group_id: z.int().nullable() }),
  'user.enabled': z.strictObject({ username }),
  'user.disabled': z.strictObject({ username }),
  'user.deleted': z.strictObject({ username }),
  'user.password_changed': z.strictObject({ username }),
  'group.created': z.strictObject({
    group_id: groupId,
    name: z.string(),
    plan_id: z.int(),
    webapi_enable: z.boolean(),
    check_domain: z.boolean(),
    device_policy: z.int().nullable(),
  }),
  'group.changed': z.strictObject({
    group_id: groupId,
    name: z.string().optional(),
    webapi_enable: z.boolean().optional(),
    check_domain: z.boolean().optional(),
    device_policy: z.int().nullable().optional(),
  }),
  'group.plan_changed': z.strictObject({ group_id: groupId, plan_id: z.int() }),
  'group.deleted': z.strictObject({
    group_id: groupId,
    move_to: z.int().nullable().describe('the group its members moved to'),
  }),
  'quota.threshold_crossed': z.strictObject({
    username,
    threshold: z
      .union(QUOTA_THRESHOLDS.map((t) => z.literal(t)))
      .describe(
        "percent of the user's storage; a jump over several thresholds reports each, one event per threshold, in the order crossed",
      ),
    direction: z.enum(['up', 'down']),
    bytes_stored: bytes('what the user stores now'),
    storage_bytes: bytes("the user's storage (plan + bonus)"),
  }),
  'device.registered': z.strictObject({ username, device, sysplatform: z.string(), client_revision: z.int() }),
  'device.removed': z.strictObject({ username, device }),
  'device.backup_activity': z.strictObject({
    username,
    device,
    hour_start: z.iso
      .datetime()
      .describe('the hour summarised (UTC); activity recorded after its summary counts in a later hour'),
    files_committed: z.int().min(0).describe('file versions backed up'),
    bytes_committed: bytes('their bytes'),
    files_deleted: z.int().min(0),
    folders_deleted: z.int().min(0),
    backups_completed: z.int().min(0).describe('backup runs the client reported complete'),
  }),
  'share_room.created': z.strictObject({ username, room_key: roomKey, name: z.string(), description: z.string() }),
  'share_room.changed': z.strictObject({
    username,
    room_key: roomKey,
    name: z.string().optional(),
    description: z.string().optional(),
    password_required: z.boolean().optional().describe('present when a password was set (true) or removed (false)'),
  }),
  'share_room.enabled': z.strictObject({ username, room_key: roomKey }),
  'share_room.disabled': z.strictObject({ username, room_key: roomKey }),
  'share_room.deleted': z.strictObject({ username, room_key: roomKey }),
  'share.accessed': z.strictObject({
    username,
    room_key: roomKey,
    downloads: z.int().min(0).describe("files and zips fetched from the room since the room's previous share.accessed"),
    last_access: z.int().min(0).describe('unix seconds of the latest visit counted'),
  }),
  'partner.password_changed': z
    .strictObject({})
    .describe('the API password changed (the password itself is never sent)'),
} as const;

export type PublicEventType = keyof typeof PUBLIC_EVENT_PAYLOADS;
export const PUBLIC_EVENT_TYPES = Object.keys(PUBLIC_EVENT_PAYLOADS) as PublicEventType[];
export type PublicEventData<T extends PublicEventType = PublicEventType> = z.output<(typeof PUBLIC_EVENT_PAYLOADS)[T]>;

const DESCRIPTIONS: Record<PublicEventType, string> = {
  'user.created': 'A user was created.',
  'user.changed': "A user's name, email, bonus or purge hold changed (only the changed fields are present).",
  'user.plan_changed': "A user's plan changed (directly, or with their group's).",
  'user.group_changed': 'A user moved to another group (null: none).',
  'user.enabled': 'A user was enabled.',
  'user.disabled': 'A user was disabled.',
  'user.deleted': 'A user was deleted.',
  'user.password_changed': "A user's password changed (the password itself is never sent).",
  'group.created': 'A group was created.',
  'group.changed': "A group's name or policies changed (only the changed fields are present).",
  'group.plan_changed': "A group's plan changed (each member's user.plan_changed follows).",
  'group.deleted': 'A group was deleted.',
  'quota.threshold_crossed': "A user's stored bytes crossed 80, 90 or 100 percent of their storage, up or down.",
  'device.registered': 'A backup client registered a device.',
  'device.removed': 'A device was removed.',
  'device.backup_activity': "One hour of a device's backup activity, summarised once the hour is over.",
  'share_room.created': 'A user created a share room.',
  'share_room.changed': "A share room's name or description changed, or its password was set or removed.",
  'share_room.enabled': 'A share room was enabled.',
  'share_room.disabled': 'A share room was disabled.',
  'share_room.deleted': 'A share room was deleted.',
  'share.accessed':
    'A share room was visited: at most one event per room per hour, with the downloads since the previous one.',
  'partner.password_changed': "The partner's API password changed.",
};

/** `user.plan_changed` -> `UserPlanChangedEvent` (the OpenAPI component name). */
const componentName = (type: string) =>
  `${type
    .split(/[._]/)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('')}Event`;

const envelope = <T extends PublicEventType>(type: T) =>
  z
    .strictObject({
      id: z.string().describe('unique and stable: receivers drop a duplicate by it'),
      position: z.int().min(1).describe('where the event is in the feed: increasing, with gaps; resume after it'),
      type: z.literal(type),
      time: z.iso.datetime().describe('when it happened (UTC)'),
      data: PUBLIC_EVENT_PAYLOADS[type],
    })
    .meta({ id: componentName(type), description: DESCRIPTIONS[type] });

const ENVELOPES = PUBLIC_EVENT_TYPES.map(envelope);

export const FeedEvent = z
  // as unknown as: zod wants a non-empty tuple; ENVELOPES is mapped from the (non-empty) list of public event types
  .discriminatedUnion('type', ENVELOPES as unknown as [ReturnType<typeof envelope>, ...ReturnType<typeof envelope>[]])
  .meta({
    id: 'FeedEvent',
    description:
      "One event of the partner's feed, as `GET /events/` lists it, SSE streams it and a webhook delivers it; `type` says which payload `data` holds.",
  });

export interface PublicEvent<T extends PublicEventType = PublicEventType> {
  id: string;
  position: number;
  type: T;
  /** ISO 8601, UTC */
  time: string;
  data: PublicEventData<T>;
}

export const FeedPage = z
  .object({
    events: z.array(FeedEvent),
    next_after: z
      .int()
      .min(0)
      .describe('pass as `after` for the next page (the last position listed, or `after` when none was)'),
    has_more: z.boolean().describe('true when more events follow at once'),
  })
  .meta({ id: 'FeedPage', description: 'A page of the feed, oldest first.' });
export type FeedPage = { events: PublicEvent[]; next_after: number; has_more: boolean };

export const FeedQuery = z.object({
  after: formInt({ min: 0 })
    .optional()
    .describe('list events after this position (0, the default: from the beginning)'),
  limit: formInt({ min: 1, max: FEED_PAGE_MAX })
    .optional()
    .describe(`at most this many (default ${FEED_PAGE_DEFAULT}, at most ${FEED_PAGE_MAX})`),
});

export interface ReadFeedRequest extends PartnerScoped {
  after: number;
  limit: number;
  /** wait up to this long for an event when there is none yet (the SSE stream's long poll) */
  waitMs?: number;
  /**
   * The stamp of the credentials the SSE stream was opened with (`AuthenticatedPartner.stamp`):
   * once the partner's password has changed, the read is refused with 401 and nothing more is
   * sent, whatever was written since.
   */
  stamp?: string;
}

// ---- the hour summaries' markers (stream backupactivity-<deviceId>-<hour start ms>) -------------

/**
 * The hour of a device's backup activity is over: the feed summarises what it counted for that
 * hour (activity the feed sees after this marker counts in a later hour). Appended once per device
 * and hour (expected revision: no stream), by whichever accounts replica gets there first.
 */
export type BackupActivityHourClosed = Event<
  'BackupActivityHourClosed',
  { deviceId: string; hour: number; at: number }
>;
