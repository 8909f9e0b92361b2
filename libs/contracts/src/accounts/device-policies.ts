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
  /** a child: the parent's values under which it applies (a console shows it only then) */
  shown_when?: PreferenceValue[];
  /** preferences that refine this one (the schedule's time, a limit's rate); set independently */
  children: DevicePreference[];
}

/** Top-level preferences grouped as a console shows them. */
export interface PreferenceGroup {
  category: string;
  preferences: DevicePreference[];
}

const KBPS_MAX = 10_000_000;
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
/** A file extension without its dot: what `excluded_file_types` holds. */
export const FILE_TYPE_PATTERN = /^[a-z0-9_+-]{1,32}$/;
export const EXCLUDED_FILE_TYPES_MAX = 200;
/** HH:MM, 24-hour, device local time. */
export const TIME_OF_DAY_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$/;

const pref = (
  p: Omit<DevicePreference, 'allowed_values' | 'children'> &
    Partial<Pick<DevicePreference, 'allowed_values' | 'children'>>,
): DevicePreference => ({
  allowed_values: null,
  children: [],
  ...p,
});

/**
 * What a policy may set, for a backup client, in the groups a console shows. Names are flat (a
 * child is set like any other preference); children are grouped under the preference they refine,
 * with the parent values under which they apply.
 */
export const DEVICE_PREFERENCE_GROUPS: PreferenceGroup[] = [
  {
    category: 'Backup schedule',
    preferences: [
      pref({
        name: 'backup_schedule',
        type: 'choice',
        description:
          'when the client backs up: continuously as files change (automatic), at an interval, at a time of day or week, or only when asked (manual)',
        default: 'automatic',
        allowed_values: [
          'automatic',
          'every_15_minutes',
          'hourly',
          'every_4_hours',
          'every_12_hours',
          'daily',
          'weekly',
          'manual',
        ],
        children: [
          pref({
            name: 'backup_time',
            type: 'time',
            description: 'time of day (HH:MM, 24-hour, device local time) of daily and weekly backups',
            default: '02:00',
            pattern: TIME_OF_DAY_PATTERN.source,
            shown_when: ['daily', 'weekly'],
          }),
          pref({
            name: 'backup_weekday',
            type: 'choice',
            description: 'day of weekly backups',
            default: 'monday',
            allowed_values: WEEKDAYS,
            shown_when: ['weekly'],
          }),
        ],
      }),
    ],
  },
  {
    category: 'Bandwidth',
    preferences: [
      pref({
        name: 'upload_limit_enabled',
        type: 'boolean',
        description: 'cap the upload bandwidth',
        default: false,
        children: [
          pref({
            name: 'upload_limit_kbps',
            type: 'integer',
            description: 'upload cap in kilobits per second',
            default: 1024,
            min: 8,
            max: KBPS_MAX,
            shown_when: [true],
          }),
        ],
      }),
      pref({
        name: 'download_limit_enabled',
        type: 'boolean',
        description: 'cap the download (restore) bandwidth',
        default: false,
        children: [
          pref({
            name: 'download_limit_kbps',
            type: 'integer',
            description: 'download cap in kilobits per second',
            default: 1024,
            min: 8,
            max: KBPS_MAX,
            shown_when: [true],
          }),
        ],
      }),
      pref({
        name: 'lan_sync',
        type: 'boolean',
        description: "exchange blocks with the user's other devices over the local network",
        default: true,
      }),
    ],
  },
  {
    category: 'Files',
    preferences: [
      pref({
        name: 'excluded_file_types',
        type: 'string_list',
        description:
          'file extensions never backed up, without the dot (a leading dot is removed; compared case-insensitively, stored lower-case)',
        default: [],
        max_items: EXCLUDED_FILE_TYPES_MAX,
        pattern: FILE_TYPE_PATTERN.source,
      }),
      pref({
        name: 'max_file_size_enabled',
        type: 'boolean',
        description: 'skip files larger than a size',
        default: false,
        children: [
          pref({
            name: 'max_file_size_mb',
            type: 'integer',
            description: 'largest file backed up, in megabytes (10^6 bytes)',
            default: 4096,
            min: 1,
            max: 10_000_000,
            shown_when: [true],
          }),
        ],
      }),
      pref({
        name: 'version_retention_days',
        type: 'integer',
        description: 'days the client keeps old versions and deleted files available; 0 keeps them forever',
        default: 0,
        min: 0,
        max: 36_500,
      }),
    ],
  },
  {
    category: 'Power and network',
    preferences: [
      pref({
        name: 'backup_on_battery',
        type: 'boolean',
        description: 'back up while the device runs on battery',
        default: true,
      }),
      pref({
        name: 'backup_on_metered_network',
        type: 'boolean',
        description: 'back up over a metered (mobile) connection',
        default: false,
      }),
    ],
  },
  {
    category: 'Device',
    preferences: [
      pref({
        name: 'user_can_override',
        type: 'boolean',
        description: 'users may change these preferences on their device; false locks them to the policy',
        default: true,
      }),
    ],
  },
];

