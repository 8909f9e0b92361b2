export * from './standalone.js';
export * from './multi-process.js';
export * from './client.js';
export * from './event-store.js';
