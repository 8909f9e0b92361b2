/**
 * Device policies (CLIENT-FACTS "What the management appliance also calls"): named sets of backup
 * client preferences a partner assigns to groups, each optionally inheriting from another policy.
 * Declared once here: the preference catalogue (`GET /devicepreferences` serves it, and the value
 * schemas are built from it), the records, the request bodies and the events.
 */
import { z } from 'zod';
import type { PartnerScoped } from '../bus.js';
import type { Event } from '../event.js';
import { formBool, formInt, text } from '../validation.js';
import { NAME_MAX_LENGTH } from './limits.js';

/** The most device policies one partner may have (the list is never unbounded). */
export const MAX_DEVICE_POLICIES = 1000;

// ---- the preference catalogue -------------------------------------------------------------------

export const PREFERENCE_TYPES = ['boolean', 'integer', 'choice', 'time', 'string_list'] as const;
export type PreferenceType = (typeof PREFERENCE_TYPES)[number];
export type PreferenceValue = boolean | number | string | string[];

export interface DevicePreference {
  name: string;
  type: PreferenceType;
  description: string;
  default: PreferenceValue;
  /** choice: the values allowed; null for every other type */
  allowed_values: string[] | null;
  /** integer: the inclusive range */
  min?: number;
  max?: number;
  /** string_list: the most items, and the pattern each item must match */
  max_items?: number;
  pattern?: string;
  /** preferences that refine this one (the schedule's time, a limit's rate); set independently */
  children: DevicePreference[];
}

const KBPS_MAX = 10_000_000;
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
/** A file extension without its dot: what `excluded_file_types` holds. */
export const FILE_TYPE_PATTERN = /^[a-z0-9_+-]{1,32}$/;
export const EXCLUDED_FILE_TYPES_MAX = 200;
/** HH:MM, 24-hour, device local time. */
export const TIME_OF_DAY_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$/;

const pref = (p: Omit<DevicePreference, 'allowed_values' | 'children'> & Partial<Pick<DevicePreference, 'allowed_values' | 'children'>>): DevicePreference => ({
  allowed_values: null,
  children: [],
  ...p,
});

/**
 * What a policy may set, for a backup client. Names are flat (a child is set like any other
 * preference); children are grouped under the preference they refine, which is how a console
 * shows them.
 */
export const DEVICE_PREFERENCES: DevicePreference[] = [
  pref({
    name: 'backup_schedule',
    type: 'choice',
    description: 'when the client backs up: continuously as files change (automatic), at an interval, at a time of day or week, or only when asked (manual)',
    default: 'automatic',
    allowed_values: ['automatic', 'every_15_minutes', 'hourly', 'every_4_hours', 'every_12_hours', 'daily', 'weekly', 'manual'],
    children: [
      pref({ name: 'backup_time', type: 'time', description: 'time of day (HH:MM, 24-hour, device local time) of daily and weekly backups', default: '02:00', pattern: TIME_OF_DAY_PATTERN.source }),
      pref({ name: 'backup_weekday', type: 'choice', description: 'day of weekly backups', default: 'monday', allowed_values: WEEKDAYS }),
    ],
  }),
  pref({
    name: 'upload_limit_enabled',
    type: 'boolean',
    description: 'cap the upload bandwidth',
    default: false,
    children: [pref({ name: 'upload_limit_kbps', type: 'integer', description: 'upload cap in kilobits per second', default: 1024, min: 8, max: KBPS_MAX })],
  }),
  pref({
    name: 'download_limit_enabled',
    type: 'boolean',
    description: 'cap the download (restore) bandwidth',
    default: false,
    children: [pref({ name: 'download_limit_kbps', type: 'integer', description: 'download cap in kilobits per second', default: 1024, min: 8, max: KBPS_MAX })],
  }),
  pref({ name: 'lan_sync', type: 'boolean', description: "exchange blocks with the user's other devices over the local network", default: true }),
  pref({
    name: 'excluded_file_types',
    type: 'string_list',
    description: 'file extensions never backed up, without the dot (a leading dot is removed; compared case-insensitively, stored lower-case)',
    default: [],
    max_items: EXCLUDED_FILE_TYPES_MAX,
    pattern: FILE_TYPE_PATTERN.source,
  }),
  pref({
    name: 'max_file_size_enabled',
    type: 'boolean',
    description: 'skip files larger than a size',
    default: false,
    children: [pref({ name: 'max_file_size_mb', type: 'integer', description: 'largest file backed up, in megabytes (10^6 bytes)', default: 4096, min: 1, max: 10_000_000 })],
  }),
  pref({
    name: 'version_retention_days',
    type: 'integer',
    description: 'days the client keeps old versions and deleted files available; 0 keeps them forever',
    default: 0,
    min: 0,
    max: 36_500,
  }),
  pref({ name: 'backup_on_battery', type: 'boolean', description: 'back up while the device runs on battery', default: true }),
  pref({ name: 'backup_on_metered_network', type: 'boolean', description: 'back up over a metered (mobile) connection', default: false }),
  pref({ name: 'user_can_override', type: 'boolean', description: 'users may change these preferences on their device; false locks them to the policy', default: true }),
];

/** Every preference, children included, by name. */
export const PREFERENCES_BY_NAME: ReadonlyMap<string, DevicePreference> = new Map(
  DEVICE_PREFERENCES.flatMap(function flat(p): [string, DevicePreference][] {
    return [[p.name, p], ...p.children.flatMap(flat)];
  }),
);

/** Every preference at its default: the base of every effective policy. */
export const PREFERENCE_DEFAULTS: Readonly<Record<string, PreferenceValue>> = Object.fromEntries(
  [...PREFERENCES_BY_NAME.values()].map((p) => [p.name, p.default]),
);

