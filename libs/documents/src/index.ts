export * from './port.js';
export * from './memory.js';
export * from './mongo.js';
export { matches } from './filter.js';
