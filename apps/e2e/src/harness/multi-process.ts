/**
 * Boots Burrow as separate processes on a real NATS server: accounts, billing, storage-catalog and
 * two gateways, sharing one SQLite event store file (or a PostgreSQL event store) and blob folder
 * (DESIGN §2, multi-process mode).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Subjects } from '@burrow/contracts';
import { createPostgresDatabase, dropPostgresDatabase } from '@burrow/event-store';
import { natsClient, RpcClient } from '@burrow/transport';
import type { ClientProxy } from '@nestjs/microservices';
import { stablePort } from './ports.js';
import { natsServerBinary, type PrivateNats, startPrivateNats } from './private-nats.js';
import { PRODUCTION_SERVER_VARIABLES, targetServers } from './servers.js';
import { openEventStoreOf } from './event-store.js';
import { TEST_PARTNER, type TestTarget, testEnv } from './standalone.js';

const appsDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
    srv.on('error', rej);
  });
}

// Loading Nest and the drivers takes each process a few seconds; on a machine shared by several
// test runs (load far above its cores) it was seen to take over 40 s.
async function waitReady(
  url: string,
  children: ChildProcess[],
  output: () => string,
  timeoutMs = 90_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (children.some((c) => c.exitCode !== null)) throw new Error(`a process exited during start:\n${output()}`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms:\n${output()}`);
}

/** One spawned app process as a test sees it: `name` is the app, numbered when it runs twice. */
export interface AppProcess {
  name: string;
  exitCode: number | null;
  signalCode: NodeJS.Signals | null;
  /** its stdout and stderr (the last 200 kB) */
  output: string;
}

export type MultiProcessTarget = TestTarget & {
  /** the NATS server its processes talk on (one of the target's own unless the test gave one) */
  natsUrl: string;
  stopApp(app: string): Promise<void>;
  /** sends `signal` to the one process named `name` (`storage-catalog-2`: its second replica) */
  killProcess(name: string, signal?: NodeJS.Signals): void;
  /** kills every process of `app` at once with SIGKILL, as a crash would (then `exited` resolves) */
  killApp(app: string): void;
  /** starts one more process of `app` (after stopping it, that is a restart), with extra variables */
  startApp(app: string, env?: Record<string, string>): void;
  /** resolves when every process of `app` has exited (a crash included) */
  exited(app: string): Promise<void>;
  processes(): AppProcess[];
};

export type ServiceApp = 'accounts' | 'billing' | 'storage-catalog';

export interface MultiProcessOptions {
  /** how many accounts replicas to run (default 1); they share the queue group `accounts` */
  accountsReplicas?: number;
  /** how many replicas of each service to run (default 1 each; `accountsReplicas` is the same for accounts) */
  replicas?: Partial<Record<ServiceApp, number>>;
  /** false: embedded read models and blob folder even when the run has MongoDB or MinIO (default true) */
  productionServers?: boolean;
  /**
   * A PostgreSQL server (URL of any database on it): the target's event store is then a database
   * of its own there, made for it and dropped when it closes (instead of the SQLite file).
   */
  postgresEventStore?: string;
}

