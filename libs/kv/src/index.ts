export * from './port.js';
export * from './modify.js';
export * from './memory.js';
export * from './nats.js';
export * from './sqlite.js';
