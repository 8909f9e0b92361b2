/** The routes of the operations endpoints (no authentication, at the root only): path, method, and their OpenAPI prose and examples. */
import { z } from '@burrow/contracts';
import { route } from '../http/route.js';
import { ex, reply } from '../openapi/builders.js';
import type { PathItem } from '../http/openapi-types.js';

const BusConnection = z.object({
  connected: z.boolean(),
  since: z.int().describe('when it last went up or down (ms since the epoch)'),
  lastAttempt: z.int().optional().describe('the latest reconnect attempt while down'),
  closed: z.boolean().optional().describe('closed for good: it will never reconnect'),
});
export const Health = z
  .object({
    status: z.string().describe('`ok`, or why the process cannot heal itself'),
    bus: z.object({
      connected: z.boolean().describe('every bus connection of this process is up'),
      since: z.int().describe('when `connected` last changed (ms since the epoch)'),
      live: z.boolean().describe('false when a connection is closed for good or stopped trying: restart the process'),
      connections: z.record(z.string(), BusConnection),
    }),
  })
  .meta({ id: 'Health', description: 'Liveness, and the state of the bus connections.' });
const Replica = z.object({
  replica: z.string().describe('the process: `<host>:<pid>`'),
  ok: z.boolean().describe('its own health, as it last reported it'),
  reason: z.string().optional().describe('why not ok'),
  degraded: z
    .string()
    .optional()
    .describe('ok, but some requests fail: what does not answer (the event store: writes answer 503)'),
  position: z.int().describe('how far its read models are (event store position)'),
  last_seen_ms: z.int().describe('how long ago its last report arrived'),
  stale: z
    .boolean()
    .describe(
      'no report for three of its intervals (`BURROW_REPLICA_REPORT_MS`): stuck, stopped or cut off from the bus',
    ),
  ops: z.string().optional().describe('its own /healthz, /readyz and /metrics (`BURROW_OPS_PORT`)'),
});
export const Readiness = z
  .object({
    status: z.enum(['ready', 'not ready']),
    checks: z
      .record(z.string(), z.string())
      .describe(
        "each service's and the blob store's answer, and the data directory's free space (`disk`): `ok`, `degraded: <what>` (it serves, some requests fail), or what failed",
      ),
    degraded: z
      .array(z.string())
      .describe(
        'the checks that fail or are degraded without failing readiness (billing: its routes answer 503; a service whose event store is down: writes answer 503)',
      ),
    replicas: z
      .record(z.string(), z.array(Replica))
      .describe(
        'every process heard from in the last 10 minutes, by service (`gateway` included), as each reports itself every `BURROW_REPLICA_REPORT_MS`',
      ),
  })
  .meta({
    id: 'Readiness',
    description:
      'Whether this gateway can serve its main traffic: accounts (every login), the storage catalog, the blob store and the data directory must answer; billing and the event store only degrade the requests that need them. And every replica of every service, as each last reported itself.',
  });

const OPERATOR_ONLY: Pick<PathItem, 'servers'> = {
  servers: [{ url: '/', description: 'operator endpoints are served at the root only (not under /apis/accounts/v1)' }],
};

