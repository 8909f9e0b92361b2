/**
 * Distributed tracing end to end (issue 39, item 7), against a real OTLP/HTTP receiver the test
 * starts (libs/tracing/src/testing/otlp-receiver.ts):
 * - multi-process on NATS: an upload through one gateway is one trace across the processes: the
 *   gateway's HTTP server span, its bus calls (their context carried in the NATS headers), the
 *   storage catalog's handler spans and the event-store and read-model calls beneath them, the
 *   blob put in the gateway; a download through the other gateway that carries the same trace
 *   context (`traceparent`, as a client or proxy that traces sends it) joins that trace; the
 *   gateway's log line of the request names the trace and the span;
 * - standalone (one process, in-process bus, OTLP JSON): the same spans, nested the same way;
 * - tracing off (no OTLP endpoint): the process loads no module of the OpenTelemetry SDK at all
 *   (a module-resolve hook lists what it loads) and says nothing of tracing.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  descendsFrom,
  OTLP_SPAN_KIND,
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
  traceOf,
} from '@burrow/tracing/testing';
import { partnerApi } from './harness/client.js';
import { moduleLogImport } from './harness/module-log.js';
import { type MultiProcessTarget, natsUrlForTests, startMultiProcess } from './harness/multi-process.js';
import type { TestTarget } from './harness/standalone.js';
import { startStandaloneProcess, type StandaloneProcess } from './harness/standalone-process.js';
import { storageApi } from './harness/storage-client.js';
import { createUser } from './scenarios/accounts-fixtures.js';

const natsUrl = natsUrlForTests();
const PASSWORD = 'user-password-1';
/** spans are sent in batches this often (the SDK's default is 5 s) */
const FAST_EXPORT = { OTEL_BSP_SCHEDULE_DELAY: '100' };

const traceparent = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`;
const newTraceId = () => randomBytes(16).toString('hex');
const newSpanId = () => randomBytes(8).toString('hex');

/** A user with a device, and a file uploaded by `PUT` through `url`, its request carrying `header` when given. */
async function upload(target: TestTarget, url: string, header?: string) {
  const user = await createUser(partnerApi(target));
  const storage = storageApi(target, user.username, PASSWORD, url);
  await storage.putDevice('laptop').expect(200);
  const put = storage.putFile('laptop', 'docs/report.txt', 'traced bytes');
  if (header) put.set('traceparent', header);
  await put.expect(201);
  return { user, storage };
}

const named = (spans: ReceivedSpan[], name: string | RegExp) =>
  spans.filter((s) => (typeof name === 'string' ? s.name === name : name.test(s.name)));
const one = (
  spans: ReceivedSpan[],
  name: string | RegExp,
  where: (s: ReceivedSpan) => boolean = () => true,
): ReceivedSpan => {
  const found = named(spans, name).filter(where);
  assert.equal(
    found.length,
    1,
    `one span ${String(name)}: found ${found.length} among ${spans.map((s) => s.name).join(', ')}`,
  );
  return found[0];
};
const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((s) => s.parentSpanId === parent.spanId);

/**
 * The spans of an upload's trace as both modes make them: the gateway's server span (a child of
 * `clientSpanId` when the request named one), beneath it the blob put and the bus calls, and the
 * catalog's commit handler with event-store and read-model spans beneath it.
 */
function checkUploadTrace(
  spans: ReceivedSpan[],
  gatewayService: string,
  catalogService: string,
  clientSpanId: string | null,
) {
  const server = one(spans, 'PUT /storage/*path', (s) => s.kind === OTLP_SPAN_KIND.SERVER);
  assert.equal(server.resource['service.name'], gatewayService);
  assert.equal(
    server.parentSpanId,
    clientSpanId ?? '',
    'the gateway span is the child of the client span the request named (or the root)',
  );
  assert.equal(server.attributes['http.request.method'], 'PUT');
  assert.equal(server.attributes['http.route'], '/storage/*path');
  assert.equal(server.attributes['http.response.status_code'], 201);
  assert.equal(server.attributes['url.path'], undefined, 'no path: it holds file names');

  // the bytes went to the blob store within the request
  const put = one(spans, 'blobs put');
  assert.equal(put.parentSpanId, server.spanId);
  assert.equal(put.resource['service.name'], gatewayService);

  // the gateway's bus calls are children of its server span; the commit's handler is the child of the commit's send
  const sends = childrenOf(spans, server).filter((s) => s.kind === OTLP_SPAN_KIND.CLIENT && s.name.startsWith('send '));
  for (const subject of ['storage-catalog.files.prepare', 'storage-catalog.files.commit'])
    assert.ok(
      sends.some((s) => s.name === `send ${subject}`),
      `send ${subject} under the gateway span: ${sends.map((s) => s.name).join(', ')}`,
    );
  assert.ok(
    sends.some((s) => s.name.startsWith('send accounts.')),
    'the user was authenticated over the bus within the request',
  );
  const send = one(sends, 'send storage-catalog.files.commit');
  assert.equal(send.attributes['messaging.destination.name'], 'storage-catalog.files.commit');
  const handler = one(spans, 'process storage-catalog.files.commit');
  assert.equal(handler.kind, OTLP_SPAN_KIND.SERVER);
  assert.equal(handler.parentSpanId, send.spanId, 'the handler span is the child of the send span');
  assert.equal(handler.resource['service.name'], catalogService);
  assert.equal(handler.attributes['burrow.service'], 'storage-catalog');

  // beneath the catalog's handlers: the event store (the commit's appends) and the read models
  const appends = named(spans, 'event-store append').filter((s) => descendsFrom(spans, s, handler));
  assert.ok(appends.length >= 1, 'the commit appended its events within its handler span');
  for (const a of appends) assert.equal(a.resource['service.name'], catalogService);
  const handlers = named(spans, /^process storage-catalog\./);
  const reads = named(spans, /^documents /).filter((s) => handlers.some((h) => descendsFrom(spans, s, h)));
  assert.ok(
    reads.length >= 1,
    `read-model calls within the catalog's handlers: ${spans.map((s) => s.name).join(', ')}`,
  );
  assert.ok(
    reads.every(
      (r) =>
        typeof r.attributes['db.collection.name'] === 'string' ||
        r.name === 'documents commit' ||
        r.name === 'documents readCheckpoint',
    ),
  );
  // one trace, all of it
  assert.equal(new Set(spans.map((s) => s.traceId)).size, 1);
  return { server, handler };
}

