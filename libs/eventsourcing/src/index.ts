export * from './command-handler.js';
export * from './projection-runner.js';
