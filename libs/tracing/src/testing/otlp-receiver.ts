/**
 * An OTLP/HTTP trace receiver for tests: what a collector's OTLP receiver does with
 * `POST /v1/traces`, in process. It decodes both encodings Burrow exports with (protobuf, with the
 * SDK's own protobuf reader from `@opentelemetry/otlp-transformer` and the field numbers of OTLP's
 * trace.proto; and JSON) into plain spans a test can look through, and answers as a collector
 * does (200 with an empty export response).
 */
import { createServer, type IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';

/** OTLP's span kinds (SpanKind in trace.proto). */
export const OTLP_SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 } as const;
/** OTLP's status codes. */
export const OTLP_STATUS = { UNSET: 0, OK: 1, ERROR: 2 } as const;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** empty for a root span */
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status: { code: number; message?: string };
  /** the resource's attributes (`service.name`, `service.instance.id`, `process.pid`, ...) */
  resource: Record<string, unknown>;
  /** how the export that brought it was encoded */
  encoding: 'protobuf' | 'json';
}

export interface OtlpReceiver {
  /** the base URL, for OTEL_EXPORTER_OTLP_ENDPOINT (`/v1/traces` is appended by the exporter) */
  url: string;
  spans: ReceivedSpan[];
  /** export requests received, whatever they held */
  requests: number;
  /** Waits until `done(spans)` holds (checked at each export), or fails after `timeoutMs` saying what arrived. */
  waitFor(done: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string | { toNumber(): number };
  doubleValue?: number;
  arrayValue?: { values?: OtlpAnyValue[] };
}
interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}
interface OtlpSpan {
  traceId: string | Uint8Array;
  spanId: string | Uint8Array;
  parentSpanId?: string | Uint8Array;
  name: string;
  kind?: number;
  attributes?: OtlpKeyValue[];
  status?: { code?: number; message?: string };
}
interface OtlpRequest {
  resourceSpans?: { resource?: { attributes?: OtlpKeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

const hex = (id: string | Uint8Array | undefined): string =>
  id === undefined ? '' : typeof id === 'string' ? id : Buffer.from(id).toString('hex');

function anyValue(value: OtlpAnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined && value.stringValue !== null) return value.stringValue;
  if (value.boolValue !== undefined && value.boolValue !== null) return value.boolValue;
  if (value.intValue !== undefined && value.intValue !== null)
    return typeof value.intValue === 'object' ? value.intValue.toNumber() : Number(value.intValue);
  if (value.doubleValue !== undefined && value.doubleValue !== null) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(anyValue);
  return undefined;
}

const attributes = (list: OtlpKeyValue[] | undefined): Record<string, unknown> =>
  Object.fromEntries((list ?? []).map((kv) => [kv.key, anyValue(kv.value)]));

function spansOf(request: OtlpRequest, encoding: ReceivedSpan['encoding']): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((rs) => {
    const resource = attributes(rs.resource?.attributes);
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: hex(s.traceId),
        spanId: hex(s.spanId),
        parentSpanId: hex(s.parentSpanId),
        name: s.name,
        kind: s.kind ?? 0,
        attributes: attributes(s.attributes),
        status: { code: s.status?.code ?? 0, ...(s.status?.message ? { message: s.status.message } : {}) },
        resource,
        encoding,
      })),
    );
  });
}

/** The SDK's own protobuf reader (`@opentelemetry/otlp-transformer`, what its exporter decodes collector responses with). */
interface ProtobufReader {
  isAtEnd(): boolean;
  readTag(): { fieldNumber: number; wireType: number };
  readVarint(): number;
  readBytes(): Uint8Array;
  readString(): string;
  skip(wireType: number): void;
}
type ReaderClass = new (bytes: Uint8Array) => ProtobufReader;

function loadReader(): ReaderClass {
  const require = createRequire(import.meta.url);
  const main = require.resolve('@opentelemetry/otlp-transformer');
  return (createRequire(main)('./common/protobuf/protobuf-reader.js') as { ProtobufReader: ReaderClass })
    .ProtobufReader;
}

/**
 * Reads the fields of one message: `on(field, reader, wireType)` takes the ones it knows (and
 * returns true), the rest are skipped.
 */
function fields(
  Reader: ReaderClass,
  bytes: Uint8Array,
  on: (field: number, reader: ProtobufReader, wireType: number) => boolean,
): void {
  const reader = new Reader(bytes);
  while (!reader.isAtEnd()) {
    const { fieldNumber, wireType } = reader.readTag();
    if (!on(fieldNumber, reader, wireType)) reader.skip(wireType);
  }
}

/**
 * An ExportTraceServiceRequest in protobuf, as OTLP's trace.proto numbers its fields, into the
 * shape of its JSON encoding (the fields the tests read: ids, name, kind, attributes, status).
 */
