/** Composition of the billing service. */
import { type Infrastructure, startService } from '@burrow/runtime';
import { type INestMicroservice, Module } from '@nestjs/common';
import { BILLING_CONTEXT, HealthHandlers } from './health.handlers.js';

@Module({})
class BillingModule {}

export async function startBilling(infra: Infrastructure): Promise<{ app: INestMicroservice; close(): Promise<void> }> {
  const store = await infra.eventStore();
  const app = await startService(
    'billing',
    { module: BillingModule, controllers: [HealthHandlers], providers: [{ provide: BILLING_CONTEXT, useValue: { store } }] },
    infra,
  );
  return { app, close: () => app.close() };
}
