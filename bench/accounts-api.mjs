#!/usr/bin/env node
/**
 * Interface A benchmark: requests/s and p50/p99 latency for GET /users/<u>,
 * GET /users/?limit=1000 and POST /groups/<id>, each next to the baseline issue 23 names, measured
 * in the same run on the same machine:
 * - GET /users/<u> against a bare Node HTTP route answering the same user's JSON (target >= 0.5x);
 * - GET /users/?limit=1000 against a bare route answering `JSON.stringify` of the same page, made
 *   anew per request (target: within 2x, i.e. >= 0.5x);
 * - POST /groups/<id> p50 against the p50 of a bare append of one event to the same event store
 *   file, with the same durability (target <= 3x);
 * and the gateway's own /healthz (Nest + Express, no bus) for scale. Every contender is warmed up
 * (BENCH_WARMUP requests, default 300) before it is measured: a cold bare route is several times
 * slower than a warm one, which flattered every ratio.
 * Then sequential user creates (a bulk import: one request after another), without a password
 * (what the management appliance sends) and with one, as creates/s.
 * Then group plan changes (issue 39): of a group of 20 members, one at a time (p50/p99 of the reply,
 * target p99 <= 200 ms), and of a group of BENCH_BIG_GROUP members (default 10,000): how long the
 * reply took (target <= 1 s) and how long until every member was on the new plan (`plan_status`);
 * BENCH_BIG_CHANGES such changes (default 3), BENCH_PLAN_CHANGES 20-member ones (default 200).
 * Prints ratios, not absolute verdicts. Standalone mode by default; BENCH_MODE=multi runs every app
 * as its own process on a private NATS server (needs nats-server), embedded stores; BENCH_USERS sets the user count,
 * BENCH_CREATES the number of sequential creates of each kind (default 1000); BURROW_READ_MODELS=memory
 * runs the server on in-memory read models instead of the SQLite default; BURROW_AGGREGATE_CACHE_STREAMS=0
 * runs it without the aggregate cache (every command reads and folds its whole stream);
 * OTEL_EXPORTER_OTLP_ENDPOINT turns tracing on (in the bench's process standalone, in every
 * process multi; bench/otlp-sink.mjs takes the spans).
 *
 *   npm run bench:accounts
 */
import { createServer, Agent, request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureConcurrently } from './concurrent.mjs';

const { startStandalone } = await import('../apps/e2e/dist/harness/standalone.js');
const MULTI = process.env.BENCH_MODE === 'multi';

