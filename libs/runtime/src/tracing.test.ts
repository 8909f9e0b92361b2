/**
 * The infrastructure with tracing on and off (issue 39, item 7): on, the event store, the read
 * models and the blob store make spans for calls made within a span (a request, a bus call) and
 * none for background work, and every log line written within a span names it (`trace_id`,
 * `span_id`); off, the adapters are the adapters themselves (no wrapper) and log lines carry no
 * trace fields. The OTEL_* variables are checked with the rest of the configuration.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { types } from 'node:util';
import { startTracing, type Tracing } from '@burrow/tracing';
import { descendsFrom, OTLP_STATUS, type OtlpReceiver, startOtlpReceiver } from '@burrow/tracing/testing';
import { SqliteEventStore, WrongExpectedRevisionError } from '@burrow/event-store';
import { trace } from '@opentelemetry/api';
import { ConfigError, readConfig } from './config.js';
import { Infrastructure } from './infrastructure.js';

/** A log destination that keeps the lines. */
function lines(): { stream: Writable; lines: Record<string, unknown>[] } {
  const kept: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        kept.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { stream, lines: kept };
}

const inSpan = <T>(fn: () => Promise<T>) =>
  trace.getTracer('test').startActiveSpan('request', async (span) => {
    try {
      return { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId, result: await fn() };
    } finally {
      span.end();
    }
  });

