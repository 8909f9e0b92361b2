/** OpenAPI for the operations endpoints (no authentication, at the root only). */
import { z } from '@burrow/contracts';
import { ex, reply } from '../openapi/builders.js';
import type { PathItem, PathsFragment } from '../openapi/types.js';

export const Health = z.object({ status: z.literal('ok') }).meta({ id: 'Health', description: 'The process is alive.' });
export const Readiness = z
  .object({
    status: z.enum(['ready', 'not ready']),
    checks: z.record(z.string(), z.string()).describe("each service's and the blob store's answer: `ok` or what failed"),
  })
  .meta({ id: 'Readiness', description: 'Whether every service and the blob store answer.' });

const OPERATOR_ONLY: Pick<PathItem, 'servers'> = {
  servers: [{ url: '/', description: 'operator endpoints are served at the root only (not under /apis/accounts/v1)' }],
};

export const opsPaths: PathsFragment = {
  '/healthz': {
    ...OPERATOR_ONLY,
    get: {
      operationId: 'healthz',
      tags: ['operations'],
      summary: 'Liveness',
      security: [],
      responses: { '200': reply('The process is alive.', Health, { ok: ex('alive', { status: 'ok' }) }) },
    },
  },
  '/readyz': {
    ...OPERATOR_ONLY,
    get: {
      operationId: 'readyz',
      tags: ['operations'],
      summary: 'Readiness',
      description: 'Asks every service (accounts, billing, storage-catalog) for its health, with a 1.5 s timeout each, and pings the blob store.',
      security: [],
      responses: {
        '200': reply('Ready.', Readiness, {
          ready: ex('all good', { status: 'ready', checks: { accounts: 'ok', billing: 'ok', 'storage-catalog': 'ok', blobs: 'ok' } }),
        }),
        '503': reply('Not ready; `checks` says what failed.', Readiness, {
          notReady: ex('billing down', { status: 'not ready', checks: { accounts: 'ok', billing: 'billing service did not answer in time', 'storage-catalog': 'ok', blobs: 'ok' } }),
        }),
      },
    },
  },
  '/metrics': {
    ...OPERATOR_ONLY,
    get: {
      operationId: 'metrics',
      tags: ['operations'],
      summary: 'Prometheus metrics',
      security: [],
      responses: {
        '200': {
          description: 'Prometheus text exposition: `burrow_http_requests_total{method,route,status}`, `burrow_http_request_duration_seconds{method,route}`, and process metrics prefixed `burrow_gateway_`.',
          content: {
            'text/plain': {
              schema: { type: 'string' },
              examples: {
                sample: ex(
                  'an excerpt',
                  '# HELP burrow_http_requests_total HTTP requests handled by the gateway\n# TYPE burrow_http_requests_total counter\nburrow_http_requests_total{method="GET",route="/users",status="200"} 12\n',
                ),
              },
            },
          },
        },
      },
    },
  },
  '/openapi.json': {
    ...OPERATOR_ONLY,
    get: {
      operationId: 'openapi',
      tags: ['operations'],
      summary: 'This document',
      security: [],
      responses: {
        '200': reply('The OpenAPI 3.1 document.', { type: 'object', required: ['openapi', 'info', 'paths'] }, {
          document: ex('the start of it', { openapi: '3.1.0', info: { title: 'Burrow accounts interface (A)', version: '1' }, paths: {} }),
        }),
      },
    },
  },
};
