#!/usr/bin/env node
/**
 * `npm test` (after the build): runs every compiled *.test.js with node's test runner.
 * Finds a NATS server with JetStream for the multi-process, NATS transport and key-value suites
 * (NATS_URL, else a private `nats-server -js` started for this run, else one listening on
 * 127.0.0.1:4222) and a PostgreSQL server (POSTGRES_URL, else one on 127.0.0.1:5432), and says plainly
 * which production-server suites run and which are skipped, and why.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
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
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });

const env = { ...process.env };
// Node 22.1 and later keep compiled code between processes: each test file and each service a
// multi-process target starts loads the same modules (Nest, the drivers), compiled once per run.
env.NODE_COMPILE_CACHE ??= join(root, 'node_modules', '.cache', 'burrow-tests', 'compile-cache');
// Every aggregate state the cache keeps is deep-frozen in the tests: an evolve, decide or handler
// that modifies a state (shared by every command on its stream) throws instead of passing.
env.BURROW_FREEZE_AGGREGATES ??= '1';
let natsChild = null;
if (!env.NATS_URL) {
  // A private server per run: subjects and queue groups are global on a NATS server, so two test
  // runs sharing one would answer each other's requests. Fall back on the machine's server.
  const bin = ['nats-server', '/usr/sbin/nats-server', '/usr/bin/nats-server'].find(
    (b) => spawnSync(b, ['--version']).status === 0,
  );
  if (bin) {
    const port = 14222 + Math.floor(Math.random() * 20000);
    // JetStream on (-js, store in a fresh temporary directory): the key-value store runs on it
    natsChild = spawn(
      bin,
      ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', mkdtempSync(join(tmpdir(), 'nats-'))],
      { stdio: 'ignore' },
    );
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
  [
    'PostgreSQL',
    env.POSTGRES_URL,
    'PostgreSQL event store contract and integration suites, and the multi-process e2e suite on the PostgreSQL event store (NATS + PostgreSQL + MinIO when set; databases of their own, dropped after)',
  ],
  ['KurrentDB (EventStoreDB)', env.EVENTSTORE_URL, 'KurrentDB adapter contract suite'],
  [
    'MongoDB',
    env.MONGODB_URL,
    'MongoDB adapter contract suite, projection runner suites and multi-process e2e suites (own databases per target)',
  ],
  ['MinIO', env.MINIO_URL, 'MinIO adapter contract suite and multi-process e2e suites (own bucket per target)'],
];
const printServers = (title) => {
  console.log(title);
  for (const [name, url, suites] of servers) {
    console.log(
      url
        ? `  ${name}: ${url} -> ${suites} run`
        : `  ${name}: not configured -> ${suites} SKIPPED (no server URL; see README "Tests")`,
    );
  }
};
printServers('Production servers for this run:');

// tsc -b never deletes the output of a source file that was moved or removed, so a build over an
// older one can leave compiled tests behind (apps/standalone/dist/e2e after the suite moved to
// apps/e2e); they would run twice, against stale code. Only tests whose source exists run.
const stale = [];
const files = ['apps', 'libs']
  .flatMap((top) =>
    readdirSync(join(root, top)).flatMap((p) => {
      const dist = join(root, top, p, 'dist');
      let found;
      try {
        found = findTests(dist);
      } catch {
        return [];
      }
      return found.filter((file) => {
        const source = join(root, top, p, 'src', relative(dist, file)).replace(/\.js$/, '.ts');
        if (existsSync(source)) return true;
        stale.push(relative(root, file));
        return false;
      });
    }),
  )
  .sort();
if (stale.length > 0) {
  console.log(
    `Ignoring ${stale.length} compiled test file(s) whose source no longer exists (\`npm run clean\` removes them):`,
  );
  for (const file of stale) console.log(`  ${file}`);
}
if (files.length === 0) {
  console.error('no compiled tests found: run the build first');
  process.exit(1);
}
// TEST_ONLY=<path substring>[,<another>...] picks test files, TEST_NAME=<regex> tests by name
const only = process.env.TEST_ONLY?.split(',').filter(Boolean);
let chosen = only ? files.filter((f) => only.some((part) => f.includes(part))) : files;
// The slow tier: files named *.slow.test.* (a kill -9 campaign, a 4 GiB zip). CI runs them
// (TEST_SLOW=1); `npm test` leaves them out, and says so, unless asked for them or named by TEST_ONLY.
const runSlow = process.env.TEST_SLOW === '1' || Boolean(only);
const slowLeftOut = runSlow ? [] : chosen.filter((f) => f.includes('.slow.test.'));
chosen = chosen.filter((f) => !slowLeftOut.includes(f));

// Test files run in parallel, each in a process of its own: every file starts what it needs (its
// own data directories, databases, bucket, ports and NATS server for multi-process targets), so no
// file depends on another. Most of a test's time is waiting (a process starting, a database round
// trip), which is why more files than cores run at once.
const cores = (await import('node:os')).availableParallelism();
const concurrency = Math.max(1, Number(process.env.TEST_CONCURRENCY) || Math.max(2, cores * 2));
// A file that has not finished after this long is stopped (with every process it started) and counted as failed.
const fileTimeoutMs = Number(process.env.TEST_FILE_TIMEOUT_MS) || 20 * 60_000;
const profiling = process.env.TEST_PROFILE === '1';

// Longest files first, so the run does not end waiting on one long file started last. The
// durations of the last run on this machine are kept in node_modules/.cache; without them the
// committed estimates in scripts/test-durations.json order the files.
const cacheDir = join(root, 'node_modules', '.cache', 'burrow-tests');
const durationsFile = join(cacheDir, 'durations.json');
const readJson = (path) => {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
};
const known = { ...readJson(join(root, 'scripts', 'test-durations.json')), ...readJson(durationsFile) };
const rel = (file) => relative(root, file);

// The e2e scenario files register their blocks (apps/e2e/src/scenarios/blocks.ts) in groups; each
// (file, group) pair runs in a process of its own (SCENARIO_GROUP), so the groups of every mode run
// side by side. SCENARIO=<regex> keeps the blocks whose name matches.
const scenarioDir = join(root, 'apps', 'e2e', 'dist', 'scenarios');
const groups = existsSync(join(scenarioDir, 'blocks.js'))
  ? (await import(join(scenarioDir, 'blocks.js'))).SCENARIO_GROUPS
  : [];
const scenarioFilter = process.env.SCENARIO ? new RegExp(process.env.SCENARIO) : null;
const jobs = chosen.flatMap((file) =>
  file.startsWith(scenarioDir + '/') && groups.length > 0
    ? groups
        .map((group) => group.filter((block) => !scenarioFilter || scenarioFilter.test(block)))
        .filter((group) => group.length > 0)
        .map((group) => ({ file, group }))
    : [{ file }],
);
const jobName = (job) => (job.group ? `${rel(job.file)} [${job.group.join(', ')}]` : rel(job.file));
const guess = (job) =>
  known[jobName(job)] ?? (job.file.includes('/e2e/') ? 60_000 : job.file.includes('.int.') ? 10_000 : 2_000);
jobs.sort((a, b) => guess(b) - guess(a));

const workDir = mkdtempSync(join(tmpdir(), 'burrow-tests-'));
const probe = join(root, 'scripts', 'test-probe.mjs');
const reporter = join(root, 'scripts', 'test-reporter.mjs');
const namePattern = process.env.TEST_NAME ? [`--test-name-pattern=${process.env.TEST_NAME}`] : [];

console.log(
  `Running ${jobs.length} test processes (${chosen.length} files; the e2e scenario files once per group of blocks), ${concurrency} at a time (TEST_CONCURRENCY), ${cores} cores${profiling ? ', profiling each test' : ''}.`,
);
if (slowLeftOut.length > 0) {
  console.log(
    `The slow tier is left out: ${slowLeftOut.length} file(s) (${slowLeftOut.map(rel).join(', ')}); TEST_SLOW=1 runs them, and CI does.`,
  );
}

/** Runs one test file (one block of it) in a process (and process group) of its own; resolves with what it reported. */
function runJob(job, index) {
  const { file } = job;
  const jsonFile = join(workDir, `${index}.jsonl`);
  const cpuFile = join(workDir, `${index}.cpu.json`);
  const profileFile = profiling ? join(workDir, `${index}.profile.jsonl`) : undefined;
  const args = [
    '--import',
    probe,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${reporter}`,
    `--test-reporter-destination=${jsonFile}`,
    ...namePattern,
    file,
  ];
  const started = performance.now();
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      detached: true, // its own process group: a stopped file takes its servers with it
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...env,
        ...(job.group ? { SCENARIO_GROUP: JSON.stringify(job.group) } : {}),
        BURROW_TEST_CPU_FILE: cpuFile,
        ...(profileFile ? { BURROW_TEST_PROFILE_FILE: profileFile } : {}),
      },
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, fileTimeoutMs);
    running.set(child.pid, child);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child.pid);
      // whatever the file left running (a server a failed test did not stop) goes with it
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* none left */
      }
      const lines = existsSync(jsonFile)
        ? readFileSync(jsonFile, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l))
        : [];
      const cpu = readJson(cpuFile).cpuMs;
      const profile =
        profileFile && existsSync(profileFile)
          ? readFileSync(profileFile, 'utf8')
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l))
          : [];
      resolveRun({
        file,
        name: jobName(job),
        code,
        signal,
        timedOut,
        output,
        lines,
        wallMs: performance.now() - started,
        cpuMs: cpu,
        profile,
      });
    });
  });
}

const running = new Map();
const stopAll = () => {
  for (const pid of running.keys()) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
};
process.on('SIGINT', () => {
  stopAll();
  process.exit(130);
});
process.on('SIGTERM', () => {
  stopAll();
  process.exit(143);
});

const totals = { tests: 0, suites: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
const results = [];
const runStarted = performance.now();
let next = 0;
async function worker() {
  while (next < jobs.length) {
    const index = next++;
    const result = await runJob(jobs[index], index);
    results.push(result);
    const summary = Object.fromEntries(result.lines.filter((l) => l.type === 'summary').map((l) => [l.key, l.value]));
    result.summary = summary;
    // a file that died before its summary (a crash, a timeout, a syntax error) counts as one failed test
    result.failed =
      result.code !== 0 || result.timedOut || summary.tests === undefined || summary.fail > 0 || summary.cancelled > 0;
    if (summary.tests === undefined) {
      totals.tests += 1;
      totals.fail += 1;
    } else for (const key of Object.keys(totals)) totals[key] += summary[key] ?? 0;
    const seconds = (ms) => (ms === undefined ? '?' : (ms / 1000).toFixed(1));
    const mark = result.failed ? '✖' : '✔';
    process.stdout.write(
      `\n${mark} ${result.name} (${seconds(result.wallMs)} s wall, ${seconds(result.cpuMs)} s CPU; ${results.length}/${jobs.length})\n`,
    );
    // each file's own closing summary is left out: the run's, at the end, is the one to read
    process.stdout.write(
      result.output.replace(/^ℹ (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+\n/gm, ''),
    );
    if (result.timedOut)
      process.stdout.write(`✖ ${result.name} was stopped after ${fileTimeoutMs / 1000} s (TEST_FILE_TIMEOUT_MS)\n`);
    else if (summary.tests === undefined)
      process.stdout.write(
        `✖ ${result.name} ended (code ${result.code}, signal ${result.signal}) without its test summary\n`,
      );
  }
}
await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, () => worker()));
const wallMs = performance.now() - runStarted;
rmSync(workDir, { recursive: true, force: true });
natsChild?.kill();

// what this run took, for the next run's order (only files that finished)
try {
  mkdirSync(cacheDir, { recursive: true });
  const durations = readJson(durationsFile);
  for (const r of results) if (!r.timedOut) durations[r.name] = Math.round(r.wallMs);
  writeFileSync(durationsFile, JSON.stringify(durations, null, 1));
} catch {
  // a read-only tree: the next run orders by the estimates
}

const table = (rows, header) => {
  console.log(header);
  console.log('  wall s    CPU s  name');
  for (const row of rows)
    console.log(
      `${(row.wallMs / 1000).toFixed(1).padStart(8)} ${row.cpuMs === undefined ? '       ?' : (row.cpuMs / 1000).toFixed(1).padStart(8)}  ${row.name}`,
    );
};
if (profiling) {
  console.log('');
  table(
    results
      .map((r) => ({ name: r.name, wallMs: r.wallMs, cpuMs: r.cpuMs }))
      .sort((a, b) => b.wallMs - a.wallMs)
      .slice(0, 20),
    'The 20 slowest test processes (files, or groups of blocks of the scenario files):',
  );
  console.log('');
  table(
    results
      .flatMap((r) => r.profile.map((p) => ({ ...p, name: `${p.name}  (${r.name})` })))
      .sort((a, b) => b.wallMs - a.wallMs)
      .slice(0, 20),
    'The 20 slowest tests (CPU counts the processes a test started):',
  );
  const cpuTotal = results.reduce((sum, r) => sum + (r.cpuMs ?? 0), 0);
  console.log(
    `\nCPU in all test files: ${(cpuTotal / 1000).toFixed(0)} s; wall: ${(wallMs / 1000).toFixed(0)} s on ${cores} cores.`,
  );
}

const failedFiles = results.filter((r) => r.failed);
if (failedFiles.length > 0) {
  console.log(`\n✖ failing test files (${failedFiles.length}):`);
  for (const r of failedFiles) {
    console.log(`\n✖ ${r.name}`);
    const at = r.output.lastIndexOf('✖ failing tests:');
    process.stdout.write(at >= 0 ? r.output.slice(at) + '\n' : r.output.slice(-4000) + '\n');
  }
}
printServers('\nThe suites above ran against:');
if (slowLeftOut.length > 0)
  console.log(`Not run: the slow tier, ${slowLeftOut.length} file(s) (TEST_SLOW=1 runs them; CI does).`);
// The closing summary in the words of node's own runner (CI reads it), for the whole run.
console.log('');
for (const key of Object.keys(totals)) console.log(`ℹ ${key} ${totals[key]}`);
console.log(`ℹ duration_ms ${wallMs.toFixed(0)}`);
process.exit(failedFiles.length > 0 ? 1 : 0);
