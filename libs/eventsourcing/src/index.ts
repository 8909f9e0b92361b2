export * from './append.js';
export * from './command-handler.js';
export * from './counter.js';
export * from './ledger.js';
export * from './projection-runner.js';
export * from './reservation.js';
export * from './retry.js';
export * from './write-process.js';
