/**
 * A process's own operations port (`BURROW_OPS_PORT`, off unless set): `/healthz` (alive: the bus
 * connections are up or reconnecting), `/readyz` (every service this process runs answers its own
 * health: 200, else 503 with the reasons) and `/metrics` (Prometheus: the process's own metrics,
 * prefixed `burrow_process_`). The gateway's main port serves the deployment's view; this one
 * answers for this process alone, so a probe can tell which replica is stuck.
 */
import type { HealthReply } from '@burrow/contracts';
import type { BusStatus } from '@burrow/transport';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { collectDefaultMetrics, Registry } from 'prom-client';

export class OpsServer {
  private readonly services = new Map<string, () => Promise<HealthReply>>();
  private readonly registry = new Registry();
  private readonly server: Server;

  private constructor(private readonly bus: BusStatus) {
    collectDefaultMetrics({ register: this.registry, prefix: 'burrow_process_' });
    this.server = createServer((req, res) => void this.handle(req.url ?? '/', req.method ?? 'GET', res));
  }

  static async listen(port: number, bus: BusStatus): Promise<OpsServer> {
    const ops = new OpsServer(bus);
    await new Promise<void>((resolve, reject) => {
      ops.server.once('error', reject);
      ops.server.listen(port, '0.0.0.0', () => resolve());
    });
    return ops;
  }

  /** The port it listens on (the one asked for, or the one given for 0). */
  get port(): number {
    const address = this.server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  /** A service this process runs: its health is part of /readyz. */
  add(service: string, health: () => Promise<HealthReply>): void {
    this.services.set(service, health);
  }

  private async handle(url: string, method: string, res: ServerResponse): Promise<void> {
    const json = (status: number, body: object) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const path = url.split('?')[0];
    if (method !== 'GET' && method !== 'HEAD') return json(405, { reason: 'only GET' });
    if (path === '/healthz') {
      const bus = this.bus.snapshot();
      return json(bus.live ? 200 : 503, { status: bus.live ? 'ok' : 'bus connection lost for good', bus });
    }
    if (path === '/readyz') {
      const services: Record<string, HealthReply> = {};
      await Promise.all(
        [...this.services].map(async ([name, health]) => {
          services[name] = await health().catch((error: Error) => ({
            service: name,
            ok: false,
            position: 0,
            reason: error.message,
          }));
        }),
      );
      const ready = this.bus.snapshot().connected && Object.values(services).every((s) => s.ok);
      return json(ready ? 200 : 503, {
        status: ready ? 'ready' : 'not ready',
        bus: this.bus.snapshot().connected,
        services,
      });
    }
    if (path === '/metrics') {
      res.writeHead(200, { 'content-type': this.registry.contentType });
      res.end(await this.registry.metrics());
      return;
    }
    json(404, { reason: 'not found' });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
