/**
 * Every e2e scenario against Burrow as separate processes on a real NATS server with the
 * PostgreSQL event store (a database of the target's own on POSTGRES_URL's server), and MinIO for
 * blobs when MINIO_URL is set (a bucket of its own).
 */
import { randomBytes } from 'node:crypto';
import { startMultiProcess } from '../harness/multi-process.js';
import { registerAllScenarios } from './all-scenarios.js';

const natsUrl = process.env.NATS_URL;
const postgresUrl = process.env.POSTGRES_URL;
const minio: Record<string, string> = process.env.MINIO_URL ? { MINIO_BUCKET: `burrow-e2e-pg-${randomBytes(4).toString('hex')}` } : {};
const servers = ['NATS', 'PostgreSQL event store', process.env.MINIO_URL ? 'MinIO' : 'blob folder'].join(' + ');

registerAllScenarios(
  `multi-process (${servers})`,
  natsUrl && postgresUrl ? (env) => startMultiProcess(natsUrl, { ...minio, ...env }, { postgresEventStore: postgresUrl }) : null,
  natsUrl ? 'POSTGRES_URL not set and no PostgreSQL server on 127.0.0.1:5432' : 'NATS_URL not set and no nats-server found',
);
