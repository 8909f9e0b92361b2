/**
 * The gateway: one Nest module per interface (accounts-api, events, storage-api, share-api, web, dav, ops),
 * sharing the HTTP kit (`http/`: routes, bodies, error mapping), the rooms (`storage-access/`,
 * `transfers/`, `partner-access/`) and what HttpModule (gateway.http.module.ts) provides: the bus
 * client, blob reads, the signer, sessions and the partner guard.
 */
import type { ReplicaRegistry } from '@burrow/runtime';
import { type DynamicModule, Module } from '@nestjs/common';
import { AccountsApiModule } from './accounts-api/accounts-api.module.js';
import { EventsModule } from './events/events.module.js';
import type { EventsOptions } from './events/events.options.js';
import { DavModule } from './dav/dav.module.js';
import type { DavLocks } from './dav/locks.js';
import { gatewayOpenApiDocument } from './gateway.routes.js';
import { type HttpDependencies, HttpModule } from './gateway.http.module.js';
import type { GatewayMetrics } from './ops/metrics.js';
import { OpsModule } from './ops/ops.module.js';
import { ShareApiModule } from './share-api/share-api.module.js';
import { StorageApiModule } from './storage-api/storage-api.module.js';
import { WebModule } from './web/web.module.js';

@Module({})
export class GatewayModule {
  static forRoot(
    deps: HttpDependencies,
    metrics: GatewayMetrics,
    locks: DavLocks,
    events: EventsOptions,
    replicas: ReplicaRegistry,
  ): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        HttpModule.forRoot(deps),
        WebModule,
        AccountsApiModule,
        EventsModule.forRoot(events),
        StorageApiModule,
        ShareApiModule,
        DavModule.forRoot(locks),
        OpsModule.forRoot(metrics, gatewayOpenApiDocument, replicas),
      ],
    };
  }
}
