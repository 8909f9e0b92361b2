/**
 * The admin CLI as an operator runs it: `node apps/admin/dist/main.js` on a standalone data
 * directory. Arguments are parsed before anything is opened (help and usage errors touch nothing);
 * commands change the data directory a server then serves.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type {
  PartnerDetails,
  PendingWritesPage,
  RecoverWritesReport,
  ReleasedReservation,
  ReservationPage,
} from '@burrow/contracts';
import { SqliteEventStore } from '@burrow/event-store';
import { partnerApi } from './harness/client.js';
import { startMultiProcess } from './harness/multi-process.js';
import { runApp } from './harness/run-app.js';
import { startStandalone, testEnv } from './harness/standalone.js';

const admin = (args: string[], env: Record<string, string>) => runApp('admin/dist/main.js', args, env);

describe('admin CLI: arguments are parsed before anything is touched', () => {
  // No partner credentials in the environment: a bootstrap would generate a password and print it.
  const dataDir = join(tmpdir(), `burrow-admin-untouched-${process.pid}-${Date.now()}`);
  const env = { BURROW_DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  /** what a first start prints: "password: <generated>" */
  const PRINTED_PASSWORD = /password:\s*\S|first start|partner account created/i;

  const untouched = (output: { stdout: string; stderr: string }) => {
    assert.ok(!existsSync(dataDir), `the data directory ${dataDir} was created`);
    assert.doesNotMatch(output.stdout + output.stderr, PRINTED_PASSWORD);
  };

  it('--help (and -h, and help) print the usage of every command and exit 0', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const result = await admin(args, env);
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
      for (const command of [
        'create-partner',
        'show-partner',
        'add-plan',
        'list-plans',
        'list-reservations',
        'release-reservation',
        'list-pending-writes',
        'recover-writes',
      ]) {
        assert.match(result.stdout, new RegExp(`\\b${command}\\b`), `${args.join(' ')} lists ${command}`);
      }
      untouched(result);
    }
  });

  it("<command> --help prints that command's usage and exit 0", async () => {
    for (const args of [
      ['create-partner', '--help'],
      ['create-partner', '--username', 'x', '-h'],
      ['help', 'create-partner'],
    ]) {
      const result = await admin(args, env);
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stdout, /create-partner/);
      assert.match(result.stdout, /--company/);
      assert.doesNotMatch(result.stdout, /add-plan/, 'only that command');
      untouched(result);
    }
  });

  it('an unknown command is an error with exit code 2', async () => {
    const result = await admin(['frobnicate'], env);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /unknown command frobnicate/);
    untouched(result);
  });

  it('no command at all is an error with exit code 2 that shows the usage', async () => {
    const result = await admin([], env);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /create-partner/);
    untouched(result);
  });

  it('an unknown option, a missing required option or a malformed value is an error with exit code 2', async () => {
    const cases: [string[], RegExp][] = [
      [['list-plans', '--bogus'], /--bogus/],
      [['--bogus'], /--bogus/],
      [['create-partner', '--username', 'acme'], /--password.*--company|--company.*--password/s],
      [['create-partner', '--username', 'acme', '--password', 'pw-pw-pw-pw', '--company', 'A', 'extra'], /extra/],
      [['create-partner', '--username'], /--username/],
      [['add-plan', '--name', 'x', '--storage-bytes', 'lots'], /--storage-bytes/],
      [['set-partner-limits', '--username', 'acme', '--features', 'teleport'], /teleport/],
    ];
    for (const [args, message] of cases) {
      const result = await admin(args, env);
      assert.equal(result.code, 2, `${args.join(' ')}: exit ${result.code}, ${result.stderr}`);
      assert.match(result.stderr, message, args.join(' '));
      assert.match(result.stderr, /usage/i, `${args.join(' ')} shows the usage`);
      untouched(result);
    }
  });
});

