/** Operations: health, readiness, metrics and the OpenAPI document (no authentication). */
import type { ReplicaRegistry } from '@burrow/runtime';
import { type DynamicModule, Module } from '@nestjs/common';
import { REPLICAS } from '../http/tokens.js';
import { type GatewayMetrics, METRICS } from './metrics.js';
import type { OpenApiDocument } from '../http/openapi-types.js';
import { OPENAPI_DOCUMENT, OpenApiController } from './openapi.controller.js';
import { OpsController } from './ops.controller.js';

export const OPS_CONTROLLERS = [OpsController, OpenApiController];

@Module({})
export class OpsModule {
  /** `document`: the gateway's OpenAPI document (built by the composition root, which knows every route). */
  static forRoot(metrics: GatewayMetrics, document: () => OpenApiDocument, replicas: ReplicaRegistry): DynamicModule {
    return {
      module: OpsModule,
      controllers: OPS_CONTROLLERS,
      providers: [
        { provide: METRICS, useValue: metrics },
        { provide: OPENAPI_DOCUMENT, useValue: document },
        { provide: REPLICAS, useValue: replicas },
      ],
    };
  }
}
