import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError } from '@burrow/contracts';
import { InProcessBus } from './in-process-bus.js';
import { InProcessClient } from './in-process-client.js';
import { RpcClient } from './rpc-client.js';
import type { TransportLogger } from './transport-logger.js';

function memoryLog() {
  const lines: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
  const at = (level: string) => (fields: object, msg: string) =>
    void lines.push({ level, msg, fields: fields as Record<string, unknown> });
  const log: TransportLogger = { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') };
  return { log, lines };
}

describe('RpcClient 503 log', () => {
  it('a call to an unserved subject is a 503, logged once with the subject and the cause', async () => {
    const { log, lines } = memoryLog();
    const rpc = new RpcClient(new InProcessClient(new InProcessBus()), 500, { log });
    await assert.rejects(
      rpc.call('accounts.nobody-home', {}),
      (e: unknown) => e instanceof DomainError && e.status === 503,
    );
    assert.equal(lines.length, 1);
    assert.equal(lines[0].level, 'warn');
    assert.equal(lines[0].msg, 'service unavailable: answered 503');
    assert.equal(lines[0].fields.subject, 'accounts.nobody-home');
    assert.match(String(lines[0].fields.cause), /no responders for accounts\.nobody-home/);
  });

  it('a burst of 100 failures logs the first and then one summary with the count per subject', async () => {
    const { log, lines } = memoryLog();
    const rpc = new RpcClient(new InProcessClient(new InProcessBus()), 500, { log, unavailableLogIntervalMs: 300 });
    const failures = Array.from({ length: 100 }, (_, i) =>
      rpc.call(i % 2 ? 'accounts.a' : 'billing.b', {}).catch((e: DomainError) => e.status),
    );
    assert.deepEqual(new Set(await Promise.all(failures)), new Set([503]));
    assert.equal(lines.length, 1, 'only the first is logged during the burst');
    const deadline = Date.now() + 5000;
    while (lines.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(lines.length, 2, 'then one summary when the interval ends');
    assert.equal(lines[1].msg, '99 more 503s suppressed');
    assert.deepEqual(lines[1].fields.subjects, { 'accounts.a': 50, 'billing.b': 49 });
  });

  it('other errors are not logged, and without a logger nothing is', async () => {
    const { log, lines } = memoryLog();
    const bus = new InProcessBus();
    bus.subscribe(
      'accounts.fail',
      (_m, reply) =>
        reply?.(JSON.stringify({ err: { burrowError: true, status: 404, reason: 'nope' }, isDisposed: true })),
      'accounts',
    );
    const rpc = new RpcClient(new InProcessClient(bus), 500, { log });
    await assert.rejects(rpc.call('accounts.fail', {}), (e: unknown) => e instanceof DomainError && e.status === 404);
    assert.equal(lines.length, 0);
    await assert.rejects(
      new RpcClient(new InProcessClient(bus), 500).call('x.y', {}),
      (e: unknown) => e instanceof DomainError && e.status === 503,
    );
  });
});