describe(
  'tracing: multi-process, one upload is one trace across the gateways and the catalog',
  { skip: natsUrl ? false : 'NATS_URL not set: multi-process suites skipped' },
  () => {
    let receiver: OtlpReceiver;
    let target: MultiProcessTarget;

    before(async () => {
      receiver = await startOtlpReceiver();
      // http/protobuf: OTLP's default encoding; debug logs: the gateway's access-log line of each request
      // the login memory off (BURROW_SESSION_MEMO_MS=0): the upload, right after its device was
      // registered by the same login, is then checked over the bus, which the trace shows
      target = await startMultiProcess(
        natsUrl!,
        { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...FAST_EXPORT, LOG_LEVEL: 'debug', BURROW_SESSION_MEMO_MS: '0' },
        { postgresEventStore: process.env.POSTGRES_URL },
      );
    });

    after(async () => {
      await target?.close();
      await receiver?.close();
    });

    it('upload through the first gateway, download of it through the second, one trace: server span, bus spans in NATS headers, handler spans, store spans; the log line names them', async () => {
      const traceId = newTraceId();
      const uploadParent = newSpanId();
      const downloadParent = newSpanId();
      const { user, storage } = await upload(target, target.urls[0], traceparent(traceId, uploadParent));
      const download = await fetch(`${target.urls[1]}${storage.root}/laptop/docs/report.txt`, {
        headers: {
          authorization: `Basic ${Buffer.from(`${user.username}:${PASSWORD}`).toString('base64')}`,
          traceparent: traceparent(traceId, downloadParent),
        },
      });
      assert.equal(download.status, 200);
      assert.equal(await download.text(), 'traced bytes');
      const done = (all: ReceivedSpan[]) => {
        const spans = traceOf(all, traceId);
        return (
          spans.some((s) => s.name === 'process storage-catalog.files.commit') &&
          spans.some((s) => s.kind === OTLP_SPAN_KIND.SERVER && s.parentSpanId === downloadParent) &&
          named(spans, 'event-store append').length > 0 &&
          spans.some((s) => s.name === 'PUT /storage/*path')
        );
      };
      const spans = traceOf(await receiver.waitFor(done), traceId);
      assert.ok(
        spans.every((s) => s.encoding === 'protobuf'),
        'exported as OTLP protobuf, the default',
      );
      const { server } = checkUploadTrace(spans, 'burrow-gateway', 'burrow-storage-catalog', uploadParent);

      // the download went through the other gateway process, into the same trace
      const get = one(spans, /^GET /, (s) => s.kind === OTLP_SPAN_KIND.SERVER && s.parentSpanId === downloadParent);
      assert.equal(get.resource['service.name'], 'burrow-gateway');
      assert.notEqual(
        get.resource['service.instance.id'],
        server.resource['service.instance.id'],
        'another gateway process',
      );
      assert.notEqual(get.resource['process.pid'], server.resource['process.pid']);
      assert.equal(get.attributes['http.response.status_code'], 200);

      // the access-log line of the upload (debug) names its trace and the gateway's span
      const lines = target
        .processes()
        .filter((p) => p.name.startsWith('gateway'))
        .flatMap((p) => p.output.split('\n'));
      const logged = lines
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.msg === 'request' && l.method === 'PUT' && l.trace_id === traceId);
      assert.equal(logged.length, 1, 'one access-log line with the trace id');
      assert.equal(logged[0].span_id, server.spanId);
    });

    it('a request that names no trace starts one at the gateway', async () => {
      const before = new Set(receiver.spans.map((s) => s.traceId));
      await upload(target, target.urls[1]);
      // the file's PUT (201; the device's registration is a PUT of the same route, 200)
      const roots = (all: ReceivedSpan[]) =>
        all.filter(
          (s) =>
            !before.has(s.traceId) &&
            s.name === 'PUT /storage/*path' &&
            s.parentSpanId === '' &&
            s.attributes['http.response.status_code'] === 201,
        );
      const all = await receiver.waitFor(
        (spans) =>
          roots(spans).length === 1 &&
          traceOf(spans, roots(spans)[0].traceId).some((s) => s.name === 'process storage-catalog.files.commit') &&
          named(traceOf(spans, roots(spans)[0].traceId), 'event-store append').length > 0,
      );
      checkUploadTrace(traceOf(all, roots(all)[0].traceId), 'burrow-gateway', 'burrow-storage-catalog', null);
    });
  },
);

