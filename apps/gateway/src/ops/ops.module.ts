/** Operations: health, readiness, metrics and the OpenAPI document (no authentication). */
import { type DynamicModule, Module } from '@nestjs/common';
import { type GatewayMetrics, METRICS } from './metrics.js';
import { OpenApiController } from './openapi.controller.js';
import { OpsController } from './ops.controller.js';

export const OPS_CONTROLLERS = [OpsController, OpenApiController];

@Module({})
export class OpsModule {
  static forRoot(metrics: GatewayMetrics): DynamicModule {
    return { module: OpsModule, controllers: OPS_CONTROLLERS, providers: [{ provide: METRICS, useValue: metrics }] };
  }
}
