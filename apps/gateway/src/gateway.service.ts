/**
 * Composition of the gateway: the HTTP app (Express under Nest, our own body handling), the bus
 * client, the error filter, request logging and metrics. Stateless: any number can run.
 */
import type { Infrastructure } from '@burrow/runtime';
import { RpcClient } from '@burrow/transport';
import { type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import express from 'express';
import type { Server } from 'node:http';
import { BillingController } from './accounts-api/billing.controller.js';
import { GroupsController } from './accounts-api/groups.controller.js';
import { PartnerController } from './accounts-api/partner.controller.js';
import { PlansController } from './accounts-api/plans.controller.js';
import { ReportsController } from './accounts-api/reports.controller.js';
import { UsersController } from './accounts-api/users.controller.js';
import { HttpErrorFilter } from './http/error.filter.js';
import { PartnerGuard } from './http/partner.guard.js';
import { GATEWAY_INFRA, GATEWAY_LOGGER, RPC } from './http/rpc.js';
import { GatewayMetrics, METRICS } from './ops/metrics.js';
import { OpsController } from './ops/ops.controller.js';
import { OpenApiController } from './openapi/openapi.controller.js';

@Module({})
class GatewayModule {}

export interface RunningGateway {
  app: INestApplication;
  server: Server;
  port: number;
  close(): Promise<void>;
}

export const GATEWAY_CONTROLLERS = [OpsController, PlansController, PartnerController, BillingController, GroupsController, UsersController, ReportsController, OpenApiController];

export async function startGateway(infra: Infrastructure, options: { port?: number } = {}): Promise<RunningGateway> {
  const log = infra.logger('gateway');
  const client = infra.client('gateway');
  await client.connect();
  const rpc = new RpcClient(client, infra.config.rpcTimeoutMs, { log });
  const metrics = new GatewayMetrics();

  const server = express();
  server.disable('x-powered-by');
  server.set('etag', false);
  server.set('query parser', 'simple');
  // Behind the edge proxy the socket address is the proxy's: trust its X-Forwarded-For only when
  // configured (BURROW_TRUST_PROXY, e.g. "uniquelocal" inside the compose network).
  if (infra.config.trustProxy) server.set('trust proxy', infra.config.trustProxy);
  server.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (req.route?.path as string | undefined) ?? 'unmatched';
      metrics.requests.inc({ method: req.method, route, status: String(res.statusCode) });
      metrics.duration.observe({ method: req.method, route }, seconds);
      log.debug({ method: req.method, path: req.path, status: res.statusCode, ms: Math.round(seconds * 1000) }, 'request');
    });
    next();
  });

  const app = await NestFactory.create(
    {
      module: GatewayModule,
      controllers: GATEWAY_CONTROLLERS,
      providers: [
        { provide: RPC, useValue: rpc },
        { provide: METRICS, useValue: metrics },
        { provide: GATEWAY_LOGGER, useValue: log },
        { provide: GATEWAY_INFRA, useValue: infra },
        PartnerGuard,
      ],
    },
    new ExpressAdapter(server),
    { bodyParser: false, logger: false },
  );
  app.useGlobalFilters(new HttpErrorFilter(log));
  const port = options.port ?? infra.config.port;
  await app.listen(port, '0.0.0.0');
  const httpServer = app.getHttpServer() as Server;
  const address = httpServer.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  log.info({ port: actualPort, mode: infra.mode }, 'gateway listening');
  return {
    app,
    server: httpServer,
    port: actualPort,
    close: async () => {
      await app.close();
      await rpc.close();
    },
  };
}
