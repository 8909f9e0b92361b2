export * from './config.js';
export * from './logger.js';
export * from './secrets.js';
export * from './infrastructure.js';
export * from './service-app.js';
export * from './password-hash.js';
export * from './process.js';
export * from './failure-limiter.js';
