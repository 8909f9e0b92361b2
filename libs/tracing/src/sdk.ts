/**
 * Tracing with the OpenTelemetry SDK: loaded only when tracing is on (start.ts imports this module
 * then, and nothing else imports it).
 *
 * - One tracer provider per process (`@opentelemetry/sdk-trace-node`): AsyncLocalStorage carries
 *   the active span through awaits; W3C trace context (`traceparent`, `tracestate`) is the
 *   propagation format; spans go out in batches (`BatchSpanProcessor`, `OTEL_BSP_*`) over OTLP/HTTP,
 *   protobuf or JSON (`OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL`), to the endpoint, with the headers,
 *   timeout and compression the standard variables give (the exporter reads them itself); the
 *   sampler is the SDK's (`OTEL_TRACES_SAMPLER`, default parent-based always-on).
 * - The resource: `service.name` (`burrow-<service>`, or `OTEL_SERVICE_NAME`), a
 *   `service.instance.id` per process, the host and the pid, and `OTEL_RESOURCE_ATTRIBUTES`.
 */
import {
  type Attributes,
  context,
  type Context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type TextMapGetter,
} from '@opentelemetry/api';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { BusSpan, BusSystem, BusTracing } from '@burrow/transport';
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { hostname } from 'node:os';
import type { HttpMiddleware, HttpTracingOptions, Tracing, TracingEnv, TracingProtocol } from './tracing.js';

const TRACER_NAME = 'burrow';

/** The longest status message a span gets from an error (messages can be long; the type says most). */
const MAX_MESSAGE = 200;

async function exporterFor(protocol: TracingProtocol): Promise<SpanExporter> {
  // each reads its endpoint, headers, timeout and compression from the OTEL_EXPORTER_OTLP_* variables
  if (protocol === 'http/json')
    return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
}

/** The OTLP traces URL the exporter posts to (OTLP's rule: the traces variable as it is, else the base URL + `/v1/traces`), for the log. */
function tracesEndpoint(env: TracingEnv): string {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const url = new URL(traces || `${(env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').trim().replace(/\/+$/, '')}/v1/traces`);
  url.username = '';
  url.password = '';
  return url.toString();
}

