export * from './config.js';
export * from './logger.js';
export * from './secrets.js';
export * from './infrastructure.js';
export * from './service-app.js';
export * from './direct-handlers.js';
export * from './process.js';
export * from './ip-address.js';
export * from './client-address-key.js';
export * from './clock.js';
export * from './data-dir.js';
export * from './read-models-dir.js';
export * from './disk-space.js';
// distributed tracing (OpenTelemetry, loaded only when OTEL_EXPORTER_OTLP_ENDPOINT turns it on)
export { startTracing, tracingRequested, type Tracing } from '@burrow/tracing';
export * from './replicas.js';
export * from './ops-server.js';
export * from './event-sourced.js';
export * from './session-forgets.js';