const USERS = Number(process.env.BENCH_USERS ?? 2500);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const CREATES = Number(process.env.BENCH_CREATES ?? 1000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);
const BIG_GROUP = Number(process.env.BENCH_BIG_GROUP ?? 10_000);
const PLAN_CHANGES = Number(process.env.BENCH_PLAN_CHANGES ?? 200);
const BIG_CHANGES = Number(process.env.BENCH_BIG_CHANGES ?? 3);
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function call(url, { method = 'GET', auth, body } = {}) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        agent,
        headers: {
          ...(auth ? { authorization: 'Basic ' + Buffer.from(auth).toString('base64') } : {}),
          ...(body ? { 'content-type': 'text/javascript' } : {}),
        },
      },
      (res) => {
        let size = 0;
        res.on('data', (c) => (size += c.length));
        res.on('end', () =>
          res.statusCode < 400 ? resolve(size) : reject(new Error(`${method} ${url}: ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

async function measure(name, make, count = REQUESTS, concurrency = CONCURRENCY) {
  return { name, ...(await measureConcurrently(make, { count, concurrency, warmup: WARMUP })) };
}

// the bare routes answer what the gateway answers (filled in once the users exist)
const bareAnswers = { user: '"pong"', page: [] };
const bare = createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(req.url === '/page' ? JSON.stringify(bareAnswers.page) : bareAnswers.user);
});
await new Promise((r) => bare.listen(0, '127.0.0.1', r));
const bareUrl = `http://127.0.0.1:${bare.address().port}/`;

const dataDir = await mkdtemp(join(tmpdir(), 'burrow-bench-'));
// BURROW_SQLITE_SYNCHRONOUS=normal compares against the relaxed durability setting
const durability = process.env.BURROW_SQLITE_SYNCHRONOUS
  ? { BURROW_SQLITE_SYNCHRONOUS: process.env.BURROW_SQLITE_SYNCHRONOUS }
  : {};
const { SqliteEventStore } = await import('../libs/event-store/dist/sqlite.js');
const passed = ['BURROW_READ_MODELS', 'BURROW_AGGREGATE_CACHE_STREAMS'].filter(
  (name) => process.env[name] !== undefined,
);
const serverEnv = {
  LOG_LEVEL: 'silent',
  ...durability,
  ...Object.fromEntries(passed.map((name) => [name, process.env[name]])),
};
let nats = null;
let target;
if (MULTI) {
  const { startPrivateNats } = await import('../apps/e2e/dist/harness/private-nats.js');
  const { startMultiProcess } = await import('../apps/e2e/dist/harness/multi-process.js');
  // started by startPrivateNats (a second start() spawned a second server, which failed to bind and
  // left the first one running unkilled: the bench printed its results and never exited)
  nats = await startPrivateNats();
  target = await startMultiProcess(nats.url, serverEnv, { productionServers: false });
} else {
  target = await startStandalone(serverEnv, dataDir);
}
const auth = `${target.partner.username}:${target.partner.password}`;
// the bare append's baseline: a second connection to the server's own event-store file, same durability
const store = SqliteEventStore.open(join(target.dataDir, 'events.sqlite'), {
  synchronous: process.env.BURROW_SQLITE_SYNCHRONOUS === 'normal' ? 'normal' : 'full',
});
const text = (url, { method = 'GET', body } = {}) =>
  new Promise((resolve, reject) => {
    const u = new URL(url);
    request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        agent,
        headers: { authorization: 'Basic ' + Buffer.from(auth).toString('base64') },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () =>
          res.statusCode < 400 ? resolve(text) : reject(new Error(`${method} ${url}: ${res.statusCode} ${text}`)),
        );
      },
    )
      .on('error', reject)
      .end(body ? JSON.stringify(body) : undefined);
  });
try {
  console.log(`setting up ${USERS} users ...`);
  const group = JSON.parse(
    await new Promise((resolve, reject) => {
      const u = new URL(`${target.url}/groups/`);
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          agent,
          headers: { authorization: 'Basic ' + Buffer.from(auth).toString('base64') },
        },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve(text));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ name: 'bench', plan_id: 1 }));
    }),
  );
  let created = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (created < USERS) {
        const i = created++;
        await call(`${target.url}/users/`, {
          method: 'POST',
          auth,
          body: {
            name: `User ${i}`,
            email: `user${i}@bench.example`,
            username: `user${i}`,
            password: 'bench-password-1',
            plan_id: 1,
          },
        });
      }
    }),
  );

  bareAnswers.user = await text(`${target.url}/users/user0`);
  bareAnswers.page = JSON.parse(await text(`${target.url}/users/?limit=1000`));
  const pages = Math.max(50, Math.floor(REQUESTS / 20));
  const writes = Math.max(100, Math.floor(REQUESTS / 4));
  const results = [
    await measure("baseline: bare route, a user's JSON", () => call(bareUrl)),
    await measure('baseline: gateway /healthz (no bus)', () => call(`${target.url}/healthz`)),
    await measure('GET /users/<u>', (i) => call(`${target.url}/users/user${i % USERS}`, { auth })),
    await measure(
      `baseline: bare route, stringify ${bareAnswers.page.length} users`,
      () => call(`${bareUrl}page`),
      pages,
    ),
    await measure(
      'GET /users/?limit=1000',
      (i) => call(`${target.url}/users/?limit=1000&offset=${(i % 3) * 1000}`, { auth }),
      pages,
    ),
    await measure(
      'POST /groups/<id>',
      (i) =>
        call(`${target.url}/groups/${group.group_id}`, { method: 'POST', auth, body: { webapi_enable: i % 2 === 0 } }),
      writes,
    ),
    // latency, one at a time: the group change against one append of one event
    await measure(
      'baseline: bare event-store append, 1 at a time',
      (i) => store.append(`bench-append-${i % 100}`, [{ type: 'BenchAppended', data: { i } }], 'any'),
      writes,
      1,
    ),
    await measure(
      'POST /groups/<id>, 1 at a time',
      (i) =>
        call(`${target.url}/groups/${group.group_id}`, { method: 'POST', auth, body: { webapi_enable: i % 2 === 1 } }),
      writes,
      1,
    ),
  ];
  // Sequential creates: one at a time, as an import script does. The first 20 warm up.
  const sequential = async (name, body) => {
    for (let i = 0; i < 20; i++)
      await call(`${target.url}/users/`, { method: 'POST', auth, body: body(`warm${name}${i}`) });
    const started = process.hrtime.bigint();
    for (let i = 0; i < CREATES; i++)
      await call(`${target.url}/users/`, { method: 'POST', auth, body: body(`${name}${i}`) });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return { name, perSecond: CREATES / seconds, msEach: (seconds * 1000) / CREATES };
  };
  const creates = [
    await sequential('nopw', (u) => ({ name: `Import ${u}`, email: `${u}@import.example`, username: u, plan_id: 1 })),
    await sequential('withpw', (u) => ({
      name: `Import ${u}`,
      email: `${u}@import.example`,
      username: u,
      plan_id: 1,
      password: `pw-${u}-secret`,
    })),
  ];

  // Group plan changes: members are created into their group (no password: a bulk import), then
  // the group's plan goes back and forth between plans 1 and 2.
  const post = (path, body) => text(`${target.url}${path}`, { method: 'POST', body });
  const groupOf = async (name, members) => {
    const g = JSON.parse(await post('/groups/', { name, plan_id: 1 }));
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < members) {
          const i = next++;
          await call(`${target.url}/users/`, {
            method: 'POST',
            auth,
            body: {
              name: `${name} ${i}`,
              email: `${name}${i}@groups.example`,
              username: `${name}${i}`,
              group_id: g.group_id,
            },
          });
        }
      }),
    );
    return g;
  };
  const planCurrent = async (g, plan) => {
    for (;;) {
      const now = JSON.parse(await text(`${target.url}/groups/${g.group_id}`));
      if (now.plan_id === plan && now.plan_status !== 'updating') return;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  console.log('setting up a group of 20 members and one of', BIG_GROUP, '...');
  const small = await groupOf('g20m', 20);
  const big = await groupOf('gbigm', BIG_GROUP);
  const smallChanges = await measure(
    'POST /groups/<id> plan change, 20 members, 1 at a time',
    (i) =>
      call(`${target.url}/groups/${small.group_id}`, { method: 'POST', auth, body: { plan_id: i % 2 === 0 ? 2 : 1 } }),
    PLAN_CHANGES,
    1,
  );
  const bigChanges = [];
  for (const plan of [2, 1, 2].slice(0, BIG_CHANGES)) {
    const started = process.hrtime.bigint();
    await post(`/groups/${big.group_id}`, { plan_id: plan });
    const replyMs = Number(process.hrtime.bigint() - started) / 1e6;
    await planCurrent(big, plan);
    bigChanges.push({ replyMs, appliedMs: Number(process.hrtime.bigint() - started) / 1e6 });
  }

  const base = results[0];
  console.log(
    `\n${USERS} users, concurrency ${CONCURRENCY}, ${target.mode} mode, SQLite synchronous=${process.env.BURROW_SQLITE_SYNCHRONOUS ?? 'full'}, warm-up ${WARMUP}, tracing ${process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? 'on' : 'off'}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}, ${new Date().toISOString()}`,
  );
  // CPU of this process per request: the server's and the client's in standalone mode (steadier than req/s on a loaded machine), the client's alone in multi
  console.log(
    'route'.padEnd(44),
    'req/s'.padStart(9),
    'p50 ms'.padStart(8),
    'p99 ms'.padStart(8),
    ' rps vs bare'.padStart(12),
    (MULTI ? 'client CPU ms' : 'CPU ms/req').padStart(14),
  );
  for (const r of results) {
    console.log(
      r.name.padEnd(44),
      r.rps.toFixed(0).padStart(9),
      r.p50.toFixed(2).padStart(8),
      r.p99.toFixed(2).padStart(8),
      (r.rps / base.rps).toFixed(3).padStart(12),
      r.cpuMs.toFixed(3).padStart(14),
    );
  }
  // issue 23's targets, each against its own baseline from this run
  const [, , user, stringify, page, , append, write] = results;
  const verdict = (ok) => (ok ? 'met' : 'not met');
  console.log('\ntarget (issue 23)'.padEnd(45), 'measured'.padStart(9), ' target');
  console.log(
    'GET /users/<u> rps / bare route'.padEnd(44),
    (user.rps / base.rps).toFixed(3).padStart(9),
    ` >= 0.5: ${verdict(user.rps / base.rps >= 0.5)}`,
  );
  console.log(
    'GET /users/?limit=1000 rps / stringify route'.padEnd(44),
    (page.rps / stringify.rps).toFixed(3).padStart(9),
    ` >= 0.5: ${verdict(page.rps / stringify.rps >= 0.5)}`,
  );
  console.log(
    'POST /groups/<id> p50 / append p50'.padEnd(44),
    (write.p50 / append.p50).toFixed(2).padStart(9),
    ` <= 3: ${verdict(write.p50 / append.p50 <= 3)}`,
  );
  console.log(
    `\nsequential POST /users/ (${CREATES} each, one at a time)`.padEnd(41),
    'creates/s'.padStart(9),
    'ms each'.padStart(8),
  );
  const label = { nopw: 'without password (temp_password)', withpw: 'with a password (scrypt)' };
  for (const c of creates)
    console.log(label[c.name].padEnd(40), c.perSecond.toFixed(1).padStart(9), c.msEach.toFixed(2).padStart(8));
  console.log('\ngroup plan changes (issue 39)'.padEnd(45), 'measured'.padStart(9), ' target');
  console.log('20 members: reply p50 ms'.padEnd(44), smallChanges.p50.toFixed(1).padStart(9));
  console.log(
    '20 members: reply p99 ms'.padEnd(44),
    smallChanges.p99.toFixed(1).padStart(9),
    ` <= 200: ${verdict(smallChanges.p99 <= 200)}`,
  );
  for (const [i, c] of bigChanges.entries()) {
    console.log(
      `${BIG_GROUP} members, change ${i + 1}: reply ms`.padEnd(44),
      c.replyMs.toFixed(1).padStart(9),
      ` <= 1000: ${verdict(c.replyMs <= 1000)}`,
    );
    console.log(
      `${BIG_GROUP} members, change ${i + 1}: all on the plan, s`.padEnd(44),
      (c.appliedMs / 1000).toFixed(1).padStart(9),
      ` (${(BIG_GROUP / (c.appliedMs / 1000)).toFixed(0)} members/s)`,
    );
  }
} finally {
  await store.close();
  await target.close();
  await nats?.kill();
  bare.close();
  agent.destroy();
  await rm(dataDir, { recursive: true, force: true });
}
