export * from './device-policies.js';
export * from './events.js';
export * from './limits.js';
export * from './partner-backups.js';
export * from './records.js';
export * from './requests.js';
export * from './streams.js';
export * from './subjects.js';
