/**
 * The operator's reservation and recovery handlers against the embedded event store and in-memory
 * read models, with the accounts context built as accounts.service.ts builds it and a fixed clock:
 * a stuck reservation (what a crash before the multi-step write was recorded leaves) is listed,
 * released and its name used again; live and in-flight ones are refused without force; recovery
 * run on demand undoes a crashed create.
 */
import { type ReservationRecord, Streams } from '@burrow/contracts';
import { MemoryDocumentStore } from '@burrow/documents';
import { SqliteEventStore } from '@burrow/event-store';
import {
  appendEvents,
  crashAt,
  type NameReserved,
  pendingProcessesCollection,
  ProcessLog,
  ProcessRecovery,
  ProjectionRunner,
  reservationHolder,
  untilCrashed,
} from '@burrow/eventsourcing';
import { MemoryKeyValueStore } from '@burrow/kv';
import { expectError } from '@burrow/testing/expect-error';
import { ActivationMailLimit } from '../users/activation-limit.js';
import { type BurrowConfig, createLogger } from '@burrow/runtime';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { accountsProcesses, accountsProjections } from '../accounts.service.js';
import { seedPlans } from '../bootstrap.js';
import { GroupsHandlers } from '../groups/groups.handlers.js';
import { LoginThrottle } from '../logins/login-throttle.js';
import { PartnersHandlers } from '../partners/partners.handlers.js';
import type { AccountsContext } from '../context.js';
import { usernameReservation } from '../users/name-reservations.js';
import { UsersHandlers } from '../users/users.handlers.js';
import { usersCollection } from '../read-models/users.projection.js';
import { OperationsHandlers } from './operations.handlers.js';
import { EmlFolderMailer } from '@burrow/mailer';
import { FeedSignals } from '../feed/feed-signals.js';
import { TEST_WEBHOOKS } from '../testing/test-context.js';

const NOW = Date.UTC(2026, 2, 15, 12) / 1000;
const GRACE_SECONDS = 60;