describe('admin CLI: partners and plans', () => {
  it('creates a partner and a plan on the data directory; a server started on it serves them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-admin-'));
    try {
      const env = testEnv(dir);
      const created = await admin(
        [
          'create-partner',
          '--username',
          'acme',
          '--password',
          'acme-password-1',
          '--company',
          'Acme Ltd',
          '--bytes-available',
          '5000000000000',
          '--features',
          'ldap,email_as_username',
        ],
        env,
      );
      assert.equal(created.code, 0, created.stderr);
      assert.equal(JSON.parse(created.stdout).company_name, 'Acme Ltd');
      const plan = await admin(['add-plan', '--name', '20 TB', '--storage-bytes', '20000000000000'], env);
      assert.equal(plan.code, 0, plan.stderr);
      const duplicate = await admin(
        ['create-partner', '--username', 'acme', '--password', 'acme-password-1', '--company', 'X'],
        env,
      );
      assert.equal(duplicate.code, 1);
      assert.match(duplicate.stderr, /409/);

      const target = await startStandalone({}, dir);
      try {
        const acme = partnerApi(target, target.url, { username: 'acme', password: 'acme-password-1' });
        assert.deepEqual((await acme.get('/partner/features').expect(200)).body.email_as_username, true);
        assert.equal((await acme.get('/partner/quota').expect(200)).body.bytes_available, 5000000000000);
        assert.ok((await acme.get('/plans').expect(200)).body.some((p: { name: string }) => p.name === '20 TB'));
      } finally {
        await target.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('admin CLI: reservations and unfinished writes, on the standalone data directory', () => {
  it('lists a stuck name and releases it; refuses live and in-flight ones; recovery on demand undoes a crashed write', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-admin-recovery-'));
    // the CLI's in-process accounts service runs recovery at start: keep it off the crashed write
    const env = testEnv(dir, { BURROW_RECOVERY_GRACE_SECONDS: '86400' });
    const json = async <T>(args: string[]): Promise<T> => {
      const result = await admin(args, env);
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
      return JSON.parse(result.stdout) as T;
    };
    try {
      const partner = await json<PartnerDetails>(['show-partner', '--username', 'partner']);

      // What crashes leave in the event store: a name reserved for nobody (before the write was
      // recorded), and a CreateUser recorded, its username reserved, and nothing after.
      const store = SqliteEventStore.open(join(dir, 'events.sqlite'));
      const writeId = randomUUID();
      const userId = randomUUID();
      try {
        await store.append(
          'username-ghost',
          [{ type: 'NameReserved', data: { owner: randomUUID() }, metadata: { schemaVersion: 1 } }],
          'no_stream',
        );
        const started = {
          kind: 'CreateUser',
          data: {
            userId,
            partnerId: partner.partner_id,
            username: 'halfway',
            email: 'halfway@example.com',
            ledgerFrom: null,
            adoptPlanOf: null,
          },
          startedAt: Math.floor(Date.now() / 1000) - 10,
        };
        await store.append(
          `process-accounts-${writeId}`,
          [{ type: 'ProcessStarted', data: started, metadata: { schemaVersion: 1, processId: writeId } }],
          'no_stream',
        );
        await store.append(
          'username-halfway',
          [{ type: 'NameReserved', data: { owner: userId }, metadata: { schemaVersion: 1 } }],
          'no_stream',
        );
      } finally {
        await store.close();
      }

      const stuck = await json<ReservationPage>(['list-reservations', '--stuck']);
      assert.deepEqual(
        stuck.reservations.map((r) => `${r.kind}:${r.name}`),
        ['username:ghost'],
      );
      assert.equal(stuck.next, null);
      const usernames = await json<ReservationPage>(['list-reservations', '--kind', 'username']);
      const halfway = usernames.reservations.find((r) => r.name === 'halfway');
      assert.equal(halfway?.status, 'in_flight');
      assert.match(halfway.reason, new RegExp(writeId));
      assert.equal(
        (await json<ReservationPage>(['list-reservations', '--kind', 'partnername'])).reservations[0]?.status,
        'live',
      );

      const inFlight = await admin(['release-reservation', '--kind', 'username', '--name', 'halfway'], env);
      assert.equal(inFlight.code, 1);
      assert.match(inFlight.stderr, /409.*in flight.*--force/);
      const live = await admin(['release-reservation', '--kind', 'partnername', '--name', 'partner'], env);
      assert.equal(live.code, 1);
      assert.match(live.stderr, /409.*is live.*--force/);
      const released = await json<ReleasedReservation>([
        'release-reservation',
        '--kind',
        'username',
        '--name',
        'Ghost',
      ]);
      assert.equal(released.status, 'stuck');
      assert.deepEqual((await json<ReservationPage>(['list-reservations', '--stuck'])).reservations, []);

      const pending = await json<PendingWritesPage>(['list-pending-writes']);
      assert.deepEqual(
        pending.pending.map((p) => ({ id: p.id, kind: p.kind, due: p.due })),
        [{ id: writeId, kind: 'CreateUser', due: false }],
      );
      assert.deepEqual(await json<RecoverWritesReport>(['recover-writes']), {
        grace_seconds: 86400,
        completed: [],
        compensated: [],
        failed: [],
      });
      const recovered = await json<RecoverWritesReport>(['recover-writes', '--grace-seconds', '0']);
      assert.deepEqual(recovered.compensated, [{ id: writeId, kind: 'CreateUser' }]);
      assert.deepEqual((await json<PendingWritesPage>(['list-pending-writes'])).pending, []);
      assert.ok(
        !(await json<ReservationPage>(['list-reservations', '--kind', 'username'])).reservations.some(
          (r) => r.name === 'halfway' || r.name === 'ghost',
        ),
      );

      const target = await startStandalone({}, dir);
      try {
        const api = partnerApi(target);
        await api
          .post('/users/', {
            name: 'Ghost',
            email: 'ghost@example.com',
            username: 'ghost',
            password: 'ghost-password-1',
          })
          .expect(201);
        await api
          .post('/users/', {
            name: 'Halfway',
            email: 'halfway@example.com',
            username: 'halfway',
            password: 'halfway-password-1',
          })
          .expect(201);
      } finally {
        await target.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

const natsUrl = process.env.NATS_URL;
describe('admin CLI over NATS', { skip: natsUrl ? false : 'NATS_URL not set: multi-process suites skipped' }, () => {
  it('asks the running services and opens nothing local: no data directory, no secret', async () => {
    const target = await startMultiProcess(natsUrl!);
    const localDir = join(tmpdir(), `burrow-admin-nats-${process.pid}-${Date.now()}`);
    try {
      // what an operator's machine has: the bus address, nothing else of the deployment
      const env = { NATS_URL: target.natsUrl, BURROW_DATA_DIR: localDir, LOG_LEVEL: 'warn' };
      const result = await admin(['list-reservations', '--kind', 'partnername'], env);
      assert.equal(result.code, 0, result.stderr);
      const page = JSON.parse(result.stdout) as ReservationPage;
      assert.deepEqual(
        page.reservations.map((r) => `${r.name}:${r.status}`),
        ['partner:live'],
      );
      const refused = await admin(['release-reservation', '--kind', 'partnername', '--name', 'partner'], env);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /409.*is live/);
      assert.ok(!existsSync(localDir), 'the CLI created a local data directory');
    } finally {
      await target.close();
    }
  });
});
