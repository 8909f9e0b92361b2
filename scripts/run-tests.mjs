#!/usr/bin/env node
/**
 * `npm test` (after the build): runs every compiled *.test.js with node's test runner.
 * Finds a NATS server with JetStream for the multi-process, NATS transport and key-value suites
 * (NATS_URL, else a private `nats-server -js` started for this run, else one listening on
 * 127.0.0.1:4222) and a PostgreSQL server (POSTGRES_URL, else one on 127.0.0.1:5432), and says plainly
 * which production-server suites run and which are skipped, and why.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

function findTests(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) findTests(path, out);
    else if (name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

const reachable = (host, port) =>
  new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 500 });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => { socket.destroy(); resolve(false); });
  });

const env = { ...process.env };
// Every aggregate state the cache keeps is deep-frozen in the tests: an evolve, decide or handler
// that modifies a state (shared by every command on its stream) throws instead of passing.
env.BURROW_FREEZE_AGGREGATES ??= '1';
let natsChild = null;
if (!env.NATS_URL) {
  // A private server per run: subjects and queue groups are global on a NATS server, so two test
  // runs sharing one would answer each other's requests. Fall back on the machine's server.
  const bin = ['nats-server', '/usr/sbin/nats-server', '/usr/bin/nats-server'].find((b) => spawnSync(b, ['--version']).status === 0);
  if (bin) {
    const port = 14222 + Math.floor(Math.random() * 20000);
    // JetStream on (-js, store in a fresh temporary directory): the key-value store runs on it
    natsChild = spawn(bin, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', mkdtempSync(join(tmpdir(), 'nats-'))], { stdio: 'ignore' });
    for (let i = 0; i < 50 && !(await reachable('127.0.0.1', port)); i++) await new Promise((r) => setTimeout(r, 100));
    if (await reachable('127.0.0.1', port)) env.NATS_URL = `nats://127.0.0.1:${port}`;
  }
  if (!env.NATS_URL && (await reachable('127.0.0.1', 4222))) env.NATS_URL = 'nats://127.0.0.1:4222';
}
process.on('exit', () => natsChild?.kill());
// PostgreSQL: the server the PostgreSQL event-store suites make their own databases on (and drop).
// Probed with a real login, so a server that refuses us is reported, not failed on.
if (!env.POSTGRES_URL && (await reachable('127.0.0.1', 5432))) {
  const url = 'postgres://postgres@127.0.0.1:5432/postgres';
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    env.POSTGRES_URL = url;
  } catch (error) {
    console.log(`PostgreSQL on 127.0.0.1:5432 refused ${url}: ${error.message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const servers = [
  ['NATS', env.NATS_URL, 'NATS transport and key-value (JetStream) contract suites and multi-process e2e suites'],
  ['PostgreSQL', env.POSTGRES_URL, 'PostgreSQL event store contract and integration suites, and the multi-process e2e suite on the PostgreSQL event store (NATS + PostgreSQL + MinIO when set; databases of their own, dropped after)'],
  ['KurrentDB (EventStoreDB)', env.EVENTSTORE_URL, 'KurrentDB adapter contract suite'],
  ['MongoDB', env.MONGODB_URL, 'MongoDB adapter contract suite, projection runner suites and multi-process e2e suites (own databases per target)'],
  ['MinIO', env.MINIO_URL, 'MinIO adapter contract suite and multi-process e2e suites (own bucket per target)'],
];
const printServers = (title) => {
  console.log(title);
  for (const [name, url, suites] of servers) {
    console.log(url ? `  ${name}: ${url} -> ${suites} run` : `  ${name}: not configured -> ${suites} SKIPPED (no server URL; see README "Tests")`);
  }
};
printServers('Production servers for this run:');

// tsc -b never deletes the output of a source file that was moved or removed, so a build over an
// older one can leave compiled tests behind (apps/standalone/dist/e2e after the suite moved to
// apps/e2e); they would run twice, against stale code. Only tests whose source exists run.
const stale = [];
const files = ['apps', 'libs'].flatMap((top) =>
  readdirSync(join(root, top)).flatMap((p) => {
    const dist = join(root, top, p, 'dist');
    let found;
    try { found = findTests(dist); } catch { return []; }
    return found.filter((file) => {
      const source = join(root, top, p, 'src', relative(dist, file)).replace(/\.js$/, '.ts');
      if (existsSync(source)) return true;
      stale.push(relative(root, file));
      return false;
    });
  }),
).sort();
if (stale.length > 0) {
  console.log(`Ignoring ${stale.length} compiled test file(s) whose source no longer exists (\`npm run clean\` removes them):`);
  for (const file of stale) console.log(`  ${file}`);
}
if (files.length === 0) {
  console.error('no compiled tests found: run the build first');
  process.exit(1);
}
// TEST_ONLY=<path substring>[,<another>...] picks test files, TEST_NAME=<regex> tests by name
const namePattern = process.env.TEST_NAME ? [`--test-name-pattern=${process.env.TEST_NAME}`] : [];
const only = process.env.TEST_ONLY?.split(',').filter(Boolean);
const args = ['--test', '--test-reporter=spec', ...namePattern, ...(only ? files.filter((f) => only.some((part) => f.includes(part))) : files)];
const child = spawn(process.execPath, args, { env, stdio: 'inherit', cwd: root });
child.on('exit', (code) => {
  natsChild?.kill();
  printServers('The suites above ran against:');
  process.exit(code ?? 1);
});