export async function createTracing(
  defaultServiceName: string,
  env: TracingEnv,
  protocol: TracingProtocol,
): Promise<Tracing> {
  const resource = defaultResource()
    .merge(
      resourceFromAttributes({
        'service.name': defaultServiceName,
        'service.namespace': 'burrow',
        'service.instance.id': randomUUID(),
        'host.name': hostname(),
        'process.pid': process.pid,
      }),
    )
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(await exporterFor(protocol))],
  });
  // the process's provider, AsyncLocalStorage context manager and W3C propagator
  provider.register();
  const tracer = provider.getTracer(TRACER_NAME);
  const serviceName = String(resource.attributes['service.name'] ?? defaultServiceName);

  /** The span as the transports use it: run within it, end it once. */
  const busSpan = (span: Span, ctx: Context): BusSpan => {
    let ended = false;
    return {
      run: (fn) => context.with(ctx, fn),
      end: (error) => {
        if (ended) return;
        ended = true;
        if (error !== undefined && error !== null) fail(span, error);
        span.end();
      },
    };
  };

  const bus: BusTracing = {
    send(subject, system, kind) {
      const parent = context.active();
      const span = tracer.startSpan(
        `send ${subject}`,
        {
          kind: kind === 'request' ? SpanKind.CLIENT : SpanKind.PRODUCER,
          attributes: messaging(subject, system, 'send'),
        },
        parent,
      );
      return busSpan(span, trace.setSpan(parent, span));
    },
    receive(subject, system, queue, header) {
      // on NATS the sender's context comes in the headers (none: a new trace); in one process it is the active one
      const parent = header ? propagation.extract(ROOT_CONTEXT, header, headerGetter) : context.active();
      const attributes = {
        ...messaging(subject, system, 'process'),
        'messaging.consumer.group.name': queue,
        'burrow.service': queue,
      };
      const span = tracer.startSpan(`process ${subject}`, { kind: SpanKind.SERVER, attributes }, parent);
      return busSpan(span, trace.setSpan(parent, span));
    },
    inject(set) {
      propagation.inject(context.active(), set, { set: (carrier, key, value) => carrier(key, value) });
    },
  };

  /** `fn` in a span named `name` when there is a span around it (a request); else just `fn`. */
  const inSpan = <R>(name: string, attributes: Attributes, fn: () => R): R => {
    const parent = context.active();
    if (!trace.getSpan(parent)) return fn();
    const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
    let result: R;
    try {
      result = context.with(trace.setSpan(parent, span), fn);
    } catch (error) {
      fail(span, error);
      span.end();
      throw error;
    }
    if (isPromise(result)) {
      return result.then(
        (value) => {
          span.end();
          return value;
        },
        (error: unknown) => {
          fail(span, error);
          span.end();
          throw error;
        },
      ) as R;
    }
    span.end();
    return result;
  };

  const tracing: Tracing = {
    serviceName,
    endpoint: tracesEndpoint(env),
    protocol,
    bus,
    logFields(): Record<string, string> {
      const span = trace.getSpan(context.active());
      if (!span) return {};
      const ids = span.spanContext();
      return isSpanContextValid(ids) ? { trace_id: ids.traceId, span_id: ids.spanId } : {};
    },
    httpServer: (options) => httpServer(tracer, options),
    eventStore(store, system) {
      const attributes = { 'db.system.name': system };
      const stream = (args: unknown[]) => ({ ...attributes, 'burrow.event_store.stream': String(args[0]) });
      const spec: WrapSpec = {
        append: {
          name: 'event-store append',
          attributes: (args) => ({
            ...stream(args),
            'burrow.event_store.events': Array.isArray(args[1]) ? args[1].length : 0,
          }),
        },
        // one append over several streams (all or nothing): the streams it wrote, the events in all
        appendAtomically: {
          name: 'event-store append',
          attributes: (args) => {
            const writes = Array.isArray(args[0]) ? (args[0] as { stream: string; events: unknown[] }[]) : [];
            return {
              ...attributes,
              'burrow.event_store.stream': writes.map((w) => w.stream).join(' '),
              'burrow.event_store.events': writes.reduce((sum, w) => sum + w.events.length, 0),
              'burrow.event_store.streams': writes.length,
            };
          },
        },
        readStream: { name: 'event-store readStream', attributes: stream },
        streamRevision: { name: 'event-store streamRevision', attributes: stream },
        headPosition: { name: 'event-store headPosition', attributes: () => attributes },
        storeId: { name: 'event-store storeId', attributes: () => attributes },
      };
      // a view whose appends need not wait for the disk is traced the same way
      spec.deferringDurability = { wrap: (view) => wrap(view as object, spec, inSpan) };
      return wrap(store, spec, inSpan);
    },
    documents(store, system) {
      const collectionSpec = (collection: string): WrapSpec => {
        const attributes = { 'db.system.name': system, 'db.collection.name': collection };
        const op = (operation: string) => ({
          name: `documents ${operation} ${collection}`,
          attributes: () => ({ ...attributes, 'db.operation.name': operation }),
        });
        return Object.fromEntries(
          ['get', 'find', 'findOne', 'count', 'upsert', 'delete', 'deleteMany', 'ensureIndex'].map((operation) => [
            operation,
            op(operation),
          ]),
        );
      };
      return wrap(
        store,
        {
          collection: {
            wrap: (collection, args) => wrap(collection as object, collectionSpec(String(args[0])), inSpan),
          },
          commit: {
            name: 'documents commit',
            attributes: (args) => ({
              'db.system.name': system,
              'db.operation.name': 'commit',
              'burrow.documents.checkpoint': String(args[0]),
              'burrow.documents.writes': Array.isArray(args[3]) ? args[3].length : 0,
            }),
          },
          readCheckpoint: {
            name: 'documents readCheckpoint',
            attributes: (args) => ({ 'db.system.name': system, 'burrow.documents.checkpoint': String(args[0]) }),
          },
        },
        inSpan,
      );
    },
    blobs(store, system) {
      const attributes = () => ({ 'burrow.blob_store': system });
      const operations = [
        'put',
        'get',
        'getWithFingerprint',
        'stat',
        'exists',
        'fingerprint',
        'delete',
        'list',
        'deleteIfUnchanged',
        'quarantine',
      ];
      return wrap(
        store,
        Object.fromEntries(operations.map((operation) => [operation, { name: `blobs ${operation}`, attributes }])),
        inSpan,
      );
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
  return tracing;
}

const messaging = (subject: string, system: BusSystem, operation: 'send' | 'process'): Attributes => ({
  'messaging.system': system,
  'messaging.destination.name': subject,
  'messaging.operation.type': operation,
  'messaging.operation.name': operation,
});

const headerGetter: TextMapGetter<(name: string) => string | undefined> = {
  get: (carrier, key) => carrier(key),
  keys: () => ['traceparent', 'tracestate', 'baggage'],
};

const isPromise = (value: unknown): value is Promise<unknown> =>
  typeof (value as { then?: unknown } | null)?.then === 'function';

/**
 * Marks the span failed, as far as `error` says: a wire error (a reply's `err`) fails it only from
 * status 500 on (a 404 is an answer, not a failure), and records its status either way.
 */
function fail(span: Span, error: unknown): void {
  if (typeof error === 'string') {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.slice(0, MAX_MESSAGE) });
    return;
  }
  const wire = error as {
    burrowError?: unknown;
    status?: unknown;
    reason?: unknown;
    name?: unknown;
    message?: unknown;
  } | null;
  if (
    wire &&
    typeof wire === 'object' &&
    typeof wire.status === 'number' &&
    (wire.burrowError || typeof wire.reason === 'string')
  ) {
    span.setAttribute('burrow.error.status', wire.status);
    if (wire.status >= 500)
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: (typeof wire.reason === 'string' ? wire.reason : String(wire.status)).slice(0, MAX_MESSAGE),
      });
    return;
  }
  const type = error instanceof Error ? error.name : typeof wire?.name === 'string' ? wire.name : typeof error;
  span.setAttribute('error.type', type);
  const message = error instanceof Error ? error.message : typeof wire?.message === 'string' ? wire.message : '';
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: (message ? `${type}: ${message}` : type).slice(0, MAX_MESSAGE),
  });
}