/** Every top-level preference, children nested. */
export const DEVICE_PREFERENCES: DevicePreference[] = DEVICE_PREFERENCE_GROUPS.flatMap((g) => g.preferences);

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
        .array(
          z
            .string()
            .trim()
            .toLowerCase()
            .transform((s) => s.replace(/^\./, ''))
            .pipe(z.string().regex(FILE_TYPE_PATTERN)),
        )
        .max(p.max_items ?? EXCLUDED_FILE_TYPES_MAX)
        .transform((items) => [...new Set(items)]);
  }
}

/**
 * What the management console posts for a preference its policy does not set: `null` or `""` (an
 * empty form field), `--inherit--` (take the parent's value) or `--unset--` (user controlled). All
 * mean "not set by this policy": the value comes from the parent policy or the catalogue default.
 */
export const CONSOLE_NOT_SET = ['', '--inherit--', '--unset--'] as const;
const notSet = z.union([z.null(), z.enum(CONSOLE_NOT_SET)]).transform(() => undefined);

export type PolicyValues = Record<string, PreferenceValue>;
/**
 * A policy's own values: any preferences of the catalogue, each valid for its type; no others.
 * A console's "not set" forms are dropped (CONSOLE_NOT_SET).
 * (Typed as a plain record: the keys are only known at run time; absent ones are left out.)
 */
// as unknown as (below): the object is built from the preference table at run time, so zod infers a loose record; PolicyValues is what it parses to
export const PolicyValues = z
  .strictObject(
    Object.fromEntries(
      [...PREFERENCES_BY_NAME.values()].map((p) => [p.name, z.union([notSet, valueSchema(p)]).optional()]),
    ),
  )
  .transform((values) => Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)))
  .meta({
    id: 'PolicyValues',
    description:
      'Preference values by name (see GET /devicepreferences); unknown names are refused. null, "", "--inherit--" and "--unset--" (what the management console posts) leave a preference unset.',
    // as unknown as: see above (the schema is built at run time; PolicyValues is what it parses to)
  }) as unknown as z.ZodType<PolicyValues>;

// ---- the catalogue as the management console reads it ------------------------------------------

/** The field types the console's policy form knows (netkes `_field_type`). */
export type ConsoleFieldType = 'boolean' | 'integer' | 'string' | 'string[]';
const CONSOLE_TYPES: Record<PreferenceType, ConsoleFieldType> = {
  boolean: 'boolean',
  integer: 'integer',
  choice: 'string',
  time: 'string',
  string_list: 'string[]',
};

/**
 * One preference as the console's `_parse_preferences` walks it: `name`, `description`, `type`,
 * `choices`, `conditional_parent_value` and `fields` (its children). What Burrow adds (`default`,
 * bounds, `pattern`, `format`) the console ignores.
 */
export interface PreferenceField {
  name: string;
  description: string;
  type: ConsoleFieldType;
  choices: string[] | null;
  conditional_parent_value: PreferenceValue | PreferenceValue[] | null;
  /** Burrow's own type name (`choice`, `time`, ...), finer than the console's */
  format: PreferenceType;
  default: PreferenceValue;
  min?: number;
  max?: number;
  max_items?: number;
  pattern?: string;
  fields: PreferenceField[];
}

/** A top-level entry of `GET /devicepreferences`: a category (no name) holding its preferences. */
export interface PreferenceCategory {
  category: string;
  fields: PreferenceField[];
}

function preferenceField(p: DevicePreference): PreferenceField {
  const shownWhen = p.shown_when ?? null;
  return {
    name: p.name,
    description: p.description,
    type: CONSOLE_TYPES[p.type],
    choices: p.allowed_values,
    // one value as itself (the console compares it to the parent's), several as a list (it tests membership)
    conditional_parent_value: shownWhen && shownWhen.length === 1 ? shownWhen[0] : shownWhen,
    format: p.type,
    default: p.default,
    ...(p.min === undefined ? {} : { min: p.min }),
    ...(p.max === undefined ? {} : { max: p.max }),
    ...(p.max_items === undefined ? {} : { max_items: p.max_items }),
    ...(p.pattern === undefined ? {} : { pattern: p.pattern }),
    fields: p.children.map(preferenceField),
  };
}

