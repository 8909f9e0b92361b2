export * from './port.js';
export * from './sqlite.js';
export { whileBusy } from './sqlite-file.js';
export * from './esdb.js';
export * from './postgres.js';