describe('operator handlers: reservations and unfinished writes', () => {
  let dir: string;
  let store: SqliteEventStore;
  let runner: ProjectionRunner;
  let ctx: AccountsContext;
  let ops: OperationsHandlers;
  let users: UsersHandlers;
  let groups: GroupsHandlers;
  let partnerId: string;
  const logLines: string[] = [];
  const crash = crashAt('CreateUser:reserve-username:after');

  /** What a crash between reserving a name and recording the write leaves: a name nobody owns. */
  const strandName = (stream: string, owner = randomUUID()) =>
    appendEvents(store, stream, [{ type: 'NameReserved', data: { owner } } satisfies NameReserved], 'no_stream');
  const listed = async (request: object = {}): Promise<ReservationRecord[]> =>
    (await ops.listReservations(request)).reservations;
  const find = (records: ReservationRecord[], kind: string, name: string) =>
    records.find((r) => r.kind === kind && r.name === name);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'burrow-operations-'));
    store = SqliteEventStore.open(join(dir, 'events.sqlite'), { pollIntervalMs: 20 });
    const docs = new MemoryDocumentStore();
    runner = new ProjectionRunner(store, docs, accountsProjections());
    await runner.start();
    const log = createLogger('accounts', 'info', { write: (line: string) => void logLines.push(line) });
    const processes = new ProcessLog(store, 'accounts', {
      now: () => NOW,
      faults: crash.faults,
      waitFor: (position) => runner.waitFor(position),
    });
    const logins = await LoginThrottle.open(new MemoryKeyValueStore(), { secret: 'test-secret', log });
    const mailer = new EmlFolderMailer(join(dir, 'mail'), { address: 'noreply@burrow.test' });
    ctx = {
      store,
      docs,
      runner,
      processes,
      clock: { now: () => NOW },
      secret: 'test-secret',
      log,
      logins,
      mailer,
      setPasswordLinks: {
        ttlSeconds: 3600,
        limit: await ActivationMailLimit.open(new MemoryKeyValueStore(), {
          perUser: 100,
          perPartner: 100,
          windowSeconds: 3600,
        }),
      },
      signals: new FeedSignals(),
      webhooks: TEST_WEBHOOKS,
    };
    const recovery = new ProcessRecovery(processes, docs, accountsProcesses(ctx), GRACE_SECONDS);
    ops = new OperationsHandlers(ctx, recovery);
    users = new UsersHandlers(ctx);
    groups = new GroupsHandlers(ctx);
    await seedPlans(ctx, { plansFile: undefined } as BurrowConfig);
    partnerId = (
      await new PartnersHandlers(ctx).create({ username: 'acme', password: 'acme-password-1', company_name: 'Acme' })
    ).partner_id;
  });

  after(async () => {
    await runner.stop();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a name reserved by an owner that does not exist is stuck: listed, released, then usable again', async () => {
    await strandName(usernameReservation('ghost'));
    await strandName(Streams.reservation('email', 'ghost%40example.com'));
    const user = {
      partnerId,
      name: 'Ghost',
      email: 'ghost@example.com',
      username: 'ghost',
      password: 'ghost-password-1',
    };
    assert.deepEqual(
      (await expectError(users.create(user), 409)).body.conflicts,
      ['username'],
      'the stuck name blocks a new user',
    );

    const stuck = await listed({ stuck: true });
    assert.deepEqual(stuck.map((r) => `${r.kind}:${r.name}:${r.status}`).sort(), [
      'email:ghost@example.com:stuck',
      'username:ghost:stuck',
    ]);
    assert.match(find(stuck, 'username', 'ghost')!.reason, /no user has this name/);
    assert.equal(find(await listed(), 'partnername', 'acme')?.status, 'live', "the partner's own name is live");

    const released = await ops.releaseReservation({ kind: 'username', name: 'Ghost' });
    assert.deepEqual(
      { ...released, owner: typeof released.owner },
      { kind: 'username', name: 'ghost', owner: 'string', status: 'stuck', forced: false },
    );
    await ops.releaseReservation({ kind: 'email', name: 'ghost@example.com' });
    assert.deepEqual(await listed({ stuck: true }), []);
    assert.ok(
      logLines.some(
        (l) =>
          /operator released a name reservation/.test(l) && /"reservation":\{"kind":"username","name":"Ghost"/.test(l),
      ),
      'the release is logged',
    );

    const created = await users.create(user);
    assert.equal(created.username, 'ghost');
    const now = find(await listed({ kind: 'username' }), 'username', 'ghost');
    assert.equal(now?.status, 'live');
    assert.equal(
      now?.owner,
      (await usersCollection(ctx.docs).findOne({ username: 'ghost' }))?._id,
      'held by the new user',
    );
    assert.match(now.reason, /user ghost/);
  });

  it('a live reservation is refused without force, and released with it', async () => {
    await users.create({
      partnerId,
      name: 'Live',
      email: 'live@example.com',
      username: 'live',
      password: 'live-password-1',
    });
    const refused = await expectError(ops.releaseReservation({ kind: 'username', name: 'live' }), 409);
    assert.match(refused.body.reason, /is live \(user live/);
    assert.match(refused.body.reason, /--force/);
    assert.ok(await reservationHolder(store, usernameReservation('live')), 'still reserved');
    await expectError(ops.releaseReservation({ kind: 'partnername', name: 'acme' }), 409);

    const forced = await ops.releaseReservation({ kind: 'email', name: 'live@example.com', force: true });
    assert.equal(forced.status, 'live');
    assert.equal(forced.forced, true);
    assert.equal(await reservationHolder(store, Streams.reservation('email', 'live%40example.com')), null);
  });

  it('a reservation whose write is unfinished is in flight: refused, listed with the write, undone by recovery', async () => {
    // a CreateUser that crashed after reserving the username (the request never goes on)
    await untilCrashed(crash, () =>
      users.create({ partnerId, name: 'Halfway', email: 'halfway@example.com', username: 'halfway' }),
    );
    await runner.catchUp();
    const [process] = await pendingProcessesCollection(ctx.docs).find({});
    const { userId } = process.data as { userId: string };

    const record = find(await listed({ kind: 'username' }), 'username', 'halfway');
    assert.equal(record?.status, 'in_flight');
    assert.match(record.reason, new RegExp(`CreateUser write ${process._id}`));
    assert.match(
      (await expectError(ops.releaseReservation({ kind: 'username', name: 'halfway' }), 409)).body.reason,
      /in flight/,
    );

    const pending = await ops.listPendingWrites({});
    assert.equal(pending.grace_seconds, GRACE_SECONDS);
    assert.deepEqual(
      pending.pending.map((p) => ({ id: p.id, kind: p.kind, due: p.due, age: p.age_seconds })),
      [{ id: process._id, kind: 'CreateUser', due: false, age: 0 }],
    );
    assert.equal((pending.pending[0].data as { username: string }).username, 'halfway');

    assert.deepEqual(
      await ops.recoverWrites({}),
      { grace_seconds: GRACE_SECONDS, completed: [], compensated: [], failed: [] },
      'younger than the grace: left alone',
    );
    const report = await ops.recoverWrites({ grace_seconds: 0 });
    assert.deepEqual(report, {
      grace_seconds: 0,
      completed: [],
      compensated: [{ id: process._id, kind: 'CreateUser' }],
      failed: [],
    });
    assert.equal(find(await listed(), 'username', 'halfway'), undefined, 'compensation released the name');
    assert.deepEqual((await ops.listPendingWrites({})).pending, []);
    assert.equal(
      (await store.readStream(Streams.user(userId)))[0]?.type,
      'UserCreationAbandoned',
      'recovery claimed the stream first',
    );
  });

  it('group names are per partner: listed with the partner, released by naming it', async () => {
    const group = await groups.create({ partnerId, name: 'Sales', plan_id: 1 });
    await strandName(Streams.reservation('groupname', `${partnerId}-lost%20group`));
    const all = await listed({ kind: 'groupname' });
    assert.deepEqual(
      all.map((r) => ({ name: r.name, status: r.status, partner_id: r.partner_id, partner: r.partner })),
      [
        { name: 'lost group', status: 'stuck', partner_id: partnerId, partner: 'acme' },
        { name: 'sales', status: 'live', partner_id: partnerId, partner: 'acme' },
      ],
    );
    assert.match(find(all, 'groupname', 'sales')!.reason, new RegExp(`group ${group.group_id} \\(Sales\\)`));
    assert.deepEqual(
      (await expectError(ops.releaseReservation({ kind: 'groupname', name: 'Lost Group' }), 400)).body.fields,
      ['partner'],
    );
    await expectError(ops.releaseReservation({ kind: 'groupname', name: 'Lost Group', partner: 'nobody' }), 404);
    await expectError(ops.releaseReservation({ kind: 'groupname', name: 'Sales', partner: 'acme' }), 409);
    assert.equal(
      (await ops.releaseReservation({ kind: 'groupname', name: 'Lost Group', partner: 'acme' })).status,
      'stuck',
    );
    assert.equal((await groups.create({ partnerId, name: 'Lost Group', plan_id: 1 })).name, 'Lost Group');
  });

  it('pages through every reservation with limit and next, each once; --stuck pages only the stuck', async () => {
    for (let i = 0; i < 7; i++) await strandName(usernameReservation(`paged-${i}`));
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const page = await ops.listReservations({ limit: 3, ...(after ? { after } : {}) });
      assert.ok(page.reservations.length <= 3);
      seen.push(...page.reservations.map((r) => r.stream));
      after = page.next ?? undefined;
      pages += 1;
    } while (after);
    assert.equal(new Set(seen).size, seen.length, 'no reservation twice');
    assert.deepEqual(seen, [...seen].sort(), 'in stream-name order');
    assert.ok(seen.includes(usernameReservation('paged-6')));
    assert.equal(pages, Math.ceil(seen.length / 3));

    const stuck = await ops.listReservations({ stuck: true, limit: 5 });
    assert.equal(stuck.reservations.length, 5);
    assert.ok(stuck.reservations.every((r) => r.status === 'stuck'));
    const rest = await ops.listReservations({ stuck: true, limit: 5, after: stuck.next! });
    assert.deepEqual(
      rest.reservations.map((r) => r.name),
      ['paged-5', 'paged-6'],
    );
    assert.equal(rest.next, null);
  });

  it('requests are parsed where they enter: a 400 names every bad field', async () => {
    assert.deepEqual(
      (await expectError(ops.listReservations({ kind: 'nickname', limit: 0, bogus: 1 }), 400)).body.fields,
      ['kind', 'limit', 'bogus'],
    );
    assert.deepEqual((await expectError(ops.listReservations({ limit: 1001 }), 400)).body.fields, ['limit']);
    assert.deepEqual((await expectError(ops.releaseReservation({ kind: 'username' }), 400)).body.fields, ['name']);
    assert.deepEqual(
      (await expectError(ops.releaseReservation({ kind: 'username', name: 'x', partner: 'acme' }), 400)).body.fields,
      ['partner'],
    );
    assert.deepEqual((await expectError(ops.recoverWrites({ grace_seconds: -1 }), 400)).body.fields, ['grace_seconds']);
    await expectError(ops.releaseReservation({ kind: 'username', name: 'never-reserved' }), 404);
  });
});
