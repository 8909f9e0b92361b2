/**
 * Issue 39, defect 6: what an operator finds on disk.
 * - A multi-process first start without BURROW_PARTNER_USERNAME/PASSWORD: the accounts process
 *   (its output a JSON log) writes the generated password once to a file only its user can read
 *   (0600) and logs that file's path, never the password; every line it prints is JSON.
 * - scripts/ensure-ferretdb.sh and ensure-minio.sh append to their server's log (a crash's log
 *   survives the restart) and rotate it once it is large, instead of truncating it.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { type AuthenticatedPartner, Subjects } from '@burrow/contracts';
import { createPostgresDatabase, dropPostgresDatabase } from '@burrow/event-store';
import { natsClient, RpcClient } from '@burrow/transport';
import type { ClientProxy } from '@nestjs/microservices';
import { stablePort } from './harness/ports.js';
import { natsServerBinary, startPrivateNats } from './harness/private-nats.js';
import { childEnv } from './harness/run-app.js';

const appsDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const scripts = resolve(appsDir, '../scripts');
const binary = natsServerBinary();
const postgresUrl = process.env.POSTGRES_URL;

describe(
  'a multi-process first start without partner credentials',
  { skip: binary ? false : 'no nats-server binary', timeout: 120_000 },
  () => {
    it('writes the generated password to a 0600 file, logs only its path, and prints nothing but JSON', async () => {
      const nats = await startPrivateNats(binary);
      const dataDir = await mkdtemp(join(tmpdir(), 'burrow-first-start-'));
      // the production event store when the run has PostgreSQL (a database of its own, dropped after)
      const database = postgresUrl ? `burrow_e2e_${randomBytes(6).toString('hex')}` : null;
      const eventStore: Record<string, string> = database
        ? { EVENTSTORE_URL: await createPostgresDatabase(postgresUrl!, database) }
        : {};
      const child = spawn(process.execPath, [join(appsDir, 'accounts', 'dist', 'main.js')], {
        env: childEnv({
          NATS_URL: nats.url,
          BURROW_DATA_DIR: dataDir,
          BURROW_SECRET: 'test-secret-0123456789abcdef0123456789abcdef',
          LOG_LEVEL: 'info',
          BURROW_PASSWORD_SCRYPT_N: '1024',
          ...eventStore,
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (c) => (output += c));
      child.stderr.on('data', (c) => (output += c));
      const client = natsClient(nats.url, 'test-operator') as unknown as ClientProxy;
      try {
        const deadline = Date.now() + 90_000;
        while (!/"file":/.test(output)) {
          if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no password file logged:\n${output}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        const file = join(dataDir, 'first-partner-password');
        const lines = output.split('\n').filter((l) => l.trim() !== '');
        for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), `a line that is not JSON: ${line}`);
        const said = lines
          .map((l) => JSON.parse(l) as { msg: string; file?: string; username?: string })
          .find((l) => l.file);
        assert.equal(said?.file, file);
        assert.equal(said?.username, 'partner');
        assert.equal((await stat(file)).mode & 0o777, 0o600, 'readable by the operator only');
        const password = (await readFile(file, 'utf8')).trim();
        assert.ok(password.length >= 16);
        assert.ok(!output.includes(password), 'the password is not in the log');
        // it is the partner's password
        const rpc = new RpcClient(client, 15_000);
        const partner = await rpc.call<AuthenticatedPartner>(Subjects.accounts.authenticatePartner, {
          username: 'partner',
          password,
        });
        assert.equal(partner.username, 'partner');
      } finally {
        child.kill('SIGTERM');
        if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
        await client.close();
        await nats.close();
        if (database) await dropPostgresDatabase(postgresUrl!, database);
        await rm(dataDir, { recursive: true, force: true });
      }
    });
  },
);

const free = (port: number) =>
  new Promise<boolean>((res) => {
    const srv = createServer();
    srv.once('error', () => res(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => res(true)));
  });

const servers = [
  {
    script: 'ensure-ferretdb.sh',
    log: 'ferretdb.log',
    binary: [process.env.FERRETDB_BIN, join(homedir(), 'go', 'bin', 'ferretdb-v1.24.0')].find((b): b is string =>
      Boolean(b && existsSync(b)),
    ),
    env: (dir: string, port: number, bin: string) => ({
      FERRETDB_DIR: dir,
      FERRETDB_PORT: String(port),
      FERRETDB_BIN: bin,
    }),
  },
  {
    script: 'ensure-minio.sh',
    log: 'minio.log',
    binary: [process.env.MINIO_BIN, join(homedir(), 'go', 'bin', 'minio'), '/usr/local/bin/minio'].find(
      (b): b is string => Boolean(b && existsSync(b)),
    ),
    env: (dir: string, port: number, bin: string) => ({ MINIO_DIR: dir, MINIO_PORT: String(port), MINIO_BIN: bin }),
  },
];

describe('the server scripts keep their server logs', { timeout: 120_000 }, () => {
  for (const server of servers) {
    it(
      `${server.script} appends to ${server.log} and rotates it when large`,
      { skip: server.binary ? false : `no binary for ${server.script}` },
      async () => {
        const dir = await mkdtemp(join(tmpdir(), 'burrow-script-'));
        // the server and its neighbour port (debug / console) must both be free
        let port = await stablePort();
        while (!(await free(port + 1))) port = await stablePort();
        const env = childEnv({ HOME: homedir(), ...server.env(dir, port, server.binary!) });
        const run = (...args: string[]) =>
          spawnSync('bash', [join(scripts, server.script), ...args], { env, encoding: 'utf8', timeout: 60_000 });
        const log = join(dir, server.log);
        try {
          await writeFile(log, 'the log of the crash before\n');
          const started = run();
          assert.equal(started.status, 0, started.stderr);
          assert.equal(run('--stop').status, 0);
          const kept = await readFile(log, 'utf8');
          assert.ok(
            kept.startsWith('the log of the crash before\n'),
            `the earlier log is kept:\n${kept.slice(0, 500)}`,
          );
          assert.match(kept, /---- .*: starting \(/);

          // past the size limit, the log moves to <log>.1 before the start
          const again = spawnSync('bash', [join(scripts, server.script)], {
            env: { ...env, SERVER_LOG_MAX_BYTES: '10' },
            encoding: 'utf8',
            timeout: 60_000,
          });
          assert.equal(again.status, 0, again.stderr);
          assert.equal(run('--stop').status, 0);
          assert.ok(
            (await readFile(`${log}.1`, 'utf8')).startsWith('the log of the crash before\n'),
            'rotated, not lost',
          );
          assert.ok(!(await readFile(log, 'utf8')).includes('the log of the crash before'));
        } finally {
          run('--stop');
          await rm(dir, { recursive: true, force: true });
        }
      },
    );
  }
});