function decodeProtobufRequest(Reader: ReaderClass, bytes: Uint8Array): OtlpRequest {
  const anyValue = (b: Uint8Array): OtlpAnyValue => {
    const value: OtlpAnyValue = {};
    fields(Reader, b, (field, r, wire) => {
      if (field === 1 && wire === 2) value.stringValue = r.readString();
      else if (field === 2 && wire === 0) value.boolValue = r.readVarint() !== 0;
      else if (field === 3 && wire === 0) value.intValue = r.readVarint();
      else if (field === 5 && wire === 2) {
        const values: OtlpAnyValue[] = [];
        fields(Reader, r.readBytes(), (f, rr, w) => f === 1 && w === 2 && values.push(anyValue(rr.readBytes())) > 0);
        value.arrayValue = { values };
      } else return false;
      return true;
    });
    return value;
  };
  const keyValue = (b: Uint8Array): OtlpKeyValue => {
    const kv: OtlpKeyValue = { key: '' };
    fields(Reader, b, (field, r, wire) => {
      if (field === 1 && wire === 2) kv.key = r.readString();
      else if (field === 2 && wire === 2) kv.value = anyValue(r.readBytes());
      else return false;
      return true;
    });
    return kv;
  };
  const span = (b: Uint8Array): OtlpSpan => {
    const s: OtlpSpan = { traceId: '', spanId: '', name: '', attributes: [] };
    fields(Reader, b, (field, r, wire) => {
      if (wire === 2 && field === 1) s.traceId = r.readBytes();
      else if (wire === 2 && field === 2) s.spanId = r.readBytes();
      else if (wire === 2 && field === 4) s.parentSpanId = r.readBytes();
      else if (wire === 2 && field === 5) s.name = r.readString();
      else if (wire === 0 && field === 6) s.kind = r.readVarint();
      else if (wire === 2 && field === 9) s.attributes!.push(keyValue(r.readBytes()));
      else if (wire === 2 && field === 15) {
        const status: { code?: number; message?: string } = {};
        fields(Reader, r.readBytes(), (f, rr, w) => {
          if (f === 2 && w === 2) status.message = rr.readString();
          else if (f === 3 && w === 0) status.code = rr.readVarint();
          else return false;
          return true;
        });
        s.status = status;
      } else return false;
      return true;
    });
    return s;
  };
  const request: Required<OtlpRequest> = { resourceSpans: [] };
  fields(Reader, bytes, (field, r, wire) => {
    if (field !== 1 || wire !== 2) return false;
    const rs: NonNullable<OtlpRequest['resourceSpans']>[number] = { resource: { attributes: [] }, scopeSpans: [] };
    fields(Reader, r.readBytes(), (f, rr, w) => {
      if (f === 1 && w === 2)
        fields(
          Reader,
          rr.readBytes(),
          (ff, r3, w3) => ff === 1 && w3 === 2 && rs.resource!.attributes!.push(keyValue(r3.readBytes())) > 0,
        );
      else if (f === 2 && w === 2) {
        const spans: OtlpSpan[] = [];
        fields(Reader, rr.readBytes(), (ff, r3, w3) => ff === 2 && w3 === 2 && spans.push(span(r3.readBytes())) > 0);
        rs.scopeSpans!.push({ spans });
      } else return false;
      return true;
    });
    request.resourceSpans.push(rs);
    return true;
  });
  return request;
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  let Reader: ReaderClass | null = null;
  const waiters = new Set<() => void>();
  const receiver: OtlpReceiver = {
    url: '',
    spans: [],
    requests: 0,
    waitFor: (done, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!done(receiver.spans)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(receiver.spans);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `the spans awaited did not arrive within ${timeoutMs} ms; received ${receiver.spans.length} in ${receiver.requests} exports:\n${receiver.spans.map((s) => `  ${s.resource['service.name']} ${s.traceId}/${s.spanId}<-${s.parentSpanId} ${s.name}`).join('\n')}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const bytes = await body(req);
      receiver.requests += 1;
      const json = (req.headers['content-type'] ?? '').startsWith('application/json');
      if (json) {
        receiver.spans.push(...spansOf(JSON.parse(bytes.toString('utf8')) as OtlpRequest, 'json'));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else {
        Reader ??= loadReader();
        receiver.spans.push(...spansOf(decodeProtobufRequest(Reader, bytes), 'protobuf'));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      }
      for (const waiter of [...waiters]) waiter();
    })().catch((error: unknown) => {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  receiver.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return receiver;
}

/** The spans of one trace, each with its parent (when the parent is among them). */
export function traceOf(spans: ReceivedSpan[], traceId: string): ReceivedSpan[] {
  return spans.filter((s) => s.traceId === traceId);
}

/** Whether `ancestor` is `span`'s parent, grandparent, ... within `spans`. */
export function descendsFrom(spans: ReceivedSpan[], span: ReceivedSpan, ancestor: ReceivedSpan): boolean {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  for (let parent = byId.get(span.parentSpanId); parent; parent = byId.get(parent.parentSpanId)) {
    if (parent.spanId === ancestor.spanId) return true;
  }
  return false;
}
