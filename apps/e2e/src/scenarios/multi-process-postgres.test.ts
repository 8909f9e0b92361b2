/**
 * Every e2e scenario against Burrow as separate processes on a real NATS server with the
 * PostgreSQL event store (a database of the target's own on POSTGRES_URL's server), and every
 * other production server the run has (MinIO, MongoDB/FerretDB: harness/servers.ts), each in a
 * namespace of the target's own. This is the run on production adapters.
 */
import { startMultiProcess } from '../harness/multi-process.js';
import { configuredServers } from '../harness/servers.js';
import { registerAllScenarios } from './all-scenarios.js';

const natsUrl = process.env.NATS_URL;
const postgresUrl = process.env.POSTGRES_URL;
const servers = ['NATS', 'PostgreSQL event store', ...(await configuredServers())].join(' + ');

registerAllScenarios(
  `multi-process (${servers})`,
  natsUrl && postgresUrl ? (env) => startMultiProcess(natsUrl, env, { postgresEventStore: postgresUrl }) : null,
  natsUrl
    ? 'POSTGRES_URL not set and no PostgreSQL server on 127.0.0.1:5432'
    : 'NATS_URL not set and no nats-server found',
);
