/**
 * Composition of the accounts service: adapters from the infrastructure, projections, the log and
 * recovery of multi-step writes, and the bus handlers. Used by this app's own process entry
 * (`main.ts`) and by the standalone process.
 */
import { DEFAULT_SCRYPT_N, setPasswordHashCost } from './logins/password-hash.js';
import { ProcessRecovery, pendingProcessesProjection, type Projection } from '@burrow/eventsourcing';
import {
  type Infrastructure,
  loggedRecovery,
  ReplicaRegistry,
  SessionForgets,
  startEventSourced,
  startService,
  systemClock,
} from '@burrow/runtime';
import { ForgetSessionsAfterWrites, forgettingAfter, notingAppends } from './logins/forget-sessions.js';
import { type DynamicModule, type INestMicroservice, Module } from '@nestjs/common';
import { bootstrapPartner, type FirstPasswordTo, seedPlans } from './bootstrap.js';
import { DevicePoliciesHandlers } from './device-policies/device-policies.handlers.js';
import { devicePoliciesProjection } from './read-models/device-policies.projection.js';
import { closeActivityHours } from './feed/activity-summaries.js';
import { FeedSignals } from './feed/feed-signals.js';
import { FeedHandlers } from './feed/feed.handlers.js';
import { feedProjection } from './feed/feed.projection.js';
import { createGroupProcess, deleteGroupProcess, updateGroupProcess } from './groups/group-processes.js';
import { GroupsHandlers } from './groups/groups.handlers.js';
import { groupsProjection } from './read-models/groups.projection.js';
import { LoginThrottle } from './logins/login-throttle.js';
import { OperationsHandlers, WRITE_RECOVERY } from './operations/operations.handlers.js';
import { PartnerBackupsHandlers } from './partner-backups/partner-backups.handlers.js';
import { partnerBackupsProjection } from './partner-backups/partner-backups.projection.js';
import { reservationsProjection } from './operations/reservations.projection.js';
import { createPartnerProcess } from './partners/create-partner.process.js';
import { PartnerAuthentication, PartnerCredentialsGuard } from './partners/partner-authentication.js';
import { PartnersHandlers } from './partners/partners.handlers.js';
import { partnersProjection } from './partners/partners.projection.js';
import { PlansHandlers } from './plans/plans.handlers.js';
import { plansProjection } from './plans/plans.projection.js';
import { ReportsHandlers } from './reports/reports.handlers.js';
import { ACCOUNTS_CONTEXT, type AccountsContext } from './context.js';
import { SharePasswordsHandlers } from './share-passwords/share-passwords.handlers.js';
import { accountsHealth, HealthHandlers } from './shared/health.handlers.js';
import { storageUsageProjection } from './storage-usage/storage-usage.projection.js';
import { ActivationMailLimit } from './users/activation-limit.js';
import { changeUserProcess } from './users/change-user.js';
import { createUserProcess } from './users/create-user.process.js';
import { deleteUserProcess } from './users/delete-user.process.js';
import { userCredentialsProjection } from './users/user-credentials.projection.js';
import { allocationsProjection } from './quota/allocation.projection.js';
import { UserLoginHandlers } from './users/user-login.handlers.js';
import { SetPasswordHandlers } from './users/set-password.handlers.js';
import { UsersHandlers } from './users/users.handlers.js';
import { usersProjection } from './read-models/users.projection.js';
import { DeliveryWorker, leaseBucketName, leaseTtlMs } from './webhooks/delivery-worker.js';
import type { WebhookSettings } from './webhooks/webhook-settings.js';
import { HttpDelivery } from './webhooks/http-delivery.js';
import { WebhooksHandlers } from './webhooks/webhooks.handlers.js';
import { webhooksProjection } from './webhooks/webhooks.projection.js';

@Module({})
class AccountsModule {}

export interface RunningService {
  app: INestMicroservice;
  close(): Promise<void>;
}

