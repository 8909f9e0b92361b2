/**
 * Transport contract: what every service relies on from the bus, checked against the in-process
 * bus and the real NATS server alike. Request/reply, a JSON round trip (no shared references),
 * queue groups (one member of a group handles each request), broadcast events, domain errors
 * crossing intact, a bounded timeout (503) when nobody answers, and replies already serialized
 * (`JsonText`) reaching `call` as their value and `relay` as their very text.
 *
 * It runs twice per transport: with the handlers behind Nest's RPC pipeline, and called directly
 * by the server strategy as every service's are (the lean bus: libs/runtime's `directHandlers`).
 * `RpcClient` sends on the lean bus either way; a plain Nest client (its Observable `send`) is
 * checked against both, so both ends keep speaking Nest's wire format.
 */
import { DomainError, JsonText, notFound } from '@burrow/contracts';
import { directHandlers } from '@burrow/runtime';
import { hasDirectDispatch, RpcClient } from '@burrow/transport';
import { Controller, type DynamicModule, type INestMicroservice, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  type ClientProxy,
  type CustomTransportStrategy,
  EventPattern,
  MessagePattern,
  Payload,
} from '@nestjs/microservices';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Catch, type RpcExceptionFilter } from '@nestjs/common';
import { firstValueFrom, throwError } from 'rxjs';
import { waitFor } from './util.js';

export interface TransportFactory {
  server(queue: string): CustomTransportStrategy;
  client(): ClientProxy;
  close?(): Promise<void>;
}

const testWire = (exception: unknown) =>
  exception instanceof DomainError ? exception.toWire() : { burrowError: true, status: 500, reason: 'internal error' };

@Catch()
class TestWireFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown) {
    return throwError(() => testWire(exception));
  }
}

/** Where the servers' request handlers run: Nest's RPC pipeline, or called directly (the lean bus). */
export type Dispatch = 'nest' | 'direct';

/** A page as a service relays it: text that needs escaping, non-ASCII, the envelope's own marker inside. */
const PAGE = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    i,
    name: `user "${i}" \\ é 😀`,
    note: '{"id":"x","isDisposed":true,"err":null,"response":',
    none: null,
  }));
/** A plain reply that reads like a JsonText envelope: it must come back as this string. */
const ENVELOPE_LIKE = '{"id":"abc","isDisposed":true,"err":null,"response":[1]}';

function echoModule(instance: string, prefix: string, log: string[], received: unknown[]): DynamicModule {
  @Controller()
  class Handlers {
    @MessagePattern(`${prefix}.echo`)
    echo(@Payload() data: Record<string, unknown>) {
      received.push(data);
      (data as { mutated?: boolean }).mutated = true;
      return { ...data, handledBy: instance };
    }

    @MessagePattern(`${prefix}.page`)
    page(@Payload() data: { n: number }) {
      return JsonText.of(PAGE(data.n));
    }

    @MessagePattern(`${prefix}.envelope-like`)
    envelopeLike() {
      return ENVELOPE_LIKE;
    }

    @MessagePattern(`${prefix}.fail`)
    fail() {
      throw notFound('nothing here');
    }

    @MessagePattern(`${prefix}.crash`)
    crash() {
      throw new Error('secret internals');
    }

    @MessagePattern(`${prefix}.slow`)
    async slow() {
      await new Promise((r) => setTimeout(r, 2000));
      return 'late';
    }

    @EventPattern(`${prefix}.event`)
    event(@Payload() data: { n?: unknown }) {
      log.push(`${instance}:${String(data.n)}`);
    }
  }
  @Module({ controllers: [Handlers] })
  class EchoModule {}
  return { module: EchoModule };
}

export function transportContract(
  name: string,
  factory: (() => Promise<TransportFactory>) | null,
  skipReason?: string,
) {
  for (const dispatch of ['direct', 'nest'] as const) contractWith(name, dispatch, factory, skipReason);
}

