/**
 * `npm run admin -- <command> [options]`: the admin CLI's process entry.
 *
 * The command line is parsed first: help and usage errors (exit 0 and 2) open nothing, and load
 * nothing but the contracts. Then, with NATS_URL set, the command is sent to the running services
 * over NATS, and nothing local is opened. Otherwise the CLI opens the standalone data directory (BURROW_DATA_DIR, default
 * ./data) itself, running the accounts and billing services in-process for the one command; a
 * standalone server running on the same directory sees the change within a moment.
 *
 * import-folder opens none of this: it is a client of a gateway over HTTP (commands/import-folder.ts).
 *
 * Exit codes: 0 done, 1 the command failed (the service's answer is printed), 2 usage or
 * configuration error (nothing was touched).
 */
import { DomainError } from '@burrow/contracts';
import type { ClientProxy } from '@nestjs/microservices';
import { type AdminAction, type DirectAction, FailedResult, parseAdminCommandLine, UsageError } from './admin.js';

async function main(argv: string[]): Promise<number> {
  let action: AdminAction;
  let storageCatalog: boolean;
  try {
    const line = parseAdminCommandLine(argv);
    if ('help' in line) {
      process.stdout.write(line.help);
      return 0;
    }
    action = line.action;
    storageCatalog = line.command.storageCatalog === true;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`admin: ${error.message}\n\n${error.usage}`);
    return 2;
  }
  if (typeof action !== 'function') return runDirect(action);

  // Loaded once there is something to run (Nest, NATS and the store drivers take a while to load).
  await import('reflect-metadata');
  // Nest's NATS client logs its connection status to stdout through Nest's logger, which only a
  // Nest app (the services) turns off; the connection watcher already logs what matters, to stderr.
  (await import('@nestjs/common')).Logger.overrideLogger(false);
  const { createLogger, Infrastructure, readConfig } = await import('@burrow/runtime');
  const { natsClient, RpcClient } = await import('@burrow/transport');
  let config;
  try {
    // In-memory read models unless told otherwise: a standalone server may be running on the same
    // data directory, and its SQLite read models are its own (admin rebuild-read-models needs them free).
    config = readConfig({
      ...process.env,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      BURROW_READ_MODELS: process.env.BURROW_READ_MODELS ?? 'memory',
    });
  } catch (error) {
    process.stderr.write(`admin: ${(error as Error).message}\n`);
    return 2;
  }

  const services: { close(): Promise<void> }[] = [];
  let infra: InstanceType<typeof Infrastructure> | null = null;
  let rpc: InstanceType<typeof RpcClient> | null = null;
  try {
    let client: ClientProxy;
    if (config.natsUrl) {
      // Only a client of the running services: nothing local (data directory, secret) is opened.
      // as unknown as: ClientNats is a ClientProxy whose own status and event types TypeScript will not widen to ClientProxy's defaults
      client = natsClient(config.natsUrl, 'admin', {
        log: createLogger('admin', config.logLevel, process.stderr),
      }) as unknown as ClientProxy;
      rpc = new RpcClient(client, 30_000);
    } else {
      // the services' logs go to stderr: stdout is the command's JSON result
      infra = new Infrastructure(config, undefined, { logDestination: process.stderr });
      client = infra.client('admin');
      rpc = new RpcClient(client, 30_000);
      const [{ startAccounts }, { startBilling }] = await Promise.all([
        import('@burrow/accounts'),
        import('@burrow/billing'),
      ]);
      services.push(await startAccounts(infra));
      services.push(await startBilling(infra));
      if (storageCatalog) {
        // its read models are rebuilt from the events here; no purges, previews or reaping of its own
        const { startStorageCatalog } = await import('@burrow/storage-catalog');
        services.push(await startStorageCatalog(infra, { background: false }));
      }
    }
    await client.connect();
    const result = await action(rpc);
    if (result instanceof FailedResult) {
      process.stdout.write(JSON.stringify(result.result, null, 2) + '\n');
      return 1;
    }
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return 0;
  } catch (error) {
    const message =
      error instanceof DomainError ? `${error.status}: ${JSON.stringify(error.body)}` : (error as Error).message;
    process.stderr.write(`admin: ${message}\n`);
    return 1;
  } finally {
    await rpc?.close();
    for (const s of services.reverse()) await s.close();
    await infra?.close();
  }
}

/** A command with its own connections (a gateway over HTTP): no bus, no data directory. */
async function runDirect(action: DirectAction): Promise<number> {
  try {
    const { result, failed } = await action.direct();
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return failed ? 1 : 0;
  } catch (error) {
    process.stderr.write(`admin: ${(error as Error).message}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