/** The value schema of one preference (lenient like every interface-A field: "3", "true"). */
function valueSchema(p: DevicePreference): z.ZodType<PreferenceValue> {
  switch (p.type) {
    case 'boolean':
      return formBool();
    case 'integer':
      return formInt({ min: p.min, max: p.max });
    case 'choice':
      return z.enum(p.allowed_values as [string, ...string[]]);
    case 'time':
      return z.string().trim().regex(TIME_OF_DAY_PATTERN);
    case 'string_list':
      return z
        .array(z.string().trim().toLowerCase().transform((s) => s.replace(/^\./, '')).pipe(z.string().regex(FILE_TYPE_PATTERN)))
        .max(p.max_items ?? EXCLUDED_FILE_TYPES_MAX)
        .transform((items) => [...new Set(items)]);
  }
}

export type PolicyValues = Record<string, PreferenceValue>;
/**
 * A policy's own values: any preferences of the catalogue, each valid for its type; no others.
 * (Typed as a plain record: the keys are only known at run time; absent ones are left out.)
 */
export const PolicyValues = z
  .strictObject(Object.fromEntries([...PREFERENCES_BY_NAME.values()].map((p) => [p.name, valueSchema(p).optional()])))
  .meta({ id: 'PolicyValues', description: 'Preference values by name (see GET /devicepreferences); unknown names are refused.' }) as unknown as z.ZodType<PolicyValues>;

// ---- records --------------------------------------------------------------------------------------

export const DevicePreferenceRecord: z.ZodType<DevicePreference> = z
  .object({
    name: z.string(),
    type: z.enum(PREFERENCE_TYPES),
    description: z.string(),
    default: z.union([z.boolean(), z.number(), z.string(), z.array(z.string())]),
    allowed_values: z.array(z.string()).nullable().describe('choice: the values allowed; null for other types'),
    min: z.int().optional().describe('integer: the smallest value'),
    max: z.int().optional().describe('integer: the largest value'),
    max_items: z.int().optional().describe('string_list: the most items'),
    pattern: z.string().optional().describe('time and string_list: the pattern a value (an item) matches'),
    get children(): z.ZodArray<z.ZodType<DevicePreference>> {
      return z.array(DevicePreferenceRecord);
    },
  })
  .meta({ id: 'DevicePreference', description: 'A preference a device policy may set, with the preferences that refine it.' });

export const DevicePolicy = z
  .object({
    id: z.int().min(1),
    name: z.string(),
    inherits_from: z.int().min(1).nullable().describe('the policy whose values this one starts from; null: the catalogue defaults'),
    policy: z.record(z.string(), z.union([z.boolean(), z.number(), z.string(), z.array(z.string())])).describe("this policy's own values"),
    effective_policy: z
      .record(z.string(), z.union([z.boolean(), z.number(), z.string(), z.array(z.string())]))
      .describe('every preference as a device gets it: the defaults, overridden by each ancestor from the root down, then by this policy'),
  })
  .meta({ id: 'DevicePolicy', description: 'A named set of device preferences.' });
export type DevicePolicy = z.infer<typeof DevicePolicy>;

// ---- requests -------------------------------------------------------------------------------------

const policyFields = {
  name: text(NAME_MAX_LENGTH).describe(`unique per partner (case-insensitive), at most ${NAME_MAX_LENGTH} characters`),
  inherits_from: formInt({ min: 1 }).nullable().describe('a policy id of this partner, or null'),
  policy: PolicyValues,
};

export const CreateDevicePolicyBody = z
  .object({ ...policyFields, inherits_from: policyFields.inherits_from.optional(), policy: policyFields.policy.optional() })
  .meta({ id: 'CreateDevicePolicyBody', description: 'A new device policy; inherits_from defaults to null and policy to {}.' });
export type CreateDevicePolicyBody = z.output<typeof CreateDevicePolicyBody>;

export const UpdateDevicePolicyBody = z
  .object(policyFields)
  .partial()
  .meta({ id: 'UpdateDevicePolicyBody', description: 'The fields to change; each is optional. A policy given replaces the whole set of own values.' });
export type UpdateDevicePolicyBody = z.output<typeof UpdateDevicePolicyBody>;

/** `POST /devicepolicies/<id>?action=delete` deletes, like DELETE. */
export const DevicePolicyActionQuery = z.object({ action: z.enum(['delete']).optional() });

export type CreateDevicePolicyRequest = PartnerScoped & CreateDevicePolicyBody;

export interface DevicePolicyRef extends PartnerScoped {
  id: number;
}

export interface UpdateDevicePolicyRequest extends DevicePolicyRef {
  changes: UpdateDevicePolicyBody;
}

// ---- events (stream devicepolicies-<partnerId>: all of one partner's policies) ---------------------

export type DevicePolicyCreated = Event<
  'DevicePolicyCreated',
  { policyId: number; partnerId: string; name: string; inherits_from: number | null; policy: PolicyValues; at: number }
>;
export type DevicePolicyRenamed = Event<'DevicePolicyRenamed', { policyId: number; name: string; at: number }>;
export type DevicePolicyInheritanceChanged = Event<'DevicePolicyInheritanceChanged', { policyId: number; inherits_from: number | null; at: number }>;
/** The policy's own values, replaced whole. */
export type DevicePolicyValuesSet = Event<'DevicePolicyValuesSet', { policyId: number; policy: PolicyValues; at: number }>;
export type DevicePolicyDeleted = Event<'DevicePolicyDeleted', { policyId: number; at: number }>;
export type DevicePolicyEvent = DevicePolicyCreated | DevicePolicyRenamed | DevicePolicyInheritanceChanged | DevicePolicyValuesSet | DevicePolicyDeleted;
