export * from './port.js';
export * from './local.js';
export * from './minio.js';
