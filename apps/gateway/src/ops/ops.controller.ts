/**
 * Health for orchestrators: /healthz (the process is alive), /readyz (this gateway can serve its
 * main traffic: 503 otherwise; what only some routes need degrades those routes and shows in the
 * body; every replica heard from, per service), /metrics (Prometheus).
 */
import { type HealthReply, Subjects } from '@burrow/contracts';
import type { BlobReader } from '@burrow/blobs';
import type { BusStatus, RpcClient } from '@burrow/transport';
import { Controller, Header, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Route } from '../http/route.js';
import { BLOBS, BUS_STATUS, DISK, REPLICAS, RPC } from '../http/tokens.js';
import { type GatewayMetrics, METRICS } from './metrics.js';
import { OPS_ROUTES } from './ops.routes.js';

/** The replicas this process has heard from, per service (the runtime's ReplicaRegistry, given as REPLICAS). */
interface ReplicaList {
  snapshot(): Record<string, object[]>;
}

/** The data directory's free space (the runtime's DiskSpace, given as DISK): what /readyz reads of it. */
interface DataDisk {
  describe(): Promise<string>;
}

const READY_TIMEOUT_MS = 1500;

/**
 * What readiness requires (docs/operations.md, "Readiness"): a failure here fails every request
 * of the main traffic, or may be this gateway's own (its blob-store connection, its disk), so a
 * load balancer does well to send the traffic elsewhere. Every login passes accounts (with the
 * login throttle's store, which its health includes), every storage request the storage catalog,
 * every transfer the blob store. Anything else (billing: only the billing routes need it; a
 * service's event store: only writes need it) degrades: its routes answer 503 naming it, and
 * /readyz lists it under `degraded` without failing.
 */
const REQUIRED = new Set(['accounts', 'storage-catalog', 'blobs', 'disk']);
@Controller()
export class OpsController {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(METRICS) private readonly metrics: GatewayMetrics,
    @Inject(BLOBS) private readonly blobs: BlobReader,
    @Inject(BUS_STATUS) private readonly bus: BusStatus,
    @Inject(DISK) private readonly disk: DataDisk,
    @Inject(REPLICAS) private readonly replicas: ReplicaList,
  ) {}

  /**
   * Liveness: 200 while this process serves or is reconnecting to the bus (restarting it would not
   * bring NATS back, and a fresh process could not connect either); 503 only when a bus connection
   * is closed for good or has stopped trying. The body always says whether the bus is connected
   * and since when; /readyz is what fails during an outage.
   */
  @Route(OPS_ROUTES.healthz)
  healthz(@Res() res: Response): void {
    const bus = this.bus.snapshot();
    res.status(bus.live ? 200 : 503).json({ status: bus.live ? 'ok' : 'bus connection lost for good', bus });
  }

  @Route(OPS_ROUTES.readyz)
  async readyz(@Res() res: Response): Promise<void> {
    const checks: Record<string, string> = {};
    const services = [Subjects.accounts.health, Subjects.billing.health, Subjects.storage.health];
    await Promise.all(
      services.map(async (subject) => {
        const name = subject.split('.')[0];
        try {
          const reply = await this.rpc.call<HealthReply>(subject, {}, { timeoutMs: READY_TIMEOUT_MS });
          checks[name] = !reply.ok
            ? (reply.reason ?? 'failing')
            : reply.degraded
              ? `degraded: ${reply.degraded}`
              : 'ok';
        } catch (error) {
          checks[name] = (error as Error).message;
        }
      }),
    );
    try {
      await this.blobs.ping();
      checks.blobs = 'ok';
    } catch (error) {
      checks.blobs = (error as Error).message;
    }
    // low disk is reported before the disk is full (uploads are refused from then on)
    try {
      checks.disk = await this.disk.describe();
    } catch (error) {
      checks.disk = `cannot read the data directory's free space: ${(error as Error).message}`;
    }
    const failing = Object.keys(checks).filter((name) => checks[name] !== 'ok');
    const ready = failing.every((name) => !REQUIRED.has(name) || checks[name].startsWith('degraded: '));
    const degraded = failing.filter((name) => !REQUIRED.has(name) || checks[name].startsWith('degraded: '));
    res
      .status(ready ? 200 : 503)
      .json({ status: ready ? 'ready' : 'not ready', checks, degraded, replicas: this.replicas.snapshot() });
  }

  @Route(OPS_ROUTES.metrics)
  @Header('Content-Type', 'text/plain; version=0.0.4')
  metricsText(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
