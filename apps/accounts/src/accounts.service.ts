/**
 * Composition of the accounts service: adapters from the infrastructure, projections, handlers.
 * Used by this app's own process entry (`main.ts`) and by the standalone process.
 */
import { ProjectionRunner } from '@burrow/eventsourcing';
import { type Infrastructure, startService } from '@burrow/runtime';
import { type DynamicModule, type INestMicroservice, Module } from '@nestjs/common';
import { bootstrapPartner, seedPlans } from './bootstrap.js';
import { GroupsHandlers } from './groups/groups.handlers.js';
import { groupsProjection } from './groups/groups.projection.js';
import { PartnersHandlers } from './partners/partners.handlers.js';
import { partnersProjection } from './partners/partners.projection.js';
import { PlansHandlers } from './plans/plans.handlers.js';
import { plansProjection } from './plans/plans.projection.js';
import { ReportsHandlers } from './reports/reports.handlers.js';
import { ACCOUNTS_CONTEXT, type AccountsContext, systemClock } from './shared/context.js';
import { HealthHandlers } from './shared/health.handlers.js';
import { storageUsageProjection } from './storage-usage/storage-usage.projection.js';
import { UsersHandlers } from './users/users.handlers.js';
import { usersProjection } from './users/users.projection.js';

@Module({})
class AccountsModule {}

export interface RunningService {
  app: INestMicroservice;
  close(): Promise<void>;
}

export async function startAccounts(infra: Infrastructure): Promise<RunningService> {
  const log = infra.logger('accounts');
  const store = await infra.eventStore();
  const docs = await infra.documents('accounts');
  const runner = new ProjectionRunner(
    store,
    docs,
    [plansProjection(docs), partnersProjection(docs), groupsProjection(docs), usersProjection(docs), storageUsageProjection(docs)],
    { log: (level, msg, extra) => log[level](extra ?? {}, msg) },
  );
  await runner.start();
  const ctx: AccountsContext = { store, docs, runner, clock: systemClock, secret: infra.secret, log };
  const module: DynamicModule = {
    module: AccountsModule,
    controllers: [HealthHandlers, PlansHandlers, PartnersHandlers, GroupsHandlers, UsersHandlers, ReportsHandlers],
    providers: [{ provide: ACCOUNTS_CONTEXT, useValue: ctx }],
  };
  const app = await startService('accounts', module, infra);
  await seedPlans(ctx, infra.config);
  await bootstrapPartner(ctx, infra.config, app.get(PartnersHandlers));
  return {
    app,
    close: async () => {
      await app.close();
      await runner.stop();
    },
  };
}