describe('Infrastructure with tracing on', () => {
  let receiver: OtlpReceiver;
  let tracing: Tracing;
  let dir: string;
  let infra: Infrastructure;
  const log = lines();

  before(async () => {
    receiver = await startOtlpReceiver();
    // the SDK reads its settings from the process's environment
    Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50' });
    tracing = (await startTracing('runtime-test'))!;
    dir = await mkdtemp(join(tmpdir(), 'burrow-tracing-'));
    infra = new Infrastructure(readConfig({ BURROW_DATA_DIR: dir, BURROW_READ_MODELS: 'memory' }), undefined, {
      tracing,
      logDestination: log.stream,
    });
  });

  after(async () => {
    await infra?.close();
    await tracing?.shutdown();
    await receiver?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('store calls within a span are its children, with what they touched; calls outside any span make none', async () => {
    const store = await infra.eventStore();
    const docs = await infra.documents('accounts');
    const blobs = await infra.blobs();
    assert.ok(store instanceof SqliteEventStore, 'the wrapper is still the adapter to instanceof');
    // background work (a projection's poll, a reaper): no span around it, none made
    await store.append('background-1', [{ type: 'Polled', data: {} }], 'any');
    await docs.collection('users').get('nobody');
    const request = await inSpan(async () => {
      await store.append(
        'user-1',
        [
          { type: 'Created', data: {} },
          { type: 'Named', data: {} },
        ],
        'no_stream',
      );
      await store.readStream('user-1');
      await store.append('user-1', [{ type: 'Late', data: {} }], 0).catch((e: unknown) => e);
      await docs.collection('users').upsert({ _id: 'u1', name: 'x' });
      await docs.collection('users').find({ name: 'x' });
      const put = await blobs.put(Readable.from([Buffer.from('traced')]));
      return put.key;
    });
    await tracing.flush();
    const all = await receiver.waitFor((spans) => spans.filter((s) => s.traceId === request.traceId).length >= 7);
    const spans = all.filter((s) => s.traceId === request.traceId);
    const names = spans.map((s) => s.name).sort();
    assert.deepEqual(
      names,
      [
        'blobs put',
        'documents find users',
        'documents upsert users',
        'event-store append',
        'event-store append',
        'event-store readStream',
        'request',
      ].sort(),
    );
    const parent = spans.find((s) => s.name === 'request')!;
    for (const span of spans.filter((s) => s !== parent)) {
      assert.equal(span.parentSpanId, parent.spanId, span.name);
      assert.equal(span.resource['service.name'], 'burrow-runtime-test');
    }
    const [created, late] = spans.filter((s) => s.name === 'event-store append');
    assert.equal(created.attributes['burrow.event_store.stream'], 'user-1');
    assert.equal(created.attributes['db.system.name'], 'sqlite');
    assert.equal(created.attributes['burrow.event_store.events'], 2);
    assert.equal(created.status.code, OTLP_STATUS.UNSET);
    // the append refused for its expected revision failed its span, by the error's type
    assert.equal(late.status.code, OTLP_STATUS.ERROR);
    assert.equal(late.attributes['error.type'], new WrongExpectedRevisionError('s', 0, 1).name);
    const find = spans.find((s) => s.name === 'documents find users')!;
    assert.equal(find.attributes['db.collection.name'], 'users');
    assert.equal(find.attributes['db.system.name'], 'memory');
    assert.equal(spans.find((s) => s.name === 'blobs put')!.attributes['burrow.blob_store'], 'local-folder');
    // nothing from the background calls
    assert.ok(!all.some((s) => s.attributes['burrow.event_store.stream'] === 'background-1'));
    assert.equal(all.filter((s) => s.name === 'documents get users').length, 0);
    assert.ok(descendsFrom(spans, created, parent));
  });

  it('a log line written within a span names its trace and span; outside, none', async () => {
    const logger = infra.logger('svc');
    logger.info('outside');
    const { traceId, spanId } = await inSpan(async () => logger.info('inside'));
    const inside = log.lines.find((l) => l.msg === 'inside')!;
    const outside = log.lines.find((l) => l.msg === 'outside')!;
    assert.equal(inside.trace_id, traceId);
    assert.equal(inside.span_id, spanId);
    assert.equal(outside.trace_id, undefined);
    assert.equal(outside.span_id, undefined);
  });
});

describe('Infrastructure with tracing off', () => {
  it('the adapters are not wrapped, and log lines carry no trace fields even within a span', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-tracing-'));
    const log = lines();
    const infra = new Infrastructure(readConfig({ BURROW_DATA_DIR: dir, BURROW_READ_MODELS: 'memory' }), undefined, {
      logDestination: log.stream,
    });
    try {
      assert.equal(infra.tracing, null);
      assert.equal(types.isProxy(await infra.eventStore()), false);
      assert.equal(types.isProxy(await infra.documents('accounts')), false);
      assert.equal(types.isProxy(await infra.blobs()), false);
      await inSpan(async () => infra.logger('svc').info('inside'));
      assert.equal(log.lines.find((l) => l.msg === 'inside')!.trace_id, undefined);
    } finally {
      await infra.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('configuration: the OpenTelemetry variables', () => {
  const problems = (env: Record<string, string>) => {
    try {
      readConfig({ BURROW_DATA_DIR: tmpdir(), ...env });
      return [];
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      return error.problems;
    }
  };

  it('accepts an http(s) endpoint with either OTLP/HTTP encoding, and nothing at all', () => {
    assert.deepEqual(problems({}), []);
    assert.deepEqual(problems({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), []);
    assert.deepEqual(
      problems({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector/v1/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      }),
      [],
    );
    // a protocol without an endpoint is not tracing: nothing to check
    assert.deepEqual(problems({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), []);
  });

  it('refuses what would export nothing, naming the variable', () => {
    assert.match(
      problems({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }).join('\n'),
      /OTEL_EXPORTER_OTLP_ENDPOINT must be an http/,
    );
    assert.match(
      problems({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }).join('\n'),
      /OTEL_EXPORTER_OTLP_ENDPOINT is not a valid URL/,
    );
    assert.match(
      problems({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).join('\n'),
      /OTEL_EXPORTER_OTLP_PROTOCOL must be http\/protobuf or http\/json/,
    );
    assert.match(
      problems({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' }).join('\n'),
      /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL/,
    );
    assert.match(
      problems({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'zipkin' }).join('\n'),
      /OTEL_TRACES_EXPORTER must be otlp or none/,
    );
  });
});
