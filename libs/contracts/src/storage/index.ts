export * from './events.js';
export * from './streams.js';
export * from './subjects.js';
