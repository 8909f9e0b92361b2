/**
 * Tracing on the bus (issue 39, item 7), for the in-process bus and NATS alike, with the SDK
 * started for this process and its spans read back from an OTLP receiver: a request's span is a
 * child of the caller's active span, the handler's a child of the request's (on NATS through the
 * message's headers, `traceparent`), in one trace; a domain error (4xx) is an answer, not a
 * failure; a 500 and an unanswered request are failures; an event's handler is a child of its
 * send; a handler's log fields name its span. Transports made without tracing add no header.
 */
import 'reflect-metadata';
import { DomainError, notFound } from '@burrow/contracts';
import {
  descendsFrom,
  OTLP_SPAN_KIND,
  OTLP_STATUS,
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from '@burrow/tracing/testing';
import { startTracing, type Tracing } from '@burrow/tracing';
import {
  type BusTracing,
  InProcessBus,
  InProcessClient,
  InProcessServer,
  natsClient,
  natsServer,
  NO_REPLY,
  RpcClient,
} from '@burrow/transport';
import { Catch, Controller, type INestMicroservice, Module, type RpcExceptionFilter } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  type ClientProxy,
  type CustomTransportStrategy,
  Ctx,
  EventPattern,
  MessagePattern,
  Payload,
} from '@nestjs/microservices';
import { trace } from '@opentelemetry/api';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { throwError } from 'rxjs';

@Catch()
class Filter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown) {
    return throwError(() =>
      exception instanceof DomainError
        ? exception.toWire()
        : { burrowError: true, status: 500, reason: 'internal error' },
    );
  }
}

interface Factory {
  server(queue: string, tracing?: BusTracing): CustomTransportStrategy;
  client(tracing?: BusTracing): ClientProxy;
}

let receiver: OtlpReceiver;
let tracing: Tracing;

before(async () => {
  receiver = await startOtlpReceiver();
  // the SDK reads its settings from the process's environment
  Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50' });
  tracing = (await startTracing('transport-test'))!;
  assert.ok(tracing, 'tracing started');
});

after(async () => {
  await tracing?.shutdown();
  await receiver?.close();
});

/** Runs `fn` in a span of the test's own, as a gateway request's span would be; returns its ids. */
async function inParent<T>(fn: () => Promise<T>): Promise<{ traceId: string; spanId: string; result: T }> {
  return trace.getTracer('test').startActiveSpan('test parent', async (span) => {
    try {
      return { ...span.spanContext(), result: await fn() };
    } finally {
      span.end();
    }
  });
}