export const OPS_ROUTES = {
  healthz: route({
    method: 'get',
    path: 'healthz',
    pathItem: OPERATOR_ONLY,
    operation: {
      operationId: 'healthz',
      tags: ['operations'],
      summary: 'Liveness',
      security: [],
      description:
        '200 while the process serves or is reconnecting to the bus (a restart would not bring NATS back); 503 only when a bus connection is closed for good or has stopped trying, so an orchestrator should restart it. /readyz is what fails during a bus outage.',
      responses: {
        '200': reply('The process is alive (possibly reconnecting: see `bus`).', Health, {
          ok: ex('alive and connected', {
            status: 'ok',
            bus: {
              connected: true,
              since: 1700000000000,
              live: true,
              connections: { 'gateway-requests': { connected: true, since: 1700000000000 } },
            },
          }),
          reconnecting: ex('NATS is down, reconnecting', {
            status: 'ok',
            bus: {
              connected: false,
              since: 1700000100000,
              live: true,
              connections: {
                'gateway-requests': { connected: false, since: 1700000100000, lastAttempt: 1700000105000 },
              },
            },
          }),
        }),
        '503': reply('A bus connection is closed for good: restart the process.', Health, {
          dead: ex('gave up', {
            status: 'bus connection lost for good',
            bus: {
              connected: false,
              since: 1700000100000,
              live: false,
              connections: { 'gateway-requests': { connected: false, since: 1700000100000, closed: true } },
            },
          }),
        }),
      },
    },
  }),
  readyz: route({
    method: 'get',
    path: 'readyz',
    pathItem: OPERATOR_ONLY,
    operation: {
      operationId: 'readyz',
      tags: ['operations'],
      summary: 'Readiness',
      description:
        'Asks every service (accounts, billing, storage-catalog) for its health, with a 1.5 s timeout each, pings the blob store, and checks the free space of the data directory (when it holds the blob folder or the event store file): below `BURROW_MIN_FREE_DISK_MB` (default the smaller of 512 MiB and 2% of the file system) `disk` says so and uploads are refused with 507. 503 when accounts (its read models, its login throttle store), the storage catalog, the blob store or the disk fail: the main traffic cannot be served. Billing down, or an event store down, leaves it 200 with the check under `degraded`: those requests answer 503 naming what is missing, the rest are served. `replicas` lists every process by service as it reports itself; a `stale` one has stopped reporting.',
      security: [],
      responses: {
        '200': reply('Ready.', Readiness, {
          ready: ex('all good', {
            status: 'ready',
            checks: { accounts: 'ok', billing: 'ok', 'storage-catalog': 'ok', blobs: 'ok', disk: 'ok' },
            degraded: [],
            replicas: {
              accounts: [{ replica: 'host-a:41', ok: true, position: 1234, last_seen_ms: 800, stale: false }],
              'storage-catalog': [
                { replica: 'host-a:42', ok: true, position: 1234, last_seen_ms: 400, stale: false },
                { replica: 'host-b:17', ok: true, position: 1201, last_seen_ms: 31000, stale: true },
              ],
            },
          }),
          billingDown: ex('billing down: its routes answer 503, the rest is served', {
            status: 'ready',
            checks: {
              accounts: 'ok',
              billing: 'billing service did not answer in time',
              'storage-catalog': 'ok',
              blobs: 'ok',
              disk: 'ok',
            },
            degraded: ['billing'],
            replicas: {},
          }),
          eventStoreDown: ex('the event store down: writes answer 503, reads are served', {
            status: 'ready',
            checks: {
              accounts:
                'degraded: event store: the event store is unavailable: connect ECONNREFUSED 10.0.0.5:5432; writes answer 503 until it is back, reads go on',
              billing: 'degraded: event store: ...',
              'storage-catalog': 'degraded: event store: ...',
              blobs: 'ok',
              disk: 'ok',
            },
            degraded: ['accounts', 'billing', 'storage-catalog'],
            replicas: {},
          }),
        }),
        '503': reply('Not ready; `checks` says what failed.', Readiness, {
          notReady: ex('the login throttle store does not answer', {
            status: 'not ready',
            checks: {
              accounts: 'login throttle store: no responders available for request',
              billing: 'ok',
              'storage-catalog': 'ok',
              blobs: 'ok',
              disk: 'ok',
            },
            degraded: [],
            replicas: {},
          }),
          lowDisk: ex('low disk space', {
            status: 'not ready',
            checks: {
              accounts: 'ok',
              billing: 'ok',
              'storage-catalog': 'ok',
              blobs: 'ok',
              disk: 'low disk space: 301.5 MiB free in /var/lib/burrow, below 512.0 MiB (BURROW_MIN_FREE_DISK_MB); uploads are refused',
            },
            degraded: [],
            replicas: {},
          }),
        }),
      },
    },
  }),
  metrics: route({
    method: 'get',
    path: 'metrics',
    pathItem: OPERATOR_ONLY,
    operation: {
      operationId: 'metrics',
      tags: ['operations'],
      summary: 'Prometheus metrics',
      security: [],
      responses: {
        '200': {
          description:
            'Prometheus text exposition: `burrow_http_requests_total{method,route,status}`, `burrow_http_request_duration_seconds{method,route}`, and process metrics prefixed `burrow_gateway_`.',
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
  }),
  openapi: route({
    method: 'get',
    path: 'openapi.json',
    pathItem: OPERATOR_ONLY,
    operation: {
      operationId: 'openapi',
      tags: ['operations'],
      summary: 'This document',
      security: [],
      responses: {
        '200': reply(
          'The OpenAPI 3.1 document.',
          { type: 'object', required: ['openapi', 'info', 'paths'] },
          {
            document: ex('the start of it', {
              openapi: '3.1.0',
              info: { title: 'Burrow accounts interface (A)', version: '1' },
              paths: {},
            }),
          },
        ),
      },
    },
  }),
};
