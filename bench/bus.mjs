#!/usr/bin/env node
/**
 * The bus's own cost per request (issue 38, "a lean bus"): one `RpcClient.call` answered by a
 * handler that returns a user record of ~600 bytes, 8 at a time, measured as this process's CPU
 * per call (client and server are both here) and req/s. Four ways, in the same run, on the
 * in-process bus and on NATS (a private `nats-server` when one is installed, else NATS_URL):
 * - nest/nest: Nest's Observable client (`ClientProxy.send`) and Nest's RPC pipeline (what every
 *   call paid before the lean bus);
 * - lean/nest, nest/lean: one end lean;
 * - lean/lean: `requestDirect` and the handler called directly (what the services run now).
 * Rounds interleave the four (BENCH_ROUNDS, default 5); the least CPU per call of each is printed
 * with its ratio to nest/nest; on NATS the NATS server's CPU (from /proc) is added: a SUB and an
 * UNSUB per request cost it, not this process. Requests per round: BENCH_REQUESTS (default 20,000).
 *
 *   npm run bench:bus
 */
import 'reflect-metadata';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createServer } from 'node:net';
import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { directHandlers } from '../libs/runtime/dist/index.js';
import {
  InProcessBus,
  InProcessClient,
  InProcessServer,
  natsClient,
  natsServer,
  RpcClient,
} from '../libs/transport/dist/index.js';
import { measureConcurrently } from './concurrent.mjs';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONCURRENCY = 8;
const RECORD = {
  username: 'someone',
  email: 'someone@example.com',
  name: 'Some One',
  plan_id: 3,
  group_id: 12,
  quota: 107374182400,
  used: 5368709120,
  enabled: true,
  created: '2026-11-29T07:00:00.000Z',
  devices: 2,
  features: { webapi_enable: true, share_enable: true, versions: 30 },
  lang: 'en',
  note: 'x'.repeat(300),
};

// a controller as the services write them, decorated by hand (no decorators in plain JS)
class Users {
  get(data) {
    return { ...RECORD, username: data.user };
  }
}
Payload()(Users.prototype, 'get', 0);
MessagePattern('bench.users.get')(Users.prototype, 'get', Object.getOwnPropertyDescriptor(Users.prototype, 'get'));
Controller()(Users);
class UsersModule {}
Module({ controllers: [Users] })(UsersModule);

/** A lean client pretends to be Nest's: `RpcClient` over a client without `requestDirect`. */
function nestOnly(client) {
  return {
    send: (subject, data) => client.send(subject, data),
    emit: (subject, data) => client.emit(subject, data),
    close: () => client.close(),
  };
}

async function serve(strategy, lean) {
  const app = await NestFactory.createMicroservice(UsersModule, { strategy, logger: false });
  await app.init();
  if (lean) strategy.useDirectHandlers(directHandlers(app, [Users], [], (error) => error));
  await app.listen();
  return app;
}

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function privateNats() {
  if (spawnSync('nats-server', ['--version']).status !== 0) return null;
  const port = await freePort();
  const child = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise((resolve) => {
      const c = createServer();
      c.once('error', () => resolve(true)); // the port is taken: the server listens
      c.listen(port, '127.0.0.1', () => c.close(() => resolve(false)));
    });
    if (up) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `nats://127.0.0.1:${port}`, pid: child.pid, close: () => child.kill() };
}

async function setups() {
  const bus = new InProcessBus();
  const list = [
    {
      transport: 'in-process',
      server: (queue) => new InProcessServer(bus, queue),
      client: () => new InProcessClient(bus),
    },
  ];
  const nats = (await privateNats()) ?? (process.env.NATS_URL ? { url: process.env.NATS_URL, close() {} } : null);
  if (nats)
    list.push({
      transport: 'NATS',
      server: (queue) => natsServer(nats.url, queue),
      client: () => natsClient(nats.url, 'bench'),
      close: nats.close,
      serverPid: nats.pid,
    });
  return list;
}

/** CPU ms the process `pid` has used (another process: the NATS server), from /proc; 10 ms steps. */
function processCpuMs(pid) {
  if (!pid) return 0;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const WAYS = [
  ['nest', 'nest'],
  ['lean', 'nest'],
  ['nest', 'lean'],
  ['lean', 'lean'],
];

console.log(
  `bench:bus, ${REQUESTS} calls ${CONCURRENCY} at a time per round, ${ROUNDS} rounds, load ${loadavg()[0].toFixed(2)}`,
);
for (const setup of await setups()) {
  const best = new Map();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [clientWay, serverWay] of WAYS) {
      const queue = `bench-${round}-${clientWay}-${serverWay}`;
      const app = await serve(setup.server(queue), serverWay === 'lean');
      const client = setup.client();
      await client.connect();
      const rpc = new RpcClient(clientWay === 'lean' ? client : nestOnly(client), 5000);
      const one = (i) => rpc.call('bench.users.get', { partnerId: 'p-1', user: `u${i % 100}` });
      const check = await one(7);
      if (check.username !== 'u7' || check.note !== RECORD.note)
        throw new Error(`wrong reply: ${JSON.stringify(check)}`);
      const serverCpu = processCpuMs(setup.serverPid);
      const result = await measureConcurrently(one, { count: REQUESTS, concurrency: CONCURRENCY, warmup: 500 });
      // the NATS server's share too: what a request costs the machine, not only this process
      result.natsMs = (processCpuMs(setup.serverPid) - serverCpu) / (REQUESTS + 500);
      await client.close();
      await app.close();
      const key = `${clientWay}/${serverWay}`;
      const was = best.get(key);
      if (!was || result.cpuMs + result.natsMs < was.cpuMs + was.natsMs) best.set(key, result);
    }
  }
  await setup.close?.();
  const base = best.get('nest/nest');
  const total = (r) => r.cpuMs + r.natsMs;
  console.log(
    `\n${setup.transport}: client/server   CPU µs per call (this process + NATS server)   vs nest/nest      req/s   p50 ms   p99 ms`,
  );
  for (const [key, r] of best)
    console.log(
      `  ${key.padEnd(12)} ${(total(r) * 1000).toFixed(1).padStart(16)} (${(r.cpuMs * 1000).toFixed(1)} + ${(r.natsMs * 1000).toFixed(1)})`.padEnd(
        62,
      ) +
        `${(total(r) / total(base)).toFixed(3).padStart(10)} ${r.rps.toFixed(0).padStart(10)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)}`,
    );
}
process.exit(0);
