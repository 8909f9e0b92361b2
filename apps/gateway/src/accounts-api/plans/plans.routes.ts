/** The routes `GET /ping` and `GET /plans`: path, method, and their OpenAPI prose and examples. */
import { Plan } from '@burrow/contracts';
import { route } from '../../http/route.js';
import { ex, listOf, reply } from '../../openapi/builders.js';
import { AUTHENTICATED } from '../../openapi/common.js';
import { examplePlans } from '../examples.js';

export const PLAN_ROUTES = {
  ping: route({
    method: 'get',
    path: 'ping',
    operation: {
      operationId: 'ping',
      tags: ['partner'],
      summary: 'Credential check',
      description:
        'Clients use this to check credentials: 200 with the JSON string "pong" for good ones, 401 otherwise. GET, not POST (unlike the earlier interface).',
      responses: {
        '200': reply(
          'Credentials are good.',
          { type: 'string', const: 'pong' },
          { pong: ex('good credentials', 'pong') },
        ),
        ...AUTHENTICATED,
      },
    },
  }),
  plans: route({
    method: 'get',
    path: 'plans',
    operation: {
      operationId: 'listPlans',
      tags: ['plans'],
      summary: 'List all plans',
      description:
        'Every plan, promo-code plans included (there is no `promo` parameter and no single-plan resource). An unlimited plan always exists.',
      responses: {
        '200': reply('All plans, by plan_id.', listOf(Plan, 'plans'), { plans: ex('default catalogue', examplePlans) }),
        ...AUTHENTICATED,
      },
    },
  }),
};
