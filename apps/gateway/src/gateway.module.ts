/**
 * The gateway: one Nest module per interface (accounts-api, events, storage-api, share-api, web, dav, ops),
 * sharing only `http/` (the bus client, blob reads, guards, body parsing, error mapping).
 */
import { type DynamicModule, Module } from '@nestjs/common';
import { ACCOUNTS_API_CONTROLLERS, AccountsApiModule } from './accounts-api/accounts-api.module.js';
import { EVENTS_CONTROLLERS, EventsModule } from './events/events.module.js';
import type { EventsOptions } from './events/events.options.js';
import { DavModule } from './dav/dav.module.js';
import type { DavLocks } from './dav/locks.js';
import { type HttpDependencies, HttpModule } from './http/http.module.js';
import type { GatewayMetrics } from './ops/metrics.js';
import { OPS_CONTROLLERS, OpsModule } from './ops/ops.module.js';
import { SHARE_API_CONTROLLERS, ShareApiModule } from './share-api/share-api.module.js';
import { STORAGE_API_CONTROLLERS, StorageApiModule } from './storage-api/storage-api.module.js';
import { WEB_CONTROLLERS, WebModule } from './web/web.module.js';

/** Every controller the gateway serves (the OpenAPI test compares them with the document). */
export const GATEWAY_CONTROLLERS = [...ACCOUNTS_API_CONTROLLERS, ...EVENTS_CONTROLLERS, ...STORAGE_API_CONTROLLERS, ...SHARE_API_CONTROLLERS, ...WEB_CONTROLLERS, ...OPS_CONTROLLERS];

@Module({})
export class GatewayModule {
  static forRoot(deps: HttpDependencies, metrics: GatewayMetrics, locks: DavLocks, events: EventsOptions): DynamicModule {
    return {
      module: GatewayModule,
      imports: [HttpModule.forRoot(deps), WebModule, AccountsApiModule, EventsModule.forRoot(events), StorageApiModule, ShareApiModule, DavModule.forRoot(locks), OpsModule.forRoot(metrics)],
    };
  }
}
