/**
 * First-start work: seed the plan catalogue and create the first partner (credentials from the
 * environment, or generated and shown once). Safe when several replicas start together: the
 * catalogue and the bootstrap marker are guarded by optimistic concurrency.
 *
 * Where a generated password goes: standalone prints it on the console (`npm start`, by design);
 * a service process (multi-process, whose output is a JSON log collected by a supervisor) writes
 * it once to a file readable only by the user it runs as (`BURROW_PARTNER_PASSWORD_FILE`, default
 * `<BURROW_DATA_DIR>/first-partner-password`, mode 0600) and logs only the file's path.
 */
import { Streams } from '@burrow/contracts';
import { appendEvents, handleCommand } from '@burrow/eventsourcing';
import { WrongExpectedRevisionError } from '@burrow/event-store';
import type { BurrowConfig } from '@burrow/runtime';
import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { PartnersHandlers } from './partners/partners.handlers.js';
import { loadInitialPlans } from './plans/default-plans.js';
import { planCatalogue } from './plans/plan-catalogue.js';
import type { AccountsContext } from './context.js';

export async function seedPlans(ctx: AccountsContext, config: BurrowConfig): Promise<void> {
  const plans = await loadInitialPlans(config.plansFile);
  const result = await handleCommand(ctx.store, Streams.planCatalogue, planCatalogue, { type: 'SeedCatalogue', plans });
  await ctx.runner.waitFor(result.position);
}

/** Where a generated first password is shown: the console (standalone), or a file of the operator's (a service process). */
export type FirstPasswordTo = 'console' | 'file';

/** Writes `password` to `file`, readable and writable by this user only, replacing any file there at once. */
async function writeOperatorFile(file: string, password: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${password}\n`, { mode: 0o600, flag: 'wx' });
  await rename(temporary, file);
}

export async function bootstrapPartner(
  ctx: AccountsContext,
  config: BurrowConfig,
  partners: PartnersHandlers,
  passwordTo: FirstPasswordTo = 'console',
): Promise<void> {
  const existing = await ctx.store.readStream(Streams.bootstrap, { maxCount: 1 });
  if (existing.length) return;
  const username = config.partnerUsername ?? 'partner';
  const generated = config.partnerPassword === undefined;
  const password = config.partnerPassword ?? randomBytes(15).toString('base64url');
  try {
    // The marker holds no secret: only who was bootstrapped.
    await appendEvents(
      ctx.store,
      Streams.bootstrap,
      [{ type: 'OperatorBootstrapped', data: { username } }],
      'no_stream',
    );
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) return;
    throw error;
  }
  // the file first: a password nobody can read would leave a partner nobody can use
  if (generated && passwordTo === 'file') await writeOperatorFile(config.partnerPasswordFile, password);
  await partners.create({ username, password, company_name: username, bytes_available: null });
  ctx.log.info({ username }, 'first partner created');
  if (generated && passwordTo === 'file') {
    ctx.log.warn(
      { username, file: config.partnerPasswordFile },
      'the first partner has a generated password: it is in this file, readable only by this user; read it, then delete the file',
    );
  } else if (generated) {
    // Printed once, to the console only (never to the structured log).
    process.stdout.write(
      `\n  Burrow first start: partner account created\n    username: ${username}\n    password: ${password}\n  Keep it now; it is not shown again.\n\n`,
    );
  }
}
