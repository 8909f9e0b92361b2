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
import { describe, it } from 'node:test';
import { partnerApi } from './harness/client.js';
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
      for (const command of ['create-partner', 'set-partner-limits', 'set-billing-mode', 'show-partner', 'add-plan', 'list-plans']) {
        assert.match(result.stdout, new RegExp(`\\b${command}\\b`), `${args.join(' ')} lists ${command}`);
      }
      untouched(result);
    }
  });

  it('<command> --help prints that command\'s usage and exit 0', async () => {
    for (const args of [['create-partner', '--help'], ['create-partner', '--username', 'x', '-h'], ['help', 'create-partner']]) {
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
      const created = await admin(['create-partner', '--username', 'acme', '--password', 'acme-password-1', '--company', 'Acme Ltd', '--bytes-available', '5000000000000', '--features', 'ldap,email_as_username'], env);
      assert.equal(created.code, 0, created.stderr);
      assert.equal(JSON.parse(created.stdout).company_name, 'Acme Ltd');
      const plan = await admin(['add-plan', '--name', '20 TB', '--storage-bytes', '20000000000000'], env);
      assert.equal(plan.code, 0, plan.stderr);
      const duplicate = await admin(['create-partner', '--username', 'acme', '--password', 'acme-password-1', '--company', 'X'], env);
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
