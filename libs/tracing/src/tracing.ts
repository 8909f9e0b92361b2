/**
 * What a process gets when tracing is on: the hooks the transports, the stores, the gateway's HTTP
 * server and the logger call. Plain types only: this module loads nothing of OpenTelemetry, so
 * code holding a `Tracing | null` costs nothing when tracing is off.
 */
import type { BlobStore } from '@burrow/blobs';
import type { DocumentStore } from '@burrow/documents';
import type { EventStore } from '@burrow/event-store';
import type { BusTracing } from '@burrow/transport';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The environment tracing is read from (the process's). */
export type TracingEnv = Record<string, string | undefined>;

/** The OTLP encodings Burrow exports with. */
export type TracingProtocol = 'http/protobuf' | 'http/json';

/** The request as Express hands it on: `route` once a route took it (its path labels the span). */
export type TracedRequest = IncomingMessage & { route?: { path?: unknown } };

export interface HttpTracingOptions {
  /** requests not traced (health checks, metrics scrapes), by their path (no query) */
  skip?(path: string): boolean;
}

export type HttpMiddleware = (req: TracedRequest, res: ServerResponse, next: (error?: unknown) => void) => void;

/** Which server a store wrapper's spans name (`db.system.name`, `burrow.blob_store`). */
export type StoreSystem = string;

export interface Tracing {
  /** the service name the spans are exported under (`service.name`) */
  readonly serviceName: string;
  /** where spans go (the OTLP traces URL, without any user or password it holds) */
  readonly endpoint: string;
  /** `http/protobuf` or `http/json` */
  readonly protocol: string;
  /** the transports' hooks: a span per bus call, its context carried in NATS headers */
  readonly bus: BusTracing;
  /** the log fields of the active span (`trace_id`, `span_id`); empty outside any span (pino's `mixin`) */
  logFields(): Record<string, string>;
  /**
   * The HTTP server span of each request (a child of the caller's when its `traceparent` header
   * names one), active while the request is handled, ended when the answer is sent or the
   * connection closes. It records the method, the route (`/storage/*path`), the status: not the
   * path itself, which holds users' file names, share-room keys and link tokens.
   */
  httpServer(options: HttpTracingOptions): HttpMiddleware;
  /**
   * The store, its calls made spans: only within a span (a request, a bus call), never for
   * background work, which would otherwise make a trace per poll.
   */
  eventStore<T extends EventStore>(store: T, system: StoreSystem): T;
  documents<T extends DocumentStore>(store: T, system: StoreSystem): T;
  blobs<T extends Partial<BlobStore>>(store: T, system: StoreSystem): T;
  /** Sends the spans ended so far. */
  flush(): Promise<void>;
  /** Sends what is left and stops (the process is ending). */
  shutdown(): Promise<void>;
}
