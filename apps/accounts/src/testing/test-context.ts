/**
 * The accounts service as its integration tests drive it: the context `accounts.service.ts` builds
 * (the same projections, the ProcessLog of service 'accounts', recovery of every process kind) on
 * a SQLite event store in a temp dir and in-memory read models, with a fixed clock and a fault
 * hook, and the handlers called directly (no Nest, no bus). Opening it again on the same `dir` is a
 * restart: the read models are rebuilt from the store, as in standalone mode.
 *
 * Not a test file: the tests beside each feature import it. It lives in `testing/`, which no
 * production module may import and the image leaves out (see docs/decisions.md, "Test harnesses").
 */
import { type DeviceEvent, type FileEvent, type PartnerInfo, type ShareEvent, Streams } from '@burrow/contracts';
import { MemoryDocumentStore } from '@burrow/documents';
import { SqliteEventStore } from '@burrow/event-store';
import {
  appendEvents,
  committed,
  type FaultHook,
  handleCommand,
  loadAggregate,
  ProcessLog,
  ProcessRecovery,
  processStream,
  ProjectionRunner,
  reservationHolder,
} from '@burrow/eventsourcing';
import { MemoryKeyValueStore } from '@burrow/kv';
import { EmlFolderMailer, type Mailer } from '@burrow/mailer';
import { createLogger } from '@burrow/runtime';
import { TestLeftovers } from '@burrow/testing/leftovers';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accountsProcesses, accountsProjections } from '../accounts.service.js';
import { setPasswordHashCost } from '../logins/password-hash.js';
import { FeedSignals } from '../feed/feed-signals.js';
import type { WebhookSettings } from '../webhooks/webhook-settings.js';
import { DevicePoliciesHandlers } from '../device-policies/device-policies.handlers.js';
import { PartnerBackupsHandlers } from '../partner-backups/partner-backups.handlers.js';
import { groupNameReservation } from '../groups/group-processes.js';
import { GroupsHandlers } from '../groups/groups.handlers.js';
import { LoginThrottle } from '../logins/login-throttle.js';
import { partnerNameReservation } from '../partners/create-partner.process.js';
import { PartnersHandlers } from '../partners/partners.handlers.js';
import { DEFAULT_PLANS } from '../plans/default-plans.js';
import { planCatalogue, type PlanDefinition } from '../plans/plan-catalogue.js';
import { PlansHandlers } from '../plans/plans.handlers.js';
import { planMap } from '../plans/plans.projection.js';
import { allocatedBytes, allocationOf } from '../quota/allocation.js';
import { ReportsHandlers } from '../reports/reports.handlers.js';
import { ActivationMailLimit } from '../users/activation-limit.js';
import { emailReservation, usernameReservation } from '../users/name-reservations.js';
import { SetPasswordHandlers } from '../users/set-password.handlers.js';
import { UsersHandlers } from '../users/users.handlers.js';
import { userDecider } from '../users/user.js';
import { usersCollection } from '../read-models/users.projection.js';
import type { AccountsContext } from '../context.js';

/** 2026-03-15 12:00 UTC, in unix seconds. */
export const TEST_NOW = Date.UTC(2026, 2, 15, 12) / 1000;
export const GB = 1_000_000_000;

export interface TestAccountsOptions {
  /** the files of an earlier context (a restart); default: a new temp dir */
  dir?: string;
  /** what the clock says (unix seconds); default TEST_NOW */
  now?: () => number;
  /** passed to the ProcessLog: called at every step boundary of every process */
  faults?: FaultHook;
  /** seeded as the first start does (a no-op once the catalogue has plans); default DEFAULT_PLANS */
  plans?: PlanDefinition[];
  /** where mail goes; default `.eml` files in `<dir>/mail` (the embedded adapter) */
  mailer?: Mailer;
  /** webhook settings; default TEST_WEBHOOKS */
  webhooks?: Partial<WebhookSettings>;
}