describe('tracing: standalone, spans nest across the in-process bus; off, nothing of the SDK loads', () => {
  let receiver: OtlpReceiver;
  let dir: string;
  let server: StandaloneProcess | undefined;

  before(async () => {
    receiver = await startOtlpReceiver();
    dir = await mkdtemp(join(tmpdir(), 'burrow-tracing-'));
  });

  after(async () => {
    await server?.kill();
    await receiver?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const start = async (name: string, env: Record<string, string>) => {
    const modules = join(dir, `${name}.modules`);
    server = await startStandaloneProcess(join(dir, name), {
      NODE_OPTIONS: moduleLogImport(),
      BURROW_TEST_MODULE_LOG: modules,
      ...env,
    });
    const target = {
      url: server.url,
      urls: [server.url],
      partner: { username: 'partner', password: 'partner-password-1' },
    } as TestTarget;
    return {
      target,
      loaded: async () => (await readFile(modules, 'utf8').catch(() => '')).split('\n').filter(Boolean),
    };
  };

  it('on (OTLP JSON): the upload is one trace, the catalog handler under the gateway span, the stores beneath', async () => {
    const { target, loaded } = await start('on', {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      ...FAST_EXPORT,
    });
    const traceId = newTraceId();
    const parent = newSpanId();
    await upload(target, target.url, traceparent(traceId, parent));
    const spans = traceOf(
      await receiver.waitFor(
        (all) =>
          traceOf(all, traceId).some((s) => s.name === 'process storage-catalog.files.commit') &&
          named(traceOf(all, traceId), 'event-store append').length > 0,
      ),
      traceId,
    );
    assert.ok(spans.every((s) => s.encoding === 'json'));
    const { handler } = checkUploadTrace(spans, 'burrow-standalone', 'burrow-standalone', parent);
    assert.equal(handler.attributes['messaging.system'], 'in-process');
    assert.match(server!.output(), /tracing on: spans exported over OTLP/);
    // the control of the test below: the hook sees the SDK when it is loaded
    assert.ok(
      (await loaded()).some((url) => url.includes('/@opentelemetry/sdk-trace-node/')),
      'the module log lists the SDK',
    );
    await server!.kill();
    server = undefined;
  });

  it('off (no OTLP endpoint, other OpenTelemetry variables set): no SDK module is loaded, nothing is said of tracing', async () => {
    const { target, loaded } = await start('off', {
      OTEL_SERVICE_NAME: 'not-traced',
      OTEL_TRACES_SAMPLER: 'always_on',
      ...FAST_EXPORT,
    });
    await upload(target, target.url, traceparent(newTraceId(), newSpanId()));
    const sdk = (await loaded()).filter((url) => !url.includes('/@opentelemetry/api/'));
    assert.deepEqual(sdk, [], 'no OpenTelemetry module but the API (which prom-client requires)');
    assert.doesNotMatch(server!.output(), /tracing on/);
    assert.ok(!receiver.spans.some((s) => s.resource['service.name'] === 'not-traced'));
  });
});
