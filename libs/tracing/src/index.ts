export * from './tracing.js';
export * from './start.js';