/** Webhooks as tests run them: http and loopback receivers allowed, retries in milliseconds. */
export const TEST_WEBHOOKS: WebhookSettings = {
  allowHttp: true,
  allowPrivate: true,
  retry: { baseMs: 20, maxDelayMs: 3_600_000, windowMs: 86_400_000 },
  disableAfterMs: 3 * 86_400_000,
  timeoutMs: 2000,
  concurrency: 4,
  perPartner: 4,
  perEndpoint: 2,
};

/** The base URL of set-password links in the test context (BURROW_PUBLIC_URL). */
export const TEST_PUBLIC_URL = 'https://backup.example.test';
export const TEST_LINK_TTL = 3 * 86_400;
export const TEST_MAIL_SENDER = { name: 'Burrow', address: 'noreply@backup.example.test' };

export interface NewPartner extends PartnerInfo {
  password: string;
}

export interface CreatePartnerInput {
  username?: string;
  password?: string;
  company_name?: string;
  brand_identifier?: string;
  bytes_available?: number | null;
  features?: Record<string, boolean>;
}

export interface TestAccounts {
  dir: string;
  ctx: AccountsContext;
  store: SqliteEventStore;
  docs: MemoryDocumentStore;
  runner: ProjectionRunner;
  processes: ProcessLog;
  users: UsersHandlers;
  groups: GroupsHandlers;
  partners: PartnersHandlers;
  plans: PlansHandlers;
  reports: ReportsHandlers;
  devicePolicies: DevicePoliciesHandlers;
  partnerBackups: PartnerBackupsHandlers;
  setPassword: SetPasswordHandlers;
  /** recovery of every accounts process, as the service runs it, with this grace */
  recovery(graceSeconds?: number): ProcessRecovery;
  /** a partner with a unique username (unlimited bytes unless given) */
  createPartner(input?: CreatePartnerInput): Promise<NewPartner>;
  /** the partner's allocation ledger total, read from the store */
  allocated(partnerId: string): Promise<number>;
  /** who holds a name: the user id for usernames and emails, the writer for group and partner names */
  holder(kind: 'username' | 'email' | 'partnername', name: string): Promise<string | null>;
  groupNameHolder(partnerId: string, name: string): Promise<string | null>;
  /** the id of the live user with this username (from the read model) */
  userIdOf(username: string): Promise<string>;
  /** appends storage catalog events (`device-<id>`, `share-<userId>`) as that service does, then waits for the read models */
  storageEvents(stream: string, events: (DeviceEvent | FileEvent | ShareEvent)[]): Promise<void>;
  /** stops the runner and closes the store; removes the files unless kept (for a restart) */
  close(options?: { keepFiles?: boolean }): Promise<void>;
}

/**
 * The group handlers as the integration tests use them: a plan change (or a delete that moves
 * members) answers at its commit point and the members follow after the reply (issue 39); these
 * answer once they have, so a test reads what the members became. A request stopped by a crash
 * point in what follows (a frozen completion) never answers, as a killed process would not.
 */
function settlingGroups(groups: GroupsHandlers, processes: ProcessLog): GroupsHandlers {
  const update = groups.update.bind(groups);
  const remove = groups.delete.bind(groups);
  groups.update = async (req) => {
    await update(req);
    await processes.idle();
    return groups.get({ partnerId: req.partnerId, group_id: req.group_id });
  };
  groups.delete = async (req) => {
    const reply = await remove(req);
    await processes.idle();
    return reply;
  };
  return groups;
}

let partnerCount = 0;
/** what is still open or on disk, for `cleanUpTestAccounts` after a test that failed half way */
const leftovers = new TestLeftovers<TestAccounts>();

// the integration tests hash many passwords: scrypt at its lowest cost (password-hash.test.ts checks the default)
setPasswordHashCost(1024);

