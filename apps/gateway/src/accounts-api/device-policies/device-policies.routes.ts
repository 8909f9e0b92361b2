/** The routes of device policies and the preference catalogue: path, method, the schemas the handlers parse with, and their OpenAPI prose and examples. */
import {
  CreateDevicePolicyBody,
  DEVICE_PREFERENCE_CATEGORIES,
  DevicePolicy,
  DevicePolicyActionQuery,
  MAX_DEVICE_POLICIES,
  PREFERENCE_DEFAULTS,
  PreferenceCategoryRecord,
  UpdateDevicePolicyBody,
} from '@burrow/contracts';
import { route } from '../../http/route.js';
import { empty, err, error, ex, listOf, pathParameter, reply } from '../../openapi/builders.js';
import { AUTHENTICATED, notAnObject, WITH_BODY } from '../../openapi/common.js';

const base = {
  id: 1,
  name: 'Office',
  inherits_from: null,
  policy: { backup_schedule: 'daily', backup_time: '01:30', lan_sync: true },
};
const laptops = {
  id: 2,
  name: 'Laptops',
  inherits_from: 1,
  policy: { backup_on_battery: false, upload_limit_enabled: true, upload_limit_kbps: 2048 },
};
const exampleBase: DevicePolicy = { ...base, effective_policy: { ...PREFERENCE_DEFAULTS, ...base.policy } };
const exampleLaptops: DevicePolicy = {
  ...laptops,
  effective_policy: { ...PREFERENCE_DEFAULTS, ...base.policy, ...laptops.policy },
};

const idParam = pathParameter(
  'id',
  'the policy id (a positive integer; anything else names no policy)',
  { type: 'string', pattern: '^[0-9]+$' },
  '2',
);
const noPolicy = error('No such device policy for this partner (or the id is not a positive integer).', {
  noPolicy: ex('unknown policy', err('no device policy 99')),
});
const badValues = error(
  'Invalid or missing parameters, named in `fields`; a preference is named `policy.<preference>` (an unknown preference, or a value its definition refuses).',
  {
    preference: ex(
      'a bad value and an unknown preference',
      err('invalid or missing parameters: policy.upload_limit_kbps, policy.colour', {
        fields: ['policy.upload_limit_kbps', 'policy.colour'],
      }),
    ),
    notObject: notAnObject,
  },
);
const nameTaken = ex('name taken', err('a device policy with that name exists', { conflicts: ['name'] }));
const unknownParent = ex('no such parent', err('inherits_from: no device policy 99', { conflicts: ['inherits_from'] }));

