import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NatsConnection, Status } from '@nats-io/transport-node';
import { BusStatus } from './bus-status.js';
import type { TransportLogger } from './transport-logger.js';
import { NATS_RECONNECT_OPTIONS, natsClient, natsServer, watchNatsConnection } from './nats.js';

/** A NatsConnection stand-in: push statuses, then close it with or without an error. */
function fakeConnection() {
  const queue: Status[] = [];
  let wake: (() => void) | null = null;
  let ended = false;
  let resolveClosed!: (e: Error | void) => void;
  const closed = new Promise<Error | void>((r) => (resolveClosed = r));
  const nc = {
    status: () => ({
      async *[Symbol.asyncIterator]() {
        while (true) {
          while (queue.length) yield queue.shift()!;
          if (ended) return;
          await new Promise<void>((r) => (wake = r));
        }
      },
    }),
    closed: () => closed,
  } as unknown as NatsConnection;
  return {
    nc,
    push(s: Status) {
      queue.push(s);
      wake?.();
    },
    close(error?: Error) {
      ended = true;
      wake?.();
      resolveClosed(error);
    },
  };
}

function memoryLog() {
  const lines: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
  const at = (level: string) => (fields: object, msg: string) =>
    void lines.push({ level, msg, fields: fields as Record<string, unknown> });
  const log: TransportLogger = { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') };
  return { log, lines };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('NATS connection options', () => {
  it('reconnect forever, trying every 1-2 s', () => {
    assert.equal(NATS_RECONNECT_OPTIONS.maxReconnectAttempts, -1);
    assert.ok(NATS_RECONNECT_OPTIONS.reconnectTimeWait + NATS_RECONNECT_OPTIONS.reconnectJitter <= 2000);
    for (const strategy of [natsServer('nats://127.0.0.1:1', 'x'), natsClient('nats://127.0.0.1:1', 'y')]) {
      const options = (strategy as unknown as { options: Record<string, unknown> }).options;
      assert.equal(options.maxReconnectAttempts, -1, 'the Nest strategies get the same options');
    }
  });
});

describe('watchNatsConnection', () => {
  it('logs losing the bus at warn and regaining it at info, and keeps the status', async () => {
    let now = 1000;
    const status = new BusStatus(() => now);
    const { log, lines } = memoryLog();
    const fake = fakeConnection();
    watchNatsConnection(fake.nc, 'burrow-x', { log, status, now: () => now }, () => false);
    assert.deepEqual(
      { ...status.snapshot(), connections: undefined },
      { connected: true, since: 1000, live: true, connections: undefined },
    );

    now = 2000;
    fake.push({ type: 'disconnect', server: 'h:4222' });
    for (let i = 0; i < 5; i++) fake.push({ type: 'reconnecting' });
    await tick();
    assert.deepEqual(
      lines.filter((l) => l.level !== 'debug').map((l) => [l.level, l.msg]),
      [['warn', 'bus connection lost']],
      'each attempt is only a debug line',
    );
    assert.equal(lines[0].fields.connection, 'burrow-x');
    const down = status.snapshot();
    assert.equal(down.connected, false);
    assert.equal(down.since, 2000);
    assert.equal(down.live, true, 'still trying: alive');

    now = 40_000;
    fake.push({ type: 'reconnecting' });
    await tick();
    assert.equal(lines.at(-1)!.msg, 'bus still disconnected; reconnecting', 'a reminder every 30 s of outage');

    now = 41_000;
    fake.push({ type: 'update', added: [], deleted: [] });
    fake.push({ type: 'reconnect', server: 'h:4222' });
    await tick();
    const restored = lines.at(-1)!;
    assert.equal(restored.level, 'info');
    assert.equal(restored.msg, 'bus connection restored');
    assert.equal(restored.fields.attempts, 6);
    assert.ok(!lines.some((l) => l.msg.includes('cluster')), 'the empty update sent on reconnect is not logged');
    assert.deepEqual(
      { connected: status.snapshot().connected, since: status.snapshot().since },
      { connected: true, since: 41_000 },
    );
  });

  it('an unexpected close is logged at error, reported, and makes the status not live', async () => {
    const status = new BusStatus();
    const { log, lines } = memoryLog();
    const fake = fakeConnection();
    const lost: string[] = [];
    watchNatsConnection(fake.nc, 'burrow-y', { log, status, onLost: (c) => lost.push(c) }, () => false);
    fake.close(new Error('Authorization Violation'));
    await tick();
    assert.deepEqual(lost, ['burrow-y']);
    assert.equal(lines.at(-1)!.level, 'error');
    assert.equal(lines.at(-1)!.fields.error, 'Authorization Violation');
    assert.equal(status.snapshot().live, false);
  });

  it('a requested close is neither an error nor counted', async () => {
    const status = new BusStatus();
    const { log, lines } = memoryLog();
    const fake = fakeConnection();
    let closing = false;
    const lost: string[] = [];
    watchNatsConnection(fake.nc, 'burrow-z', { log, status, onLost: (c) => lost.push(c) }, () => closing);
    closing = true;
    fake.push({ type: 'disconnect', server: 'h' });
    fake.close();
    await tick();
    assert.deepEqual(lost, []);
    assert.deepEqual(lines, []);
    assert.deepEqual(status.snapshot().connections, {});
  });
});

describe('BusStatus', () => {
  it('with no connections (in-process bus) is connected and live', () => {
    const s = new BusStatus(() => 5).snapshot();
    assert.deepEqual(s, { connected: true, since: 5, live: true, connections: {} });
  });

  it('is not live when a disconnected connection has stopped trying', () => {
    let now = 0;
    const status = new BusStatus(() => now, 60_000);
    status.up('a');
    status.up('b');
    now = 10;
    status.down('a');
    now = 50_000;
    status.attempt('a');
    assert.equal(status.snapshot().live, true);
    now = 50_000 + 60_000;
    assert.equal(status.snapshot().live, false, 'no attempt for the stall period');
    assert.equal(status.snapshot().since, 10, 'since: when the first connection went down');
  });
});
