export * from './port.js';
export * from './memory.js';
export * from './mongo.js';
export * from './sqlite.js';
export { compareBy, compareStrings, matches, prefixRange } from './filter.js';
export * from './write-behind.js';
export { CommittedCache } from './committed-cache.js';
export { applyWrites, checkWrites, type WriteTarget } from './commit.js';