/** Per method: a span (`name`, attributes from the arguments) or a wrapper of what it returns. */
type WrapSpec = Record<
  string,
  | { name: string; attributes: (args: unknown[]) => Attributes }
  | { wrap: (result: unknown, args: unknown[]) => unknown }
>;

/**
 * `target` with the methods `spec` names traced. Every method is called on the target itself (a
 * store's private fields stay reachable); the rest of the target shows through as it is.
 */
function wrap<T extends object>(
  target: T,
  spec: WrapSpec,
  inSpan: <R>(name: string, attributes: Attributes, fn: () => R) => R,
): T {
  const methods = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object) as unknown;
      if (typeof value !== 'function') return value;
      let method = methods.get(property);
      if (method) return method;
      const how = typeof property === 'string' && Object.hasOwn(spec, property) ? spec[property] : undefined;
      const original = value as (...args: unknown[]) => unknown;
      if (!how) method = original.bind(object);
      else if ('wrap' in how) method = (...args: unknown[]) => how.wrap(original.apply(object, args), args);
      else method = (...args: unknown[]) => inSpan(how.name, how.attributes(args), () => original.apply(object, args));
      methods.set(property, method);
      return method;
    },
  });
}

/** The HTTP server span middleware (tracing.ts, `httpServer`). */
function httpServer(tracer: ReturnType<NodeTracerProvider['getTracer']>, options: HttpTracingOptions): HttpMiddleware {
  return (req, res, next) => {
    if (options.skip?.((req.url ?? '/').split('?', 1)[0])) {
      next();
      return;
    }
    const method = req.method ?? 'GET';
    // a caller that traces (a proxy, a client) names the parent; else the request starts a trace
    const parent = propagation.extract(ROOT_CONTEXT, req.headers, httpHeaderGetter);
    const span = tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        // no url.path: paths hold users' file names, share-room keys and link tokens (the access log, under the same trace_id, has it)
        attributes: { 'http.request.method': method, 'network.protocol.version': req.httpVersion },
      },
      parent,
    );
    const active = trace.setSpan(parent, span);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const route = typeof req.route?.path === 'string' ? req.route.path : undefined;
      if (route) {
        span.updateName(`${method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', res.statusCode);
      if (!res.writableFinished)
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'the connection closed before the answer was sent' });
      else if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    // what the request's later events run (the access log on 'finish') sees its span too
    context.bind(active, res);
    context.with(active, next);
  };
}

const httpHeaderGetter: TextMapGetter<IncomingHttpHeaders> = {
  get: (headers, key) => headers[key],
  keys: (headers) => Object.keys(headers),
};