export async function startTestAccounts(options: TestAccountsOptions = {}): Promise<TestAccounts> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'burrow-accounts-')));
  leftovers.addDir(dir);
  const store = SqliteEventStore.open(join(dir, 'events.sqlite'), { pollIntervalMs: 20 });
  const docs = new MemoryDocumentStore();
  const log = createLogger('accounts', 'silent');
  const signals = new FeedSignals();
  const runner = new ProjectionRunner(store, docs, accountsProjections(signals), {
    log: (level, msg, extra) => log[level](extra ?? {}, msg),
  });
  await runner.start();
  const clock = { now: options.now ?? (() => TEST_NOW) };
  const processes = new ProcessLog(store, 'accounts', {
    now: clock.now,
    faults: options.faults,
    ended: (position) => runner.waitFor(position),
    waitFor: (position) => runner.waitFor(position),
  });
  const logins = await LoginThrottle.open(new MemoryKeyValueStore(), {
    secret: 'test-secret',
    log,
    now: () => clock.now() * 1000,
  });
  const mailer = options.mailer ?? new EmlFolderMailer(join(dir, 'mail'), TEST_MAIL_SENDER);
  const limit = await ActivationMailLimit.open(new MemoryKeyValueStore(), {
    perUser: 1000,
    perPartner: 1000,
    windowSeconds: 3600,
    now: () => clock.now() * 1000,
  });
  const setPasswordLinks = { publicUrl: TEST_PUBLIC_URL, ttlSeconds: TEST_LINK_TTL, limit };
  const ctx: AccountsContext = {
    store,
    docs,
    runner,
    processes,
    clock,
    secret: 'test-secret',
    log,
    logins,
    mailer,
    setPasswordLinks,
    signals,
    webhooks: { ...TEST_WEBHOOKS, ...options.webhooks },
  };
  const seeded = await handleCommand(store, Streams.planCatalogue, planCatalogue, {
    type: 'SeedCatalogue',
    plans: options.plans ?? DEFAULT_PLANS,
  });
  await runner.waitFor(seeded.position);
  const partners = new PartnersHandlers(ctx);

  const accounts: TestAccounts = {
    dir,
    ctx,
    store,
    docs,
    runner,
    processes,
    partners,
    users: new UsersHandlers(ctx),
    groups: settlingGroups(new GroupsHandlers(ctx), processes),
    plans: new PlansHandlers(ctx),
    reports: new ReportsHandlers(ctx),
    devicePolicies: new DevicePoliciesHandlers(ctx),
    partnerBackups: new PartnerBackupsHandlers(ctx),
    setPassword: new SetPasswordHandlers(ctx),
    recovery: (graceSeconds = 0) => new ProcessRecovery(processes, docs, accountsProcesses(ctx), graceSeconds),
    async createPartner(input = {}) {
      partnerCount += 1;
      const username = input.username ?? `partner${partnerCount}-${process.pid}`;
      const password = input.password ?? `${username}-password`;
      const info = await partners.create({
        company_name: `${username} Ltd`,
        bytes_available: null,
        ...input,
        username,
        password,
      });
      return { ...info, password };
    },
    allocated: (partnerId) => allocatedBytes(store, partnerId),
    holder(kind, name) {
      const stream =
        kind === 'username'
          ? usernameReservation(name)
          : kind === 'email'
            ? emailReservation(name)
            : partnerNameReservation(name);
      return reservationHolder(store, stream);
    },
    groupNameHolder: (partnerId, name) => reservationHolder(store, groupNameReservation(partnerId, name)),
    async userIdOf(username) {
      const doc = await usersCollection(docs).findOne({ usernameKey: username.toLowerCase() });
      assert.ok(doc, `no user ${username}`);
      return doc._id;
    },
    async storageEvents(stream, events) {
      const { position } = await appendEvents(store, stream, events, 'any');
      await runner.waitFor(position);
    },
    async close({ keepFiles = false } = {}) {
      leftovers.closed(accounts);
      await runner.stop();
      await store.close();
      if (!keepFiles) await leftovers.removeDir(dir);
    },
  };
  leftovers.opened(accounts);
  return accounts;
}

