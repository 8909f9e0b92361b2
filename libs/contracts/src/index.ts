export * from './errors.js';
export * from './decider.js';
export * from './subjects.js';
export * from './events.js';
export * from './messages.js';
export * from './coerce.js';
