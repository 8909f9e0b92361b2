export * from './events.js';
export * from './expiry.js';
export * from './limits.js';
export * from './paths.js';
export * from './records.js';
export * from './requests.js';
export * from './streams.js';
export * from './subjects.js';