/** Closes every context still open and removes every temp dir left (after a failed test). */
export const cleanUpTestAccounts = (): Promise<void> => leftovers.cleanUp();

export { expectError } from '@burrow/testing/expect-error';

// the crash points are shared with every service's crash tests
export { committed, type Crash, crashAt, stepsOf, untilCrashed } from '@burrow/eventsourcing';

/** What a restart finds: the files of `t`, closed as a killed process leaves them, opened by `replicas` new contexts. */
export async function restart(t: TestAccounts, replicas = 1): Promise<TestAccounts[]> {
  await t.close({ keepFiles: true });
  const started: TestAccounts[] = [];
  for (let i = 0; i < replicas; i++) started.push(await startTestAccounts({ dir: t.dir }));
  return started;
}

export interface Recovered {
  t: TestAccounts;
  processId: string;
}

/**
 * Restarts `crashed` as two replicas, checks exactly one process of `kind` is pending, runs both
 * recoveries at once and checks it was settled once, the expected way. Returns the first replica.
 */
export async function recoverOnRestart(crashed: TestAccounts, kind: string, point: string): Promise<Recovered> {
  const [t, replica] = await restart(crashed, 2);
  const pending = await t.recovery().pending();
  assert.deepEqual(
    pending.map((p) => p.kind),
    [kind],
  );
  const processId = pending[0]._id;
  const reports = await Promise.all([t.recovery(0).run(), replica.recovery(0).run()]);
  await replica.close({ keepFiles: true });
  assert.deepEqual(
    reports.flatMap((r) => r.failed),
    [],
  );
  const settled = (committed(point) ? reports.flatMap((r) => r.completed) : reports.flatMap((r) => r.compensated)).map(
    (p) => p.id,
  );
  assert.deepEqual(settled, [processId], 'settled once, the expected way');
  assert.deepEqual(
    reports.flatMap((r) => (committed(point) ? r.compensated : r.completed)),
    [],
  );

  await t.runner.catchUp();
  assert.deepEqual(await t.recovery().pending(), []);
  const ends = (await t.store.readStream(processStream('accounts', processId))).filter(
    (e) => e.type === 'ProcessCompleted' || e.type === 'ProcessCompensated',
  );
  assert.deepEqual(
    ends.map((e) => e.type),
    [committed(point) ? 'ProcessCompleted' : 'ProcessCompensated'],
  );
  return { t, processId };
}

/**
 * The accounts invariants, from the store: the ledger total is exactly what the partner's live
 * users take (plan + bonus each), and every live user holds its username and email.
 */
export async function assertConsistent(t: TestAccounts, partnerId: string): Promise<void> {
  await t.runner.catchUp();
  const plans = await planMap(t.docs);
  const users = await usersCollection(t.docs).find({ partnerId });
  let expected = 0;
  for (const u of users) {
    const { state } = await loadAggregate(t.store, Streams.user(u._id), userDecider);
    assert.ok(state.exists && !state.deleted, `read model and stream agree on ${u.username}`);
    assert.deepEqual(
      [state.email, state.plan_id, state.bonus_bytes],
      [u.email, u.plan_id, u.bonus_bytes],
      `read model of ${u.username}`,
    );
    expected += allocationOf(plans.get(state.plan_id), state.bonus_bytes);
    assert.equal(await t.holder('username', state.username), u._id, `username of ${state.username}`);
    assert.equal(await t.holder('email', state.email), u._id, `email of ${state.username}`);
    // one login namespace: a username with @ holds its email stream too
    if (state.username.includes('@'))
      assert.equal(await t.holder('email', state.username), u._id, `username of ${state.username} as an email`);
  }
  assert.equal(await t.allocated(partnerId), expected, 'the ledger total is what the live users take');
}