function contractWith(
  name: string,
  dispatch: Dispatch,
  factory: (() => Promise<TransportFactory>) | null,
  skipReason?: string,
) {
  describe(
    `transport contract: ${name}, handlers ${dispatch === 'direct' ? 'called directly' : "behind Nest's pipeline"}`,
    { skip: factory ? false : skipReason },
    () => {
      const prefix = `contract.${dispatch}.${process.pid}.${Date.now().toString(36)}`;
      const log: string[] = [];
      const received: unknown[] = [];
      let transport: TransportFactory;
      const apps: INestMicroservice[] = [];
      let rpc: RpcClient;
      let client: ClientProxy;
      let directCalls = 0;

      before(async () => {
        transport = await factory!();
        // two members of queue "svc" and one of queue "other"
        for (const [instance, queue] of [
          ['a1', 'svc'],
          ['a2', 'svc'],
          ['b1', 'other'],
        ]) {
          const module = echoModule(instance, prefix, log, received);
          const strategy = transport.server(queue);
          const app = await NestFactory.createMicroservice(module, { strategy, logger: false });
          app.useGlobalFilters(new TestWireFilter());
          if (dispatch === 'direct') {
            assert.ok(hasDirectDispatch(strategy), 'the strategy calls handlers directly');
            const controllers = Reflect.getMetadata('controllers', module.module) as Type[];
            // counted, so the contract proves the strategy called them rather than Nest's pipeline
            const table = directHandlers(app, controllers, [], testWire);
            for (const [subject, handler] of table)
              table.set(subject, (data) => {
                directCalls++;
                return handler(data);
              });
            strategy.useDirectHandlers(table);
          }
          await app.listen();
          apps.push(app);
        }
        client = transport.client();
        await client.connect();
        rpc = new RpcClient(client, 500);
      });

      after(async () => {
        await client?.close();
        for (const app of apps) await app.close();
        await transport?.close?.();
      });

      it('request/reply returns the handler result after a JSON round trip', async () => {
        const payload = { text: 'héllo', n: 42, nested: { list: [1, 2] }, when: new Date(0) };
        const reply = await rpc.call<Record<string, unknown>>(`${prefix}.echo`, payload);
        assert.equal(reply.text, 'héllo');
        assert.deepEqual(reply.nested, { list: [1, 2] });
        // a Date is serialised, not shared: the handler saw a string
        assert.equal(reply.when, '1970-01-01T00:00:00.000Z');
        // the handler mutated its copy; ours is untouched
        assert.equal((payload as { mutated?: boolean }).mutated, undefined);
        // handled on the path this run is for
        if (dispatch === 'direct') assert.ok(directCalls > 0, 'the strategy called the direct handler');
        else assert.equal(directCalls, 0);
      });

      it('a JsonText reply reaches call() as its value and relay() as its very text', async () => {
        const expected = JsonText.of(PAGE(300)).text;
        assert.deepEqual(await rpc.call(`${prefix}.page`, { n: 300 }), PAGE(300));
        const relayed = await rpc.relay(`${prefix}.page`, { n: 300 });
        assert.ok(relayed instanceof JsonText);
        assert.equal(relayed.text, expected);
        assert.equal((await rpc.relay(`${prefix}.page`, { n: 0 })).text, '[]');
      });

      it('relay() of a plain reply is its JSON text; a reply that looks like the envelope stays what it is', async () => {
        assert.equal((await rpc.relay<{ a: number }>(`${prefix}.echo`, { a: 1 })).parse().a, 1);
        assert.equal(await rpc.call(`${prefix}.envelope-like`), ENVELOPE_LIKE);
        assert.equal((await rpc.relay(`${prefix}.envelope-like`)).text, JSON.stringify(ENVELOPE_LIKE));
      });

      it('each request is handled by exactly one member of each queue group', async () => {
        // tagged, so a copy of an earlier test's request that the other group is still handling is
        // not counted here
        const run = `${Date.now()}-${Math.random()}`;
        const ours = () => received.filter((data) => (data as { run?: string }).run === run) as { i: number }[];
        const replies = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            rpc.call<{ handledBy: string; i: number }>(`${prefix}.echo`, { i, run }),
          ),
        );
        // three subscribers in two groups: every request reached one member of "svc" and the one of
        // "other"; a call resolves with the first reply, so the other group's copies may still be
        // on their way (on NATS): wait for them, then count
        await waitFor(() => ours().length >= 40, 'both groups handled every request', {
          state: () => ours().length,
        });
        const copies = new Map<number, number>();
        for (const { i } of ours()) copies.set(i, (copies.get(i) ?? 0) + 1);
        assert.deepEqual(
          [...copies].sort(([a], [b]) => a - b),
          Array.from({ length: 20 }, (_, i) => [i, 2]),
        );
        assert.equal(replies.length, 20);
        assert.deepEqual(
          replies.map((r) => r.i).sort((a, b) => a - b),
          Array.from({ length: 20 }, (_, i) => i),
        );
      });

      it('domain errors cross the bus with status and body intact', async () => {
        await assert.rejects(rpc.call(`${prefix}.fail`, {}), (error: unknown) => {
          assert.ok(error instanceof DomainError);
          assert.equal(error.status, 404);
          assert.equal(error.body.reason, 'nothing here');
          return true;
        });
      });

      it('an unexpected error becomes a 500 without leaking its message', async () => {
        await assert.rejects(rpc.call(`${prefix}.crash`, {}), (error: unknown) => {
          assert.ok(error instanceof DomainError);
          assert.equal(error.status, 500);
          assert.doesNotMatch(error.body.reason, /secret/);
          return true;
        });
      });

      it('a slow handler yields a 503 after the bounded timeout', async () => {
        const started = Date.now();
        await assert.rejects(rpc.call(`${prefix}.slow`, {}, { timeoutMs: 200 }), (error: unknown) => {
          assert.ok(error instanceof DomainError);
          assert.equal(error.status, 503);
          return true;
        });
        assert.ok(Date.now() - started < 1500);
      });

      it('a subject nobody serves yields a 503, never a hang', async () => {
        await assert.rejects(rpc.call(`${prefix}.nobody`, {}, { timeoutMs: 300 }), (error: unknown) => {
          assert.ok(error instanceof DomainError);
          assert.equal(error.status, 503);
          return true;
        });
      });

      it("a plain Nest client (its Observable send) gets the same replies: Nest's wire format both ways", async () => {
        const send = <T>(subject: string, data: object) => firstValueFrom(client.send<T>(subject, data));
        const echoed = await send<Record<string, unknown>>(`${prefix}.echo`, { text: 'plain' });
        assert.equal(echoed.text, 'plain');
        assert.ok(['a1', 'a2', 'b1'].includes(echoed.handledBy as string));
        // this module's clients keep a JsonText reply as text (RpcClient.call parses it)
        const page = await send<unknown>(`${prefix}.page`, { n: 3 });
        assert.deepEqual(page instanceof JsonText ? page.parse() : page, PAGE(3));
        await assert.rejects(send(`${prefix}.fail`, {}), (error: unknown) => {
          assert.deepEqual(DomainError.fromWire(error)?.status, 404);
          return true;
        });
      });

      it('an event reaches one member of each queue group, as on NATS', async () => {
        log.length = 0;
        await rpc.emit(`${prefix}.event`, { n: 7 });
        // each member gets what one publisher sends in the order it was sent: once every member has
        // handled an event sent after 7, each copy of 7 there was to be has been handled (no settling time)
        let marker = 0;
        await waitFor(
          async () => {
            if (['a1', 'a2', 'b1'].every((member) => log.some((line) => line.startsWith(`${member}:m`)))) return true;
            await rpc.emit(`${prefix}.event`, { n: `m${++marker}` });
            return false;
          },
          'every member handled a later event',
          { state: () => log },
        );
        const sevens = log.filter((line) => line.endsWith(':7'));
        assert.equal(sevens.length, 2, `one copy per queue group: ${sevens.join(', ')}`);
        assert.equal(sevens.filter((line) => line.startsWith('a')).length, 1);
        assert.ok(sevens.includes('b1:7'));
      });
    },
  );
}
