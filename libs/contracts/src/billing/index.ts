export * from './appliance.js';
export * from './countries.js';
export * from './events.js';
export * from './records.js';
export * from './requests.js';
export * from './streams.js';
export * from './subjects.js';