/** The accounts service's multi-step writes, by kind (what recovery can finish). */
export const accountsProcesses = (ctx: AccountsContext) => [
  createPartnerProcess(ctx),
  createUserProcess(ctx),
  changeUserProcess(ctx),
  deleteUserProcess(ctx),
  createGroupProcess(ctx),
  updateGroupProcess(ctx),
  deleteGroupProcess(ctx),
];

/**
 * The accounts service's read models, one projection each, fed by one runner. The feed comes
 * before webhooks: on each event the webhooks projection reads the feed entries it just made.
 */
export const accountsProjections = (signals?: FeedSignals): Projection[] => [
  plansProjection(),
  partnersProjection(),
  groupsProjection(),
  usersProjection(),
  userCredentialsProjection(),
  storageUsageProjection(),
  allocationsProjection(),
  pendingProcessesProjection('accounts'),
  reservationsProjection(),
  devicePoliciesProjection(),
  partnerBackupsProjection(),
  feedProjection(signals),
  webhooksProjection(signals),
];

/** The webhook settings of the configuration. */
export const webhookSettings = (config: Infrastructure['config']): WebhookSettings => ({
  allowHttp: config.webhooks.allowHttp,
  allowPrivate: config.webhooks.allowPrivateAddresses,
  retry: {
    baseMs: config.webhooks.retryBaseMs,
    maxDelayMs: 3_600_000,
    windowMs: config.webhooks.retryWindowSeconds * 1000,
  },
  disableAfterMs: config.webhooks.disableAfterSeconds * 1000,
  timeoutMs: config.webhooks.timeoutMs,
  concurrency: config.webhooks.concurrency,
  perPartner: config.webhooks.concurrencyPerPartner,
  perEndpoint: config.webhooks.concurrencyPerEndpoint,
});

/** How often each replica closes the hours of backup activity that are over (and the grace after each hour). */
const ACTIVITY_SUMMARY_INTERVAL_MS = 60_000;
const ACTIVITY_SUMMARY_GRACE_MS = 60_000;

export interface AccountsOptions {
  /** where a generated first partner password goes (bootstrap.ts): the console unless told otherwise */
  firstPasswordTo?: FirstPasswordTo;
}

