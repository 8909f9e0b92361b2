export * from './port.js';
export * from './local.js';
export * from './minio.js';
export * from './temporary.js';
export * from './verify.js';
export * from './folder-syncs.js';
export * from './digests.js';
export { FileReadStream, READ_CHUNK_BYTES, readBuffers, recycleReadBuffer } from './read-buffers.js';
