/**
 * Composition of the billing service: adapters from the infrastructure, the billing projection,
 * the card processor, handlers. Used by this app's own process entry (`main.ts`) and by the
 * standalone process.
 */
import { type Clock, type Infrastructure, startReadModels, startService, systemClock } from '@burrow/runtime';
import { type DynamicModule, type INestMicroservice, Module } from '@nestjs/common';
import { ApplianceBillingHandlers } from './appliance-billing/appliance-billing.handlers.js';
import { BillingHandlers } from './billing-information/billing.handlers.js';
import { billingProjection } from './billing-information/billing.projection.js';
import type { CardProcessor } from './card-processor/card-processor.js';
import { LocalCardProcessor } from './card-processor/local-card-processor.js';
import { BILLING_CONTEXT, type BillingContext } from './context.js';
import { billingHealth, HealthHandlers } from './health.handlers.js';

@Module({})
class BillingModule {}

export interface BillingOptions {
  /** defaults to the embedded deterministic processor */
  processor?: CardProcessor;
  clock?: Clock;
}

export async function startBilling(
  infra: Infrastructure,
  options: BillingOptions = {},
): Promise<{ app: INestMicroservice; close(): Promise<void> }> {
  const log = infra.logger('billing');
  const { store, docs, runner } = await startReadModels(infra, 'billing', log, [billingProjection()]);
  const ctx: BillingContext = {
    store,
    docs,
    runner,
    processor: options.processor ?? new LocalCardProcessor(),
    clock: options.clock ?? systemClock,
    log,
  };
  const module: DynamicModule = {
    module: BillingModule,
    controllers: [HealthHandlers, BillingHandlers, ApplianceBillingHandlers],
    providers: [{ provide: BILLING_CONTEXT, useValue: ctx }],
  };
  const app = await startService('billing', module, infra);
  await infra.reportHealth('billing', () => billingHealth(ctx));
  return {
    app,
    close: async () => {
      await app.close();
      await runner.stop();
    },
  };
}
