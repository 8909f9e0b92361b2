/**
 * Every e2e scenario against Burrow as separate processes on a real NATS server, on the production
 * servers this run has (MinIO, FerretDB: see harness/servers.ts), each in namespaces of its own.
 */
import { startMultiProcess } from '../harness/multi-process.js';
import { configuredServers } from '../harness/servers.js';
import { registerAllScenarios } from './all-scenarios.js';

const natsUrl = process.env.NATS_URL;
const servers = await configuredServers();
registerAllScenarios(
  `multi-process (NATS${servers.map((s) => ` + ${s}`).join('')}${servers.length ? '' : ', embedded event store, read models and blobs'})`,
  natsUrl ? (env) => startMultiProcess(natsUrl, env) : null,
  'NATS_URL not set and no nats-server found: multi-process suites skipped',
);