/** `GET /devicepreferences`: the catalogue by category, in the shape the console reads. */
export const DEVICE_PREFERENCE_CATEGORIES: PreferenceCategory[] = DEVICE_PREFERENCE_GROUPS.map((g) => ({
  category: g.category,
  fields: g.preferences.map(preferenceField),
}));

// ---- records --------------------------------------------------------------------------------------

const anyValue = z.union([z.boolean(), z.number(), z.string(), z.array(z.string())]);

export const PreferenceFieldRecord: z.ZodType<PreferenceField> = z
  .object({
    name: z.string().describe('set in a policy by this name (children too: names are flat)'),
    description: z.string(),
    type: z
      .enum(['boolean', 'integer', 'string', 'string[]'])
      .describe("the management console's field type: a string with choices is a choice"),
    choices: z
      .array(z.string())
      .nullable()
      .describe('the values allowed; null when any value of the type (and format) is'),
    conditional_parent_value: z
      .union([anyValue, z.array(anyValue)])
      .nullable()
      .describe('a child: the value (or one of the values) its parent must have for it to apply; null at the top'),
    format: z.enum(PREFERENCE_TYPES).describe("Burrow's type: boolean, integer, choice, time (HH:MM) or string_list"),
    default: anyValue,
    min: z.int().optional().describe('integer: the smallest value'),
    max: z.int().optional().describe('integer: the largest value'),
    max_items: z.int().optional().describe('string_list: the most items'),
    pattern: z.string().optional().describe('time and string_list: the pattern a value (an item) matches'),
    get fields(): z.ZodArray<z.ZodType<PreferenceField>> {
      return z.array(PreferenceFieldRecord);
    },
  })
  .meta({
    id: 'PreferenceField',
    description: 'A preference a device policy may set, with the preferences that refine it (`fields`).',
  });

export const PreferenceCategoryRecord = z
  .object({ category: z.string(), fields: z.array(PreferenceFieldRecord) })
  .meta({
    id: 'PreferenceCategory',
    description: 'A group of preferences, as the management console shows them (no name: not itself a preference).',
  });

export const DevicePolicy = z
  .object({
    id: z.int().min(1),
    name: z.string(),
    inherits_from: z
      .int()
      .min(1)
      .nullable()
      .describe('the policy whose values this one starts from; null: the catalogue defaults'),
    policy: z
      .record(z.string(), z.union([z.boolean(), z.number(), z.string(), z.array(z.string())]))
      .describe("this policy's own values"),
    effective_policy: z
      .record(z.string(), z.union([z.boolean(), z.number(), z.string(), z.array(z.string())]))
      .describe(
        'every preference as a device gets it: the defaults, overridden by each ancestor from the root down, then by this policy',
      ),
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
  .object({
    ...policyFields,
    inherits_from: policyFields.inherits_from.optional(),
    policy: policyFields.policy.optional(),
  })
  .meta({
    id: 'CreateDevicePolicyBody',
    description: 'A new device policy; inherits_from defaults to null and policy to {}.',
  });
export type CreateDevicePolicyBody = z.output<typeof CreateDevicePolicyBody>;

export const UpdateDevicePolicyBody = z.object(policyFields).partial().meta({
  id: 'UpdateDevicePolicyBody',
  description: 'The fields to change; each is optional. A policy given replaces the whole set of own values.',
});
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
export type DevicePolicyInheritanceChanged = Event<
  'DevicePolicyInheritanceChanged',
  { policyId: number; inherits_from: number | null; at: number }
>;
/** The policy's own values, replaced whole. */
export type DevicePolicyValuesSet = Event<
  'DevicePolicyValuesSet',
  { policyId: number; policy: PolicyValues; at: number }
>;
export type DevicePolicyDeleted = Event<'DevicePolicyDeleted', { policyId: number; at: number }>;
export type DevicePolicyEvent =
  | DevicePolicyCreated
  | DevicePolicyRenamed
  | DevicePolicyInheritanceChanged
  | DevicePolicyValuesSet
  | DevicePolicyDeleted;
