/**
 * `npm run admin -- <command> [options]`: the admin CLI's process entry.
 *
 * With NATS_URL set it talks to the running services over NATS. Otherwise it opens the standalone
 * data directory (BURROW_DATA_DIR, default ./data) itself, running the accounts and billing
 * services in-process for the one command; a standalone server running on the same directory sees
 * the change within a moment.
 */
import 'reflect-metadata';
import { startAccounts } from '@burrow/accounts';
import { startBilling } from '@burrow/billing';
import { DomainError } from '@burrow/contracts';
import { Infrastructure, readConfig } from '@burrow/runtime';
import { RpcClient } from '@burrow/transport';
import { runAdmin } from './admin.js';

async function main(): Promise<number> {
  const config = readConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  const infra = new Infrastructure(config);
  const services: { close(): Promise<void> }[] = [];
  const client = infra.client('admin');
  const rpc = new RpcClient(client, 30_000);
  try {
    if (!config.natsUrl) {
      if (process.argv[2] === 'unlock-login') {
        // this process's accounts service would unlock its own, empty, in-memory counters
        throw new Error('standalone Burrow keeps failed-login counters in the memory of the running server: restart it to clear them (locks also end by themselves, within an hour at most)');
      }
      services.push(await startAccounts(infra));
      services.push(await startBilling(infra));
    }
    await client.connect();
    const result = await runAdmin(process.argv.slice(2), rpc);
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return 0;
  } catch (error) {
    const message = error instanceof DomainError ? `${error.status}: ${JSON.stringify(error.body)}` : (error as Error).message;
    process.stderr.write(`admin: ${message}\n`);
    return 1;
  } finally {
    await rpc.close();
    for (const s of services.reverse()) await s.close();
    await infra.close();
  }
}

process.exitCode = await main();