function transportTracing(name: string, factory: (() => Factory) | null, skipReason?: string) {
  describe(`bus tracing: ${name}`, { skip: factory ? false : skipReason }, () => {
    const prefix = `tracing.${process.pid}.${name.replace(/\W/g, '')}`;
    const handled: { fields: Record<string, string>; headers?: unknown }[] = [];
    const events: Record<string, string>[] = [];
    let app: INestMicroservice;
    let plainApp: INestMicroservice;
    let client: ClientProxy;
    let plainClient: ClientProxy;
    let rpc: RpcClient;

    before(async () => {
      const f = factory!();
      @Controller()
      class Handlers {
        @MessagePattern(`${prefix}.echo`)
        echo(@Payload() data: object, @Ctx() ctx: { getHeaders?: () => unknown }) {
          handled.push({ fields: tracing.logFields(), headers: ctx.getHeaders?.() });
          return data;
        }

        @MessagePattern(`${prefix}.missing`)
        missing() {
          throw notFound('nothing here');
        }

        @MessagePattern(`${prefix}.crash`)
        crash() {
          throw new Error('boom');
        }

        @MessagePattern(`${prefix}.slow`)
        async slow() {
          await new Promise((r) => setTimeout(r, 1000));
          return 'late';
        }

        @EventPattern(`${prefix}.event`)
        event(@Payload() _data: unknown) {
          events.push(tracing.logFields());
        }
      }
      @Module({ controllers: [Handlers] })
      class TracedModule {}
      app = await NestFactory.createMicroservice(
        { module: TracedModule },
        { strategy: f.server('traced-svc', tracing.bus), logger: false },
      );
      app.useGlobalFilters(new Filter());
      await app.listen();
      @Controller()
      class PlainHandlers {
        @MessagePattern(`${prefix}.plain`)
        plain(@Ctx() ctx: { getHeaders?: () => { get(name: string): string } | undefined }) {
          return { traceparent: ctx.getHeaders?.()?.get('traceparent') ?? null };
        }
      }
      @Module({ controllers: [PlainHandlers] })
      class PlainModule {}
      plainApp = await NestFactory.createMicroservice(
        { module: PlainModule },
        { strategy: f.server('plain-svc'), logger: false },
      );
      await plainApp.listen();
      client = f.client(tracing.bus);
      await client.connect();
      plainClient = f.client();
      await plainClient.connect();
      rpc = new RpcClient(client, 300);
    });

    after(async () => {
      await client?.close();
      await plainClient?.close();
      await app?.close();
      await plainApp?.close();
    });

    const spansOf = async (traceId: string, count: number): Promise<ReceivedSpan[]> => {
      await tracing.flush();
      const all = await receiver.waitFor((spans) => spans.filter((s) => s.traceId === traceId).length >= count);
      return all.filter((s) => s.traceId === traceId);
    };

    it("a request is a span under the caller's, its handler a span under the request's, one trace; the handler logs with its span", async () => {
      const parent = await inParent(() => rpc.call(`${prefix}.echo`, { a: 1 }));
      assert.deepEqual(parent.result, { a: 1 });
      const spans = await spansOf(parent.traceId, 3);
      const send = spans.find((s) => s.name === `send ${prefix}.echo`)!;
      const handler = spans.find((s) => s.name === `process ${prefix}.echo`)!;
      assert.equal(send.kind, OTLP_SPAN_KIND.CLIENT);
      assert.equal(send.parentSpanId, parent.spanId);
      assert.equal(handler.kind, OTLP_SPAN_KIND.SERVER);
      assert.equal(handler.parentSpanId, send.spanId);
      assert.equal(handler.attributes['burrow.service'], 'traced-svc');
      assert.equal(handler.attributes['messaging.system'], name === 'NATS' ? 'nats' : 'in-process');
      assert.equal(send.status.code, OTLP_STATUS.UNSET);
      const fields = handled.at(-1)!.fields;
      assert.deepEqual(fields, { trace_id: parent.traceId, span_id: handler.spanId });
      if (name === 'NATS')
        assert.match(
          String((handled.at(-1)!.headers as { get(n: string): string }).get('traceparent')),
          new RegExp(`^00-${parent.traceId}-${send.spanId}-01$`),
        );
    });

    it('a domain error (404) is an answer: recorded, not a failure; a 500 fails both spans', async () => {
      const missing = await inParent(() =>
        rpc.call(`${prefix}.missing`).then(
          () => 'answered',
          (e: DomainError) => e.status,
        ),
      );
      assert.equal(missing.result, 404);
      const crash = await inParent(() =>
        rpc.call(`${prefix}.crash`).then(
          () => 'answered',
          (e: DomainError) => e.status,
        ),
      );
      assert.equal(crash.result, 500);
      for (const [run, subject, code] of [
        [missing, 'missing', OTLP_STATUS.UNSET],
        [crash, 'crash', OTLP_STATUS.ERROR],
      ] as const) {
        const spans = await spansOf(run.traceId, 3);
        for (const span of spans.filter((s) => s.name.endsWith(`${prefix}.${subject}`))) {
          assert.equal(span.status.code, code, `${span.name}`);
          assert.equal(span.attributes['burrow.error.status'], subject === 'missing' ? 404 : 500);
        }
      }
    });

    it('a request nobody answers in time fails its span with the reason', async () => {
      const slow = await inParent(() =>
        rpc.call(`${prefix}.slow`).then(
          () => 'answered',
          (e: DomainError) => e.status,
        ),
      );
      assert.equal(slow.result, 503);
      const spans = await spansOf(slow.traceId, 2);
      const send = spans.find((s) => s.name === `send ${prefix}.slow`)!;
      assert.equal(send.status.code, OTLP_STATUS.ERROR);
      assert.equal(send.status.message, NO_REPLY);
    });

    it("an event's handler is a span under its send", async () => {
      const count = events.length;
      const sent = await inParent(async () => {
        await new RpcClient(client).emit(`${prefix}.event`, { n: 1 });
        const deadline = Date.now() + 5000;
        while (events.length === count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      });
      const spans = await spansOf(sent.traceId, 3);
      const send = spans.find((s) => s.name === `send ${prefix}.event`)!;
      const handler = spans.find((s) => s.name === `process ${prefix}.event`)!;
      assert.equal(send.kind, OTLP_SPAN_KIND.PRODUCER);
      assert.equal(send.parentSpanId, sent.spanId);
      assert.ok(descendsFrom(spans, handler, send));
      assert.equal(events.at(-1)!.span_id, handler.spanId);
    });

    it('a client made without tracing sends no trace context, whatever span is active', async () => {
      const plain = new RpcClient(plainClient, 2000);
      const { result } = await inParent(() => plain.call<{ traceparent: string | null }>(`${prefix}.plain`));
      assert.equal(result.traceparent, null);
    });
  });
}

transportTracing('in-process bus', () => {
  const bus = new InProcessBus();
  return { server: (queue, t) => new InProcessServer(bus, queue, t), client: (t) => new InProcessClient(bus, t) };
});

const natsUrl = process.env.NATS_URL;
transportTracing(
  'NATS',
  natsUrl
    ? () => ({
        server: (queue, t) => natsServer(natsUrl, queue, {}, t),
        client: (t) => natsClient(natsUrl, 'tracing-test', {}, t) as unknown as ClientProxy,
      })
    : null,
  'NATS_URL not set: no NATS server for this run',
);
