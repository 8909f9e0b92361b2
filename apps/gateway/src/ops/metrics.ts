/** Prometheus metrics for the gateway: request counts and latency by route and status. */
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** (method, status, route) series kept by `observeRequest`, at most this many */
const SERIES_REMEMBERED = 1000;

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'burrow_http_requests_total',
    help: 'HTTP requests handled by the gateway',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });
  readonly duration = new Histogram({
    name: 'burrow_http_request_duration_seconds',
    help: 'HTTP request duration',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [this.registry],
  });
  /** requests a fast route answered (http/fast-routes.ts), by the route's path: whether the fast path is taken */
  readonly fastRoutes = new Counter({
    name: 'burrow_http_fast_route_requests_total',
    help: "HTTP requests answered by a fast route (without Express's router and Nest's pipeline)",
    labelNames: ['route'],
    registers: [this.registry],
  });
  /** connections and requests refused by the per-address limits (http/connection-limits.ts), by which limit */
  readonly connectionsRefused = new Counter({
    name: 'burrow_http_connections_refused_total',
    help: 'Connections closed or requests refused by the per-client-address limits (connections, unfinished_headers, headers_timeout, requests)',
    labelNames: ['reason'],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'burrow_gateway_' });
  }

  /**
   * One request handled: counted and its duration observed. The labelled series are looked up
   * once per (method, route, status) and kept (prom-client hashes a labels object on every call
   * otherwise: ~20 µs of each request); Node's parser admits a bounded set of methods, routes are
   * the app's own paths, so the set is small, and bounded here all the same.
   */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.series.get(key);
    if (series === undefined) {
      if (this.series.size >= SERIES_REMEMBERED) this.series.clear();
      series = {
        count: this.requests.labels({ method, route, status: String(status) }),
        duration: this.duration.labels({ method, route }),
      };
      this.series.set(key, series);
    }
    series.count.inc();
    series.duration.observe(seconds);
  }

  private readonly series = new Map<
    string,
    { count: ReturnType<Counter['labels']>; duration: ReturnType<Histogram['labels']> }
  >();
}

export const METRICS = Symbol('METRICS');
