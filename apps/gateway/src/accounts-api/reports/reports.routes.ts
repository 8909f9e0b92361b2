/** The routes `/shares/` and `/clientrevisions/`: path, method, query schemas, and their OpenAPI prose and examples. */
import { BrandShareEntry, ClientRevisionCount, ClientRevisionsQuery, MAX_PAGE, PageQuery } from '@burrow/contracts';
import { route } from '../../http/route.js';
import { err, error, ex, listOf, reply } from '../../openapi/builders.js';
import { AUTHENTICATED } from '../../openapi/common.js';
import { exampleBrandShares, exampleRevisions } from '../examples.js';

export const REPORT_ROUTES = {
  shares: route({
    method: 'get',
    path: 'shares/',
    query: PageQuery,
    operation: {
      operationId: 'listBrandShares',
      tags: ['shares'],
      summary: 'All shares within the brand',
      description:
        'Users of the partner that have shares (by username), each with its rooms. `limit` and `offset` count users.',
      queryNotes: {
        limit: { description: `users per page, at most ${MAX_PAGE} (the default)`, example: 100 },
        offset: { description: 'users to skip', example: 0 },
      },
      responses: {
        '200': reply('Users with their shares.', listOf(BrandShareEntry, 'entries'), {
          shares: ex('one user with one room', exampleBrandShares),
        }),
        '400': error('limit or offset not a non-negative integer.', {
          limit: ex('bad limit', err('invalid query parameters: limit', { fields: ['limit'] })),
        }),
        ...AUTHENTICATED,
      },
    },
  }),
  clientRevisions: route({
    method: 'get',
    path: 'clientrevisions/',
    query: ClientRevisionsQuery,
    operation: {
      operationId: 'listClientRevisions',
      tags: ['reports'],
      summary: 'Device counts by client revision',
      queryNotes: {
        min_revision: { description: 'lowest revision counted (default 0, the lowest possible)', example: 1100 },
        max_revision: { description: 'highest revision counted; -1 = no maximum (default)' },
        max_days_since_login: {
          description: 'only devices that logged in within this many days; -1 = no maximum (default)',
          example: 30,
        },
      },
      responses: {
        '200': reply('Counts, by revision ascending.', listOf(ClientRevisionCount, 'counts'), {
          counts: ex('two revisions in use', exampleRevisions),
        }),
        '400': error('A parameter is not an integer or below its minimum.', {
          min: ex('negative min_revision', err('invalid query parameters: min_revision', { fields: ['min_revision'] })),
        }),
        ...AUTHENTICATED,
      },
    },
  }),
};