export const DEVICE_POLICY_ROUTES = {
  preferences: route({
    method: 'get',
    path: 'devicepreferences',
    operation: {
      operationId: 'listDevicePreferences',
      tags: ['device policies'],
      summary: 'The preferences a device policy may set',
      description:
        "The catalogue in the shape the management console's policy page walks (netkes `_parse_preferences`): categories (`category`, `fields`), each field a preference with `name`, `description`, `type` (the console's `boolean`, `integer`, `string`, `string[]`), `choices` (a list, or null), `conditional_parent_value` (a child: the parent value under which it applies; a list: any of those) and `fields` (the preferences that refine it). Burrow adds `format` (its own type: boolean, integer, choice, time, string_list), `default` and bounds. Names are flat: a child is set in a policy like any other preference.",
      responses: {
        '200': reply(
          'Every category, its preferences, children nested.',
          listOf(PreferenceCategoryRecord, 'categories'),
          { catalogue: ex('the catalogue', DEVICE_PREFERENCE_CATEGORIES) },
        ),
        ...AUTHENTICATED,
      },
    },
  }),
  list: route({
    method: 'get',
    path: 'devicepolicies/',
    operation: {
      operationId: 'listDevicePolicies',
      tags: ['device policies'],
      summary: 'List device policies',
      description: `Every policy of the partner, by id (a partner has at most ${MAX_DEVICE_POLICIES}).`,
      responses: {
        '200': reply('The policies.', listOf(DevicePolicy, 'policies'), {
          policies: ex('a policy and one inheriting from it', [exampleBase, exampleLaptops]),
        }),
        ...AUTHENTICATED,
      },
    },
  }),
  create: route({
    method: 'post',
    path: 'devicepolicies/',
    body: CreateDevicePolicyBody,
    operation: {
      operationId: 'createDevicePolicy',
      tags: ['device policies'],
      summary: 'Create a device policy',
      requestBody: {
        description: 'The new policy.',
        examples: {
          laptops: ex('a policy inheriting from policy 1', {
            name: laptops.name,
            inherits_from: 1,
            policy: laptops.policy,
          }),
        },
      },
      responses: {
        '201': reply(
          'Created; `Location` ends in `/<id>` on the mount that was called.',
          DevicePolicy,
          { created: ex('the new policy', exampleLaptops) },
          {
            Location: {
              description: 'path of the new policy',
              schema: { type: 'string' },
              example: '/devicepolicies/2',
            },
          },
        ),
        '400': badValues,
        '409': error(
          `Another policy of the partner has the name (case-insensitive), inherits_from names no policy of the partner, or the partner already has ${MAX_DEVICE_POLICIES} policies (empty conflicts).`,
          {
            name: nameTaken,
            parent: unknownParent,
            tooMany: ex(
              'at the cap',
              err(`a partner has at most ${MAX_DEVICE_POLICIES} device policies; delete one first`, { conflicts: [] }),
            ),
          },
        ),
        ...WITH_BODY,
      },
    },
  }),
  get: route({
    method: 'get',
    path: 'devicepolicies/:id',
    operation: {
      operationId: 'getDevicePolicy',
      tags: ['device policies'],
      summary: 'A device policy',
      parameters: [idParam],
      responses: {
        '200': reply('The policy, with its effective values.', DevicePolicy, {
          policy: ex('GET /devicepolicies/2', exampleLaptops),
        }),
        '404': noPolicy,
        ...AUTHENTICATED,
      },
    },
  }),
  update: route({
    method: 'post',
    path: 'devicepolicies/:id',
    query: DevicePolicyActionQuery,
    body: UpdateDevicePolicyBody,
    operation: {
      operationId: 'updateDevicePolicy',
      tags: ['device policies'],
      summary: 'Change a device policy, or delete it with ?action=delete',
      description:
        'Changes the fields given; `policy` replaces the whole set of own values. With `action=delete` the policy is deleted as by DELETE, the body is ignored and the reply is empty.',
      parameters: [idParam],
      queryNotes: { action: { description: '`delete`: delete the policy (same as DELETE); any other value is 400' } },
      requestBody: {
        description: 'The fields to change (ignored with action=delete).',
        examples: {
          values: ex('new own values', { policy: { lan_sync: false } }),
          detach: ex('stop inheriting', { inherits_from: null }),
        },
        required: false,
      },
      responses: {
        '200': reply('The updated policy (empty body with action=delete).', DevicePolicy, {
          updated: ex('after a rename', { ...exampleLaptops, name: 'Road warriors' }),
        }),
        '400': badValues,
        '404': noPolicy,
        '409': error(
          'The name is taken; inherits_from names no policy of the partner or would make a cycle (the policy itself or one inheriting from it); or (action=delete) the policy is in use.',
          {
            name: nameTaken,
            parent: unknownParent,
            cycle: ex(
              'a cycle',
              err('inherits_from: policy 1 would inherit from itself (a cycle through 2)', {
                conflicts: ['inherits_from'],
              }),
            ),
          },
        ),
        ...WITH_BODY,
      },
    },
  }),
  remove: route({
    method: 'delete',
    path: 'devicepolicies/:id',
    operation: {
      operationId: 'deleteDevicePolicy',
      tags: ['device policies'],
      summary: 'Delete a device policy',
      description: 'Refused while a group uses the policy or another policy inherits from it.',
      parameters: [idParam],
      responses: {
        '200': empty('Deleted.'),
        '404': noPolicy,
        '409': error(
          'The policy is in use (`policy_id`, what the management appliance tests for), with the precise reason beside it: a group uses the policy (`device_policy`), or another policy inherits from it (`inherits_from`).',
          {
            group: ex(
              'used by a group',
              err('device policy 1 is used by group 3', { conflicts: ['policy_id', 'device_policy'] }),
            ),
            child: ex(
              'inherited from',
              err('device policy 1 is inherited from by policy 2', { conflicts: ['policy_id', 'inherits_from'] }),
            ),
          },
        ),
        ...AUTHENTICATED,
      },
    },
  }),
};
