export * from './in-process-bus.js';
export * from './in-process-server.js';
export * from './in-process-client.js';
export * from './rpc-client.js';
export * from './nats.js';
export * from './bus-status.js';
export * from './transport-logger.js';
export * from './unavailable-log.js';
