export * from './port.js';
export * from './eml-folder.js';
export * from './smtp.js';
