/** The routes of groups: path, method, the schemas the handlers parse with, and their OpenAPI prose and examples. */
import {
  CreateGroupBody,
  DeleteGroupQuery,
  Group,
  ListGroupsQuery,
  MoveToQuery,
  UpdateGroupBody,
} from '@burrow/contracts';
import { route } from '../../http/route.js';
import { empty, err, error, ex, listOf, pathParameter, reply } from '../../openapi/builders.js';
import { AUTHENTICATED, notAnObject, WITH_BODY } from '../../openapi/common.js';
import { exampleGroup, exampleGroups } from '../examples.js';

const groupIdParam = pathParameter(
  'id',
  'the group id (a positive integer; anything else names no group)',
  { type: 'string', pattern: '^[0-9]+$' },
  '3',
);
const noGroup = error('No such group for this partner (or the id is not a positive integer).', {
  noGroup: ex('unknown group', err('no group 99')),
});
const moveTo = { description: 'move every member to this group (and its plan) before deleting', example: 4 };

export const GROUP_ROUTES = {
  list: route({
    method: 'get',
    path: 'groups/',
    query: ListGroupsQuery,
    operation: {
      operationId: 'listGroups',
      tags: ['groups'],
      summary: 'List groups',
      queryNotes: {
        search: { description: 'only groups whose name contains this text (case-insensitive)', example: 'eng' },
      },
      responses: {
        '200': reply('Every matching group, by group_id.', listOf(Group, 'groups'), {
          groups: ex('two groups', exampleGroups),
        }),
        ...AUTHENTICATED,
      },
    },
  }),
  create: route({
    method: 'post',
    path: 'groups/',
    body: CreateGroupBody,
    operation: {
      operationId: 'createGroup',
      tags: ['groups'],
      summary: 'Create a group',
      requestBody: {
        description: 'The new group.',
        examples: {
          group: ex('a group', { name: 'Engineering', plan_id: 2, webapi_enable: true, check_domain: false }),
        },
      },
      responses: {
        '201': reply(
          'Created; `Location` ends in `/<group_id>` (no trailing slash, no query) on the mount that was called.',
          Group,
          { created: ex('the new group', exampleGroup) },
          {
            Location: { description: 'path of the new group', schema: { type: 'string' }, example: '/groups/3' },
          },
        ),
        '400': error('Invalid or missing parameters (named in `fields`).', {
          fields: ex(
            'missing name, bad plan_id',
            err('invalid or missing parameters: plan_id, name', { fields: ['plan_id', 'name'] }),
          ),
          notObject: notAnObject,
        }),
        '409': error('A group with that name exists (case-insensitive), or plan_id names no plan.', {
          name: ex('name taken', err('name already in use', { conflicts: ['name'] })),
          plan: ex('no such plan', err('plan 99 does not exist', { conflicts: ['plan_id'] })),
        }),
        ...WITH_BODY,
      },
    },
  }),
  get: route({
    method: 'get',
    path: 'groups/:id',
    operation: {
      operationId: 'getGroup',
      tags: ['groups'],
      summary: 'Group details',
      parameters: [groupIdParam],
      responses: {
        '200': reply('The group.', Group, { group: ex('GET /groups/3', exampleGroup) }),
        '404': noGroup,
        ...AUTHENTICATED,
      },
    },
  }),
  update: route({
    method: 'post',
    path: 'groups/:id',
    query: DeleteGroupQuery,
    body: UpdateGroupBody,
    operation: {
      operationId: 'updateGroup',
      tags: ['groups'],
      summary: 'Change a group, or delete it with ?action=delete',
      description:
        'Returns the updated group. A new plan_id is applied to every member. With `action=delete` (and optional `move_to`) the group is deleted as by DELETE, the body is ignored and the reply is empty.',
      parameters: [groupIdParam],
      queryNotes: {
        action: { description: '`delete`: delete the group (same as DELETE); any other value is 400' },
        move_to: moveTo,
      },
      requestBody: {
        description: 'The fields to change (ignored with action=delete).',
        examples: {
          rename: ex('rename', { name: 'Platform engineering' }),
          forcePlan: ex('change plan even if members go over quota', { plan_id: 1, force: true }),
        },
        required: false,
      },
      responses: {
        '200': reply('The updated group (empty body with action=delete).', Group, {
          updated: ex('after a rename', { ...exampleGroup, name: 'Platform engineering' }),
        }),
        '400': error(
          'Invalid parameters (named in `fields`), an unknown action, or (action=delete) an invalid move_to.',
          {
            fields: ex(
              'bad values',
              err('invalid or missing parameters: webapi_enable', { fields: ['webapi_enable'] }),
            ),
            moveTo: ex('move_to names no group', err('move_to: no group 99', { fields: ['move_to'] })),
          },
        ),
        '402': error('The new plan would make the enterprise allocation exceed the bytes available.', {
          quota: ex(
            'over the enterprise allocation',
            err('plan change would make the allocation exceed the bytes available'),
          ),
        }),
        '404': noGroup,
        '409': error(
          'plan_id names no plan; the name is used by another group; members would exceed their quota under the new plan (send force); or (action=delete) the group has users and no move_to.',
          {
            plan: ex('no such plan', err('plan 99 does not exist', { conflicts: ['plan_id'] })),
            name: ex('name taken', err('name already in use', { conflicts: ['name'] })),
            overQuota: ex(
              'members over quota',
              err('members would exceed their quota under the new plan (use force)', {
                conflicts: ['avatars_over_quota'],
              }),
            ),
            hasUsers: ex(
              'action=delete on a group with users',
              err('group has users; supply move_to', { conflicts: ['move_to'] }),
            ),
          },
        ),
        ...WITH_BODY,
      },
    },
  }),
  remove: route({
    method: 'delete',
    path: 'groups/:id',
    query: MoveToQuery,
    operation: {
      operationId: 'deleteGroup',
      tags: ['groups'],
      summary: 'Delete a group',
      description:
        'With move_to, every member moves to that group (and takes its plan). Without it, a group with users is refused (409).',
      parameters: [groupIdParam],
      queryNotes: { move_to: moveTo },
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
  }),
};
