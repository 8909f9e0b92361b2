/**
 * Every e2e scenario against Burrow as separate processes on a real NATS server, sharing one SQLite
 * event store file. When the run has PostgreSQL, the production servers (MinIO, MongoDB/FerretDB)
 * are exercised by multi-process-postgres.test.ts and this run keeps the embedded read models and
 * blob folder; without it, this run takes them (harness/servers.ts), so they are never untested.
 */
import { startMultiProcess } from '../harness/multi-process.js';
import { configuredServers } from '../harness/servers.js';
import { registerAllScenarios } from './all-scenarios.js';

const natsUrl = process.env.NATS_URL;
const productionServers = !process.env.POSTGRES_URL;
const servers = productionServers ? await configuredServers() : [];
registerAllScenarios(
  `multi-process (NATS + SQLite event store${servers.map((s) => ` + ${s}`).join('')})`,
  natsUrl ? (env) => startMultiProcess(natsUrl, env, { productionServers }) : null,
  'NATS_URL not set and no nats-server found: multi-process suites skipped',
);
