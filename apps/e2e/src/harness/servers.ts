/**
 * The production servers a multi-process target runs on, taken from the test run's environment
 * (`.ci/run` starts them; `scripts/run-tests.mjs` lists them). Every target gets its own namespace
 * on each server — a database prefix on MongoDB/FerretDB, a bucket on MinIO — so two targets never
 * read each other's read models, checkpoints or blobs, and closing a target removes them.
 *
 * To run the multi-process targets on one more kind of server (the PostgreSQL event store), add an
 * entry to SERVERS: how to tell it is configured, the variables one target gets, and the clean-up.
 */
import { MongoDocumentStore, mongoDatabaseName } from '@burrow/documents';
import { Client as MinioClient } from 'minio';
import { MongoClient } from 'mongodb';

export interface TargetServers {
  /** variables for every process of the target (they override the run's own) */
  env: Record<string, string>;
  /** what the target runs on, for test names and the summary ("MinIO", "FerretDB") */
  names: string[];
  /** removes what the target left on the servers */
  cleanup(): Promise<void>;
}

/** The variables that point the apps at the run's production servers (read models, blobs). */
export const PRODUCTION_SERVER_VARIABLES = [
  'MONGODB_URL',
  'MINIO_URL',
  'MINIO_ACCESS_KEY',
  'MINIO_SECRET_KEY',
  'MINIO_BUCKET',
];

interface Server {
  configured(env: NodeJS.ProcessEnv): boolean;
  name(env: NodeJS.ProcessEnv): Promise<string>;
  /** `id`: lower-case letters and digits, unique per target */
  forTarget(env: NodeJS.ProcessEnv, id: string): { env: Record<string, string>; cleanup(): Promise<void> };
}

/** MONGODB_URL with another database name (the services add `-<service>`). */
function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/** The services with read models of their own (`infra.documents(<service>)`): one database each. */
const SERVICE_DATABASES = ['accounts', 'billing', 'storage-catalog'];

const SERVERS: Server[] = [
  {
    configured: (env) => Boolean(env.MONGODB_URL),
    name: (env) => mongoServerName(env.MONGODB_URL!),
    forTarget: (env, id) => {
      const prefix = `e2e${id}`;
      return {
        env: { MONGODB_URL: withDatabase(env.MONGODB_URL!, prefix) },
        cleanup: async () => {
          const client = new MongoClient(env.MONGODB_URL!, { serverSelectionTimeoutMS: 3000 });
          try {
            // by name, not by listing the server's databases: FerretDB (SQLite handler) took minutes
            // to list ~1,400 of them while other runs made and dropped theirs, and every target's
            // teardown waited on it
            for (const name of SERVICE_DATABASES.map((service) =>
              mongoDatabaseName(withDatabase(env.MONGODB_URL!, prefix), service),
            )) {
              const store = await MongoDocumentStore.connect(env.MONGODB_URL!, name);
              await store.dropAll();
              await store.close();
              await client
                .db(name)
                .dropDatabase()
                .catch(() => undefined);
            }
          } finally {
            await client.close();
          }
        },
      };
    },
  },
  {
    configured: (env) => Boolean(env.MINIO_URL),
    name: async () => 'MinIO',
    forTarget: (env, id) => {
      const bucket = `e2e-${id}`;
      return {
        env: { MINIO_BUCKET: bucket },
        cleanup: async () => {
          const url = new URL(env.MINIO_URL!);
          const client = new MinioClient({
            endPoint: url.hostname,
            port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
            useSSL: url.protocol === 'https:',
            accessKey: env.MINIO_ACCESS_KEY ?? '',
            secretKey: env.MINIO_SECRET_KEY ?? '',
            pathStyle: true,
          });
          if (!(await client.bucketExists(bucket))) return;
          const names: string[] = [];
          for await (const item of client.listObjectsV2(bucket, '', true)) if (item.name) names.push(item.name);
          for (let i = 0; i < names.length; i += 1000) await client.removeObjects(bucket, names.slice(i, i + 1000));
          await client.removeBucket(bucket);
        },
      };
    },
  },
];

/** "FerretDB" or "MongoDB": FerretDB says so in buildInfo. */
export async function mongoServerName(url: string): Promise<string> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 2000 });
  try {
    const info = await client.db('admin').command({ buildInfo: 1 });
    return 'ferretdbVersion' in info ? `FerretDB ${String(info.ferretdbVersion)}` : `MongoDB ${String(info.version)}`;
  } catch {
    return 'MongoDB';
  } finally {
    await client.close();
  }
}

/** The servers configured for this run, each with a namespace of its own for target `id`. */
export async function targetServers(env: NodeJS.ProcessEnv, id: string): Promise<TargetServers> {
  const chosen = SERVERS.filter((s) => s.configured(env));
  const parts = chosen.map((s) => s.forTarget(env, id));
  return {
    env: Object.assign({}, ...parts.map((p) => p.env)),
    names: await Promise.all(chosen.map((s) => s.name(env))),
    cleanup: async () => {
      for (const p of parts) await p.cleanup().catch(() => undefined);
    },
  };
}

/** What multi-process targets run on in this run, besides NATS (for test names). */
export async function configuredServers(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  return Promise.all(SERVERS.filter((s) => s.configured(env)).map((s) => s.name(env)));
}