export async function startMultiProcess(
  givenNatsUrl: string,
  extraEnv: Record<string, string> = {},
  options: MultiProcessOptions = {},
): Promise<MultiProcessTarget> {
  // Subjects, queue groups and key-value buckets are global on a NATS server: two targets on one
  // server would answer each other's requests. Each target gets a nats-server of its own (a few
  // milliseconds and megabytes), so test files can run side by side; a test that brings its own
  // server (to kill it) keeps it.
  const privateNats: PrivateNats | null =
    givenNatsUrl === process.env.NATS_URL && natsServerBinary() ? await startPrivateNats() : null;
  const natsUrl = privateNats?.url ?? givenNatsUrl;
  const dataDir = await mkdtemp(join(tmpdir(), 'burrow-mp-'));
  const eventDatabase = options.postgresEventStore ? `burrow_e2e_${randomBytes(6).toString('hex')}` : undefined;
  if (eventDatabase)
    extraEnv = {
      ...extraEnv,
      EVENTSTORE_URL: await createPostgresDatabase(options.postgresEventStore!, eventDatabase),
    };
  const eventstoreUrl = extraEnv.EVENTSTORE_URL ?? process.env.EVENTSTORE_URL;
  // the run's production servers (MinIO, FerretDB), each with a namespace of this target's own
  const servers =
    options.productionServers === false
      ? { env: {}, names: [], cleanup: async () => undefined }
      : await targetServers({ ...process.env, ...extraEnv }, randomBytes(5).toString('hex'));
  // without them, the run's server URLs must not reach the processes either (they would share the
  // servers' default databases and bucket with every other such target)
  const inherited = { ...process.env };
  if (options.productionServers === false) for (const name of PRODUCTION_SERVER_VARIABLES) delete inherited[name];
  // Every target of a test run shares the run's NATS server, and with it the key-value buckets
  // (login throttling): a secret of its own keeps each target's keys apart.
  const secret = `test-secret-${randomBytes(16).toString('hex')}`;
  const children: ChildProcess[] = [];
  const byApp = new Map<string, ChildProcess[]>();
  let log = '';
  const outputs: { name: string; child: ChildProcess; output: string }[] = [];
  const spawnApp = (app: string, env: Record<string, string> = {}) => {
    const child = spawn(process.execPath, [join(appsDir, app, 'dist', 'main.js')], {
      env: {
        ...inherited,
        ...testEnv(dataDir, {
          NATS_URL: natsUrl,
          BURROW_SECRET: secret,
          LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
          ...extraEnv,
          ...servers.env,
          ...env,
        }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const entry = { name: byApp.has(app) ? `${app}-${byApp.get(app)!.length + 1}` : app, child, output: '' };
    outputs.push(entry);
    const collect = (chunk: Buffer) => {
      log = (log + `[${app}] ` + chunk.toString()).slice(-20_000);
      entry.output = (entry.output + chunk.toString()).slice(-200_000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    children.push(child);
    byApp.set(app, [...(byApp.get(app) ?? []), child]);
    return child;
  };
  const operatorClient = natsClient(natsUrl, 'test-operator') as unknown as ClientProxy;
  const operator = new RpcClient(operatorClient);
  const stop = (list: ChildProcess[]) =>
    Promise.all(
      list.map(
        (c) =>
          new Promise<void>((res) => {
            // a process killed by a signal has no exit code, only a signal code
            if (c.exitCode !== null || c.signalCode !== null) return res();
            c.once('exit', () => res());
            c.kill('SIGTERM');
            setTimeout(() => c.kill('SIGKILL'), 5000).unref();
          }),
      ),
    );
  const close = async () => {
    await operatorClient.close();
    await stop(children);
    await servers.cleanup();
    await privateNats?.close();
    if (eventDatabase) await dropPostgresDatabase(options.postgresEventStore!, eventDatabase);
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    // accounts first: it creates the event store schema and the first partner
    spawnApp('accounts');
    spawnApp('billing');
    spawnApp('storage-catalog');
    // a test may stop a gateway and start it again on its port (harness/ports.ts)
    const ports = [await stablePort(), await stablePort()];
    for (const port of ports) spawnApp('gateway', { PORT: String(port) });
    const urls = ports.map((p) => `http://127.0.0.1:${p}`);
    for (const url of urls) await waitReady(url, children, () => log);
    // readiness says the services answer; the partner is bootstrapped right after accounts listens.
    // Asked on the operator subject, not with failing logins, which the login throttle counts.
    const deadline = Date.now() + 15_000;
    while (
      !(await operator.call(Subjects.accounts.findPartner, { username: TEST_PARTNER.username }).then(
        () => true,
        () => false,
      ))
    ) {
      if (Date.now() > deadline) throw new Error(`partner bootstrap did not complete:\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const auth = 'Basic ' + Buffer.from(`${TEST_PARTNER.username}:${TEST_PARTNER.password}`).toString('base64');
    // a 503 is a service still warming up on a loaded machine (a test may set a short RPC timeout)
    let pong = await fetch(`${urls[0]}/ping`, { headers: { authorization: auth } });
    while (pong.status === 503 && Date.now() < deadline + 15_000) {
      await new Promise((r) => setTimeout(r, 100));
      pong = await fetch(`${urls[0]}/ping`, { headers: { authorization: auth } });
    }
    if (pong.status !== 200) throw new Error(`the bootstrapped partner cannot log in (${pong.status}):\n${log}`);
    // Further replicas join once the first has set up the store: each must be listening in its
    // queue group before a test relies on requests being spread over them.
    const replicas = { accounts: options.accountsReplicas ?? 1, ...options.replicas };
    for (const app of ['accounts', 'billing', 'storage-catalog'] as const) {
      for (let i = 1; i < (replicas[app] ?? 1); i++) {
        const replica = spawnApp(app, { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'info' });
        const entry = outputs.find((o) => o.child === replica)!;
        const replicaDeadline = Date.now() + 90_000;
        while (!entry.output.includes(`${app} service listening`)) {
          if (replica.exitCode !== null || Date.now() > replicaDeadline)
            throw new Error(`${app} replica ${i + 1} did not start:\n${log}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    }
    const exited = (app: string) =>
      Promise.all(
        (byApp.get(app) ?? []).map((c) =>
          c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise((r) => c.once('exit', r)),
        ),
      ).then(() => undefined);
    return {
      mode: 'multi-process',
      natsUrl,
      servers: servers.names,
      url: urls[0],
      urls,
      partner: TEST_PARTNER,
      dataDir,
      serverEnv: servers.env,
      operator,
      close,
      openEventStore: () => openEventStoreOf(dataDir, eventstoreUrl),
      stopApp: async (app: string) => void (await stop(byApp.get(app) ?? [])),
      killApp: (app: string) => void (byApp.get(app) ?? []).forEach((c) => c.kill('SIGKILL')),
      startApp: (app: string, env: Record<string, string> = {}) => void spawnApp(app, env),
      killProcess: (name: string, signal: NodeJS.Signals = 'SIGKILL') => {
        const entry = outputs.find((o) => o.name === name);
        if (!entry) throw new Error(`no process named ${name}`);
        entry.child.kill(signal);
      },
      exited,
      processes: () =>
        outputs.map(({ name, child, output }) => ({
          name,
          exitCode: child.exitCode,
          signalCode: child.signalCode,
          output,
        })),
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** NATS for tests: NATS_URL when set (run-tests.mjs sets it when a server is reachable). */
export const natsUrlForTests = (): string | undefined => process.env.NATS_URL;
