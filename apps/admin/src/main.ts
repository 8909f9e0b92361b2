/**
 * `npm run admin -- <command> [options]`: the admin CLI's process entry.
 *
 * The command line is parsed first: help and usage errors (exit 0 and 2) open nothing. Then, with
 * NATS_URL set, the command is sent to the running services over NATS. Otherwise the CLI opens the
 * standalone data directory (BURROW_DATA_DIR, default ./data) itself, running the accounts and
 * billing services in-process for the one command; a standalone server running on the same
 * directory sees the change within a moment.
 *
 * Exit codes: 0 done, 1 the command failed (the service's answer is printed), 2 usage or
 * configuration error (nothing was touched).
 */
import 'reflect-metadata';
import { startAccounts } from '@burrow/accounts';
import { startBilling } from '@burrow/billing';
import { DomainError } from '@burrow/contracts';
import { type BurrowConfig, Infrastructure, readConfig } from '@burrow/runtime';
import { RpcClient } from '@burrow/transport';
import { type CommandLine, parseAdminCommandLine, UsageError } from './admin.js';

async function main(argv: string[]): Promise<number> {
  let line: CommandLine;
  let config: BurrowConfig;
  try {
    line = parseAdminCommandLine(argv);
    if ('help' in line) {
      process.stdout.write(line.help);
      return 0;
    }
    config = readConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  } catch (error) {
    const usage = error instanceof UsageError && error.usage ? `\n\n${error.usage}` : '\n';
    process.stderr.write(`admin: ${(error as Error).message}${usage}`);
    return 2;
  }

  const services: { close(): Promise<void> }[] = [];
  let infra: Infrastructure | null = null;
  let rpc: RpcClient | null = null;
  try {
    infra = new Infrastructure(config);
    const client = infra.client('admin');
    rpc = new RpcClient(client, 30_000);
    if (!config.natsUrl) {
      services.push(await startAccounts(infra));
      services.push(await startBilling(infra));
    }
    await client.connect();
    const result = await line.action(rpc);
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return 0;
  } catch (error) {
    const message = error instanceof DomainError ? `${error.status}: ${JSON.stringify(error.body)}` : (error as Error).message;
    process.stderr.write(`admin: ${message}\n`);
    return 1;
  } finally {
    await rpc?.close();
    for (const s of services.reverse()) await s.close();
    await infra?.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
