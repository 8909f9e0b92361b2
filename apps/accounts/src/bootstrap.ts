/**
 * First-start work: seed the plan catalogue and create the first partner (credentials from the
 * environment, or generated and printed once). Safe when several replicas start together: the
 * catalogue and the bootstrap marker are guarded by optimistic concurrency.
 */
import { Streams } from '@burrow/contracts';
import { appendEvents, handleCommand } from '@burrow/eventsourcing';
import { WrongExpectedRevisionError } from '@burrow/event-store';
import type { BurrowConfig } from '@burrow/runtime';
import { randomBytes } from 'node:crypto';
import type { PartnersHandlers } from './partners/partners.handlers.js';
import { loadInitialPlans } from './plans/default-plans.js';
import { planCatalogue } from './plans/plan-catalogue.js';
import type { AccountsContext } from './shared/context.js';


export async function seedPlans(ctx: AccountsContext, config: BurrowConfig): Promise<void> {
  const plans = await loadInitialPlans(config.plansFile);
  const result = await handleCommand(ctx.store, Streams.planCatalogue, planCatalogue, { type: 'SeedCatalogue', plans });
  await ctx.runner.waitFor(result.position);
}

export async function bootstrapPartner(ctx: AccountsContext, config: BurrowConfig, partners: PartnersHandlers): Promise<void> {
  const existing = await ctx.store.readStream(Streams.bootstrap, { maxCount: 1 });
  if (existing.length) return;
  const username = config.partnerUsername ?? 'partner';
  const generated = config.partnerPassword === undefined;
  const password = config.partnerPassword ?? randomBytes(15).toString('base64url');
  try {
    // The marker holds no secret: only who was bootstrapped.
    await appendEvents(ctx.store, Streams.bootstrap, [{ type: 'OperatorBootstrapped', data: { username } }], 'no_stream');
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) return;
    throw error;
  }
  await partners.create({ username, password, company_name: username, bytes_available: null });
  ctx.log.info({ username }, 'first partner created');
  if (generated) {
    // Printed once, to the console only (never to the structured log).
    process.stdout.write(
      `\n  Burrow first start: partner account created\n    username: ${username}\n    password: ${password}\n  Keep it now; it is not shown again.\n\n`,
    );
  }
}
