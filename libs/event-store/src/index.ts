export * from './port.js';
export * from './sqlite.js';
export * from './esdb.js';
export * from './postgres.js';