export async function startAccounts(infra: Infrastructure, options: AccountsOptions = {}): Promise<RunningService> {
  const log = infra.logger('accounts');
  setPasswordHashCost(infra.config.passwordScryptN);
  if (infra.config.passwordScryptN < DEFAULT_SCRYPT_N)
    log.warn(
      { scryptN: infra.config.passwordScryptN },
      `BURROW_PASSWORD_SCRYPT_N is below the default (${DEFAULT_SCRYPT_N}): new password hashes are cheaper to crack`,
    );
  // opened at start, so a NATS server without JetStream stops the service with a clear message
  const logins = await LoginThrottle.open(await infra.keyValues(), { secret: infra.secret, log });
  const signals = new FeedSignals();
  const { store, docs, runner, processes } = await startEventSourced(
    infra,
    'accounts',
    log,
    accountsProjections(signals),
    {
      waitForEnds: true,
      // a group's members follow its plan change after the reply, noting that they are at it well
      // within the recovery grace (recovery leaves them be); recovery finishes one that fails
      activeEveryMs: Math.max(200, Math.min(20_000, (infra.config.recoveryGraceSeconds * 1000) / 3)),
      onBackgroundError: (kind, processId, error) =>
        log.error(
          { kind, processId, err: { message: error.message } },
          'a write completing after its reply failed; recovery will finish it',
        ),
      // what a handler appends to users, groups and partners is forgotten by the gateways before it answers (forget-sessions.ts)
      writes: notingAppends,
    },
  );
  const ctx: AccountsContext = {
    store,
    docs,
    runner,
    processes,
    clock: systemClock,
    secret: infra.secret,
    log,
    logins,
    mailer: infra.mailer(),
    setPasswordLinks: {
      publicUrl: infra.config.publicUrl,
      ttlSeconds: infra.config.setPasswordLinkTtlSeconds,
      limit: await ActivationMailLimit.open(await infra.keyValues(), infra.config.activationMail),
    },
    signals,
    webhooks: webhookSettings(infra.config),
  };
  const recovery = new ProcessRecovery(processes, docs, accountsProcesses(ctx), infra.config.recoveryGraceSeconds);
  const recoverLogged = loggedRecovery(recovery, log);
  // one per process: the authenticate handler and the guard share its verified-credential cache
  const partnerAuthentication = new PartnerAuthentication(ctx);
  const module: DynamicModule = {
    module: AccountsModule,
    controllers: [
      HealthHandlers,
      PlansHandlers,
      PartnersHandlers,
      GroupsHandlers,
      UsersHandlers,
      UserLoginHandlers,
      SetPasswordHandlers,
      ReportsHandlers,
      OperationsHandlers,
      DevicePoliciesHandlers,
      PartnerBackupsHandlers,
      FeedHandlers,
      WebhooksHandlers,
      SharePasswordsHandlers,
    ],
    providers: [
      { provide: ACCOUNTS_CONTEXT, useValue: ctx },
      { provide: WRITE_RECOVERY, useValue: recovery },
      { provide: PartnerAuthentication, useValue: partnerAuthentication },
    ],
  };
  // Everything the service needs from the bus is opened before it listens: once it answers, a bus
  // outage must find it reconnecting, not still starting (a bucket open failing then ends the process).
  const leases = await (
    await infra.keyValues()
  ).bucket<string>(leaseBucketName(ctx.webhooks), { ttlMs: leaseTtlMs(ctx.webhooks) });
  // the gateways heard from (their replica reports): those a write waits for
  const broadcasts = await infra.broadcasts();
  const gateways = new ReplicaRegistry(broadcasts);
  const forgets = new SessionForgets(broadcasts, gateways);
  // A predecessor killed between a write's append and its forget left the gateways remembering what
  // it changed (a password, a disable, a deletion), and nothing says what that was: they forget it
  // all, before this process answers anything. Only at start, and cheap: each remembered login
  // costs one more check.
  await forgets.forget({ all: true });
  const app = await startService('accounts', module, infra, {
    hooks: [new PartnerCredentialsGuard(partnerAuthentication), new ForgetSessionsAfterWrites(forgets)],
  });
  await infra.reportHealth('accounts', () => accountsHealth(ctx));
  // what start-up and recovery write outside a request is forgotten by the gateways too (forget-sessions.ts)
  const forgetting = <T>(work: () => Promise<T>) => forgettingAfter(forgets, () => runner.catchUp(), work);
  await forgetting(async () => {
    await seedPlans(ctx, infra.config);
    await bootstrapPartner(ctx, infra.config, app.get(PartnersHandlers), options.firstPasswordTo);
  });
  const recover = () => forgetting(recoverLogged);
  await recover();
  const timer = setInterval(() => void recover(), infra.config.recoveryIntervalMs);
  timer.unref();
  const summarise = () =>
    closeActivityHours(ctx, ACTIVITY_SUMMARY_GRACE_MS).catch((error: Error) =>
      log.error({ err: { message: error.message } }, 'closing hours of backup activity failed'),
    );
  const summaries = setInterval(() => void summarise(), ACTIVITY_SUMMARY_INTERVAL_MS);
  summaries.unref();
  // pending deliveries are in the read models (rebuilt from the log): the worker resumes them
  const sender = new HttpDelivery({
    allowHttp: ctx.webhooks.allowHttp,
    allowPrivate: ctx.webhooks.allowPrivate,
    timeoutMs: ctx.webhooks.timeoutMs,
  });
  const worker = new DeliveryWorker(ctx, ctx.webhooks, leases, sender);
  worker.start();
  return {
    app,
    close: async () => {
      clearInterval(timer);
      clearInterval(summaries);
      await worker.stop();
      await sender.close();
      await app.close();
      forgets.close();
      gateways.close();
      await runner.stop();
    },
  };
}
