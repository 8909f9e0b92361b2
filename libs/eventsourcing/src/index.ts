export {
  type AggregateCacheOptions,
  aggregateCacheSize,
  clearAggregateCache,
  configureAggregateCache,
  DEFAULT_AGGREGATE_CACHE_STREAMS,
} from './aggregate-cache.js';
export * from './append.js';
export * from './command-handler.js';
export * from './counter.js';
export * from './crash-points.js';
export * from './ledger.js';
export * from './process-recovery.js';
export * from './projection.js';
export * from './projection-runner.js';
export * from './service-health.js';
export * from './reservation.js';
export * from './retry.js';
export * from './stream-facts.js';
export * from './workflow.js';
export * from './write-process.js';
